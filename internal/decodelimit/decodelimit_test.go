package decodelimit

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"
)

func nested(open, close string, n int) string {
	return strings.Repeat(open, n) + strings.Repeat(close, n)
}

func TestJSONDepth(t *testing.T) {
	tests := []struct {
		name, in  string
		max       int
		off       int64
		line, col int
	}{
		{"arrays", nested("[", "]", 257), 0, 256, 1, 257},
		{"objects", strings.Repeat(`{"a":`, 257) + "1" + strings.Repeat("}", 257), 0, 5 * 256, 1, 5*256 + 1},
		{"a lower limit", "\n[\n [[]]]", 2, 5, 3, 3},
		{"brackets in strings do not count", `["[[[[", {"{{{": "]]]"}, [[]]]`, 3, -1, 0, 0},
		{"escaped quotes", `["\"[[[[[\\", [[]]]`, 3, -1, 0, 0},
		{"JSON Lines", "[[1]]\n[[2]]\n[[[3]]]\n", 2, 14, 3, 3},
		{"at the limit", nested("[", "]", 256), 0, -1, 0, 0},
		{"after a column of é", "[\"é\",[[]]]", 2, 7, 1, 7},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := JSON([]byte(tt.in), Options{MaxDepth: tt.max})
			if tt.off < 0 {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %v, want an *Error", err)
			}
			want := tt.max
			if want == 0 {
				want = MaxDepth
			}
			if e.Offset != tt.off || e.Line != tt.line || e.Col != tt.col || e.Duplicate || e.Depth != want {
				t.Errorf("got %+v, want offset %d at %d:%d", e, tt.off, tt.line, tt.col)
			}
			if msg := "nesting deeper than " + itoa(want) + " levels"; err.Error() != msg {
				t.Errorf("message %q, want %q", err, msg)
			}
		})
	}
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

func TestJSONDuplicateKeys(t *testing.T) {
	tests := []struct {
		name, in string
		key      string // "" for no error
		off      int64
	}{
		{"a repeated key", `{"role":"user","role":"system"}`, "role", 15},
		{"an escaped one", `{"role":"user","r\u006fle":"system"}`, "role", 15},
		{"nested", `{"a":{"b":1,"c":{"b":2},"b":3}}`, "b", 24},
		{"in an array of objects", `[{"a":1},{"a":1},{"x":[{"a":1,"a":2}]}]`, "a", 30},
		{"the same key in sibling objects", `[{"a":1},{"a":2}]`, "", 0},
		{"values equal to keys", `{"a":"a","b":"a","c":{"a":"b"}}`, "", 0},
		{"case differs", `{"role":"user","Role":"system"}`, "", 0},
		{"many keys", manyKeys(40, -1), "", 0},
		{"many keys, one twice", manyKeys(40, 30), "k5", int64(strings.Index(manyKeys(40, 30), `"k5":30`))},
		{"the empty key", `{"":1,"":2}`, "", 6},
		{"invalid UTF-8 as encoding/json reads it", "{\"\xff\":1,\"\xfe\":2}", "\uFFFD", 7},
		{"JSON Lines", "{\"id\":1}\n{\"id\":2,\"id\":3}\n", "id", 17},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := JSON([]byte(tt.in), Options{UniqueKeys: true})
			if tt.key == "" && tt.off == 0 {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %v, want an *Error", err)
			}
			if !e.Duplicate || e.Key != tt.key || e.Offset != tt.off {
				t.Errorf("got %+v, want key %q at %d", e, tt.key, tt.off)
			}
			if want := `duplicate key "` + strings.ReplaceAll(tt.key, "\uFFFD", `�`) + `"`; err.Error() != want {
				t.Errorf("message %q, want %q", err, want)
			}
			if err := JSON([]byte(tt.in), Options{}); err != nil {
				t.Errorf("without UniqueKeys: %v", err)
			}
		})
	}
}

// manyKeys is an object of n keys k0..k{n-1}; with dup >= 0, key k5 is
// written again as the dup-th key.
func manyKeys(n, dup int) string {
	var b strings.Builder
	b.WriteByte('{')
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		k := i
		if i == dup {
			k = 5
		}
		b.WriteString(`"k` + itoa(k) + `":` + itoa(i))
	}
	b.WriteByte('}')
	return b.String()
}

// A document that is not JSON is let through, without a panic, for the
// decoder to report.
func TestJSONNotWellFormed(t *testing.T) {
	for _, in := range []string{``, `"`, `]]]`, `{"a`, `{"a":1}}}`, `[1,2`, `{"a":1 "a":2}`, `{"\u12":1,"\u12":2}`, `\`, `"\`} {
		if err := JSON([]byte(in), Options{UniqueKeys: true}); err != nil {
			t.Errorf("%q: %v", in, err)
		}
	}
}

// The check keeps one frame per level and the keys of the open objects:
// deep documents cost a few bytes a level, flat ones a few bytes a key.
func TestJSONMemory(t *testing.T) {
	for _, tt := range []struct {
		name string
		in   []byte
	}{
		{"deep", []byte(nested("[", "]", 255))},
		{"many objects", []byte("[" + strings.Repeat(`{"id":"x","role":"user","a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7},`, 20000) + "{}]")},
		{"one wide object", []byte(manyKeys(20000, -1))},
	} {
		t.Run(tt.name, func(t *testing.T) {
			alloc := allocated(func() {
				if err := JSON(tt.in, Options{UniqueKeys: true}); err != nil {
					t.Fatal(err)
				}
			})
			t.Logf("%d bytes: %d bytes allocated", len(tt.in), alloc)
			if limit := 12*uint64(len(tt.in)) + 64<<10; alloc > limit {
				t.Errorf("%d bytes allocated for %d bytes of input, over %d", alloc, len(tt.in), limit)
			}
		})
	}
}

func allocated(f func()) uint64 {
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	f()
	runtime.ReadMemStats(&m1)
	return m1.TotalAlloc - m0.TotalAlloc
}

func TestTOMLDepth(t *testing.T) {
	tests := []struct {
		name, in string
		max      int
		line     int // 0: accepted
	}{
		{"arrays", "a = " + nested("[", "]", 256), 0, 1},
		{"arrays at the limit", "a = " + nested("[", "]", 255) + "\n", 0, 0},
		{"inline tables", "\n\nx = " + strings.Repeat("{a = ", 300) + "1" + strings.Repeat("}", 300), 0, 3},
		{"a dotted key", "b = 1\n" + strings.Repeat("a.", 300) + "z = 1\n", 0, 2},
		{"a header", "[" + strings.Repeat("a.", 300) + "z]\n", 0, 1},
		{"an array table", "[[a.b]]\n", 3, 1},
		{"an array table at the limit", "[[a.b]]\nc = 1\n", 4, 0},
		{"keys below a header", "[a.b]\nc.d = 1\n", 3, 2},
		{"keys below a header at the limit", "[a.b]\nc.d = 1\n", 4, 0},
		{"inline tables in arrays", "x = [{a = [{b = 1}]}]\n", 4, 1},
		{"inline tables in arrays at the limit", "x = [{a = [{b = 1}]}]\n", 5, 0},
		{"not TOML", "a = [[[", 2, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := TOML([]byte(tt.in), tt.max)
			if tt.line == 0 {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %v, want an *Error", err)
			}
			if e.Line != tt.line || e.Duplicate {
				t.Errorf("got %+v (%v), want line %d", e, err, tt.line)
			}
		})
	}
}

// A TOML document holds at most TablesBase tables and one per
// TablesPerByte bytes, and ValuesBase values and one per ValuesPerByte.
func TestTOMLTables(t *testing.T) {
	var b strings.Builder
	for i := 0; b.Len() < 64<<10; i++ {
		fmt.Fprintf(&b, "k%d.a.b = 1\n", i) // two tables a line
	}
	dense := b.String()
	err := TOML([]byte(dense), 0)
	var e *Error
	if !errors.As(err, &e) || e.Tables != TablesBase+len(dense)/TablesPerByte || e.Line != e.Tables/2+1 {
		t.Fatalf("error %#v, want more than %d tables", err, TablesBase+len(dense)/TablesPerByte)
	}
	if !strings.HasPrefix(err.Error(), "more than ") {
		t.Errorf("message %q", err)
	}
	long := "x = [" + strings.Repeat("1,", 32<<10) + "1]\n"
	err = TOML([]byte(long), 0)
	if !errors.As(err, &e) || e.Values != ValuesBase+len(long)/ValuesPerByte || e.Tables != 0 || e.Line != 1 {
		t.Errorf("an array of %d numbers: %#v", 32<<10, err)
	}
	for _, src := range []string{
		strings.Repeat("[[sources]]\nid = \"x\"\nkind = \"memory\"\n", 3000),
		"paths = [" + strings.Repeat("\"src/a.go\", ", 3000) + "]\n",
		"x = [" + strings.Repeat("{a = 1, b = \"two\"}, ", 3000) + "]\n",
		"[a]\n" + strings.Repeat("b.c = 1\n", 1) + strings.Repeat("[[d.e]]\nf = 1\n", 2000),
	} {
		if err := TOML([]byte(src), 0); err != nil {
			t.Errorf("%.40q: %v", src, err)
		}
	}
}

// What is certainly too much is refused before the parser holds it: the
// parser builds a whole expression (a key of a million parts, an array of
// a million numbers) before it returns it, at a hundred bytes a node.
func TestTOMLRefusedBeforeParsing(t *testing.T) {
	for _, tt := range []struct {
		name, src string
		line      int
	}{
		{"a long dotted key", "a = 1\n" + strings.Repeat("a.", 300000) + "z = 1\n", 2},
		{"a long header", "[" + strings.Repeat("\"a\" . ", 300000) + "z]\n", 1},
		{"a long array", "# [1, 2, 3]\nx = [\n" + strings.Repeat("1,", 300000) + "1]\n", 3},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var err error
			data := []byte(tt.src)
			alloc := allocated(func() { err = TOML(data, 0) })
			var e *Error
			if !errors.As(err, &e) || e.Line != tt.line {
				t.Fatalf("error %#v, want one at line %d", err, tt.line)
			}
			if alloc > 64<<10 {
				t.Errorf("refusing %d bytes allocated %d", len(tt.src), alloc)
			}
		})
	}
	// strings, comments and numbers hold no keys and no values
	for _, src := range []string{
		"x = \"" + strings.Repeat("a.,", 3000) + "\"\n",
		"x = '" + strings.Repeat("a.,", 3000) + "'\n",
		"x = \"\"\"\n" + strings.Repeat("a.,\"\\\"", 3000) + "\"\"\"\n",
		"x = '''\n" + strings.Repeat("a.,\"", 3000) + "'''\n",
		"# " + strings.Repeat("a.,", 3000) + "\n",
		"x = [" + strings.Repeat("1.5, 1979-05-27T07:32:00.99, ", 300) + "]\n",
	} {
		if err := tomlScan([]byte(src), 256, 1000); err != nil {
			t.Errorf("%.30q: %v", src, err)
		}
	}
}

func FuzzJSON(f *testing.F) {
	for _, s := range []string{`{"a":1,"a":2}`, nested("[", "]", 300), `{"a":{"b":1,"b":2}}`, `["\"",{"x":"\\"}]`, "{\"\xff\":1}", `{"r\u006fle":1,"role":2}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		err := JSON(b, Options{MaxDepth: 8, UniqueKeys: true})
		var e *Error
		if err != nil && (!errors.As(err, &e) || e.Offset < 0 || e.Offset >= int64(len(b)) || e.Line < 1 || e.Col < 1) {
			t.Fatalf("bad error %#v", err)
		}
		if !json.Valid(b) {
			return
		}
		// a valid document is refused exactly for its nesting or for a
		// key that encoding/json reads twice in one object
		d, dup := tokens(t, b)
		if d > 8 && err == nil || d <= 8 && (err != nil) != dup {
			t.Fatalf("depth %d, duplicate %v: %v", d, dup, err)
		}
	})
}

// tokens returns the nesting of the valid JSON b and whether an object
// has a key twice, as encoding/json's tokens tell them.
func tokens(t *testing.T, b []byte) (deepest int, dup bool) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	type level struct {
		keys      map[string]bool
		expectKey bool
	}
	var stack []level
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return deepest, dup
		}
		if err != nil {
			t.Fatal(err)
		}
		top := len(stack) - 1
		if top >= 0 && stack[top].keys != nil {
			if stack[top].expectKey {
				if k, ok := tok.(string); ok {
					dup = dup || stack[top].keys[k]
					stack[top].keys[k] = true
				}
			}
			stack[top].expectKey = !stack[top].expectKey
		}
		switch tok {
		case json.Delim('['):
			stack = append(stack, level{})
		case json.Delim('{'):
			stack = append(stack, level{keys: map[string]bool{}, expectKey: true})
		case json.Delim(']'), json.Delim('}'):
			stack = stack[:len(stack)-1]
			if n := len(stack) - 1; n >= 0 && stack[n].keys != nil {
				stack[n].expectKey = true
			}
			continue
		}
		deepest = max(deepest, len(stack))
	}
}

func FuzzTOML(f *testing.F) {
	for _, s := range []string{"a = [[1]]\n", "[a.b]\nc.d = {e = [1, {f = 2}]}\n", "[[a]]\n[a.b]\n[[a]]\n",
		strings.Repeat("a.", 20) + "z = 1\n", `"a.b".'c' = """x.y,"""` + "\n", "x = [1.5, 1979-05-27T07:32:00.99]\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		err := TOML(b, 6)
		var e *Error
		if err != nil && (!errors.As(err, &e) || e.Offset < 0 || e.Offset > int64(len(b)) || e.Line < 1 || e.Col < 1) {
			t.Fatalf("bad error %#v", err)
		}
	})
}
