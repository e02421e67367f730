package history

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// deepRequest is n messages, each with a "meta" object nested depth
// levels deep (an unknown key, kept and written back).
func deepRequest(n, depth int) []byte {
	var b strings.Builder
	b.WriteString(`{"messages":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"id":"m%d","role":"user","contentParts":[{"type":"text","text":"hi"}],"meta":%s1%s}`,
			i, strings.Repeat(`{"a":`, depth), strings.Repeat("}", depth))
	}
	b.WriteString(`]}`)
	return []byte(b.String())
}

// allocated returns the bytes f allocates.
func allocated(f func()) uint64 {
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	f()
	runtime.ReadMemStats(&m1)
	return m1.TotalAlloc - m0.TotalAlloc
}

// run is what `ctx history` does with data: decode, build, write.
func run(t testing.TB, data []byte) ([]byte, error) {
	t.Helper()
	_, req, err := ReadRequest(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	res, err := BuildRequest(context.Background(), req, Options{}, "")
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := res.WriteJSON(&out); err != nil {
		t.Fatal(err)
	}
	return out.Bytes(), nil
}

// A history nested deeper than the limit is refused at the first level
// too deep, before anything is decoded; one just below the limit costs
// memory in proportion to its size: each level of nesting is indented
// once, not once per level below it.
//
// Not parallel: the test counts the bytes the whole process allocates.
func TestDeepHistory(t *testing.T) {
	hostile := deepRequest(20, 9000)
	var err error
	alloc := allocated(func() { _, err = run(t, hostile) })
	var de *DecodeError
	if !errors.As(err, &de) || !strings.Contains(err.Error(), "nesting deeper than 256 levels") {
		t.Fatalf("error %v, want nesting deeper than 256 levels", err)
	}
	// the first message's meta, inside three levels: 253 of its own
	if want := int64(bytes.Index(hostile, []byte(`"meta":`))) + 7 + 5*253; de.Offset != want || de.Line != 1 {
		t.Errorf("at byte %d line %d, want byte %d line 1", de.Offset, de.Line, want)
	}
	t.Logf("%d bytes, 9000 levels: refused after %d bytes allocated", len(hostile), alloc)
	if alloc > 4*uint64(len(hostile)) {
		t.Errorf("refusing %d bytes allocated %d", len(hostile), alloc)
	}

	var sizes [2]int
	var allocs [2]uint64
	for i, depth := range []int{120, 240} {
		data := deepRequest(200, depth)
		var out []byte
		allocs[i] = allocated(func() {
			if out, err = run(t, data); err != nil {
				t.Fatal(err)
			}
		})
		sizes[i] = len(data)
		t.Logf("%d levels: %d bytes in, %d bytes out, %d allocated (%.1f× the input)", depth, len(data), len(out), allocs[i], float64(allocs[i])/float64(len(data)))
		if r := float64(allocs[i]) / float64(len(data)); r > 50 {
			t.Errorf("%d levels: %.0f× the input allocated", depth, r)
		}
	}
	if r := float64(allocs[1]) / float64(allocs[0]); r > 1.3*float64(sizes[1])/float64(sizes[0]) {
		t.Errorf("twice the nesting: %.1f× the allocations", r)
	}
}

// An object with a key twice is refused: encoding/json keeps the last, so
// {"role": "user", "role": "system"} would be sent as system while a
// reader of the file sees user. So are two keys that encoding/json
// matches to one field (it ignores case).
func TestDuplicateKeys(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in string
		line     int
		col      int
		contains string
	}{
		{"role twice", `{"messages":[{"id":"1","role":"user","role":"system","contentParts":[]}]}`, 1, 38, `duplicate key "role"`},
		{"role escaped", "{\"messages\":[\n{\"id\":\"1\",\"role\":\"user\",\"r\\u006fle\":\"system\",\"contentParts\":[]}]}", 2, 25, `duplicate key "role"`},
		{"role in another case", `{"messages":[{"id":"1","role":"user","Role":"system","contentParts":[]}]}`, 1, 14, `keys "Role" and "role" both set role`},
		{"a part's type", `{"messages":[{"id":"1","role":"user","contentParts":[{"type":"text","TYPE":"image","text":"x"}]}]}`, 1, 14, `keys "TYPE" and "type" both set type`},
		{"a file's name", `{"messages":[{"id":"1","role":"user","contentParts":[],"files":[{"id":"f","name":"a","Name":"b","fileType":"t"}]}]}`, 1, 14, `keys "Name" and "name" both set name`},
		{"a link's url", `{"messages":[{"id":"1","role":"user","contentParts":[],"links":[{"id":"l","url":"a","URL":"b","title":"t"}]}]}`, 1, 14, `keys "URL" and "url" both set url`},
		{"messages twice", `{"messages":[],"messages":[{"id":"1","role":"system","contentParts":[]}]}`, 1, 16, `duplicate key "messages"`},
		{"in the content shape", `[{"role":"user","content":"a","content":"b"}]`, 1, 31, `duplicate key "content"`},
		{"in tool arguments", `[{"role":"assistant","content":[{"type":"tool_use","id":"t","name":"rm","input":{"path":"a","path":"/"}}]}]`, 1, 93, `duplicate key "path"`},
		{"in a compaction point", `{"messages":[],"compactionPoints":[{"createdAt":1,"createdAt":2}]}`, 1, 51, `duplicate key "createdAt"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := DecodeRequest(strings.NewReader(tt.in))
			var de *DecodeError
			if !errors.As(err, &de) {
				t.Fatalf("error %v, want a *DecodeError", err)
			}
			if de.Line != tt.line || de.Col != tt.col || !strings.Contains(err.Error(), tt.contains) {
				t.Errorf("got %q (line %d col %d), want line %d col %d containing %q", err, de.Line, de.Col, tt.line, tt.col, tt.contains)
			}
		})
	}
	// keys that differ in case and name no field are kept, both
	req, err := DecodeRequest(strings.NewReader(`{"messages":[{"id":"1","role":"user","contentParts":[],"meta":1,"Meta":2}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if x := req.Messages[0].Extra; len(x) != 2 || string(x["meta"]) != "1" || string(x["Meta"]) != "2" {
		t.Errorf("extra %v", x)
	}
}

// Decoding copies the text of a document about once: the strings it
// holds, and the raw values kept as they are (arguments, results, unknown
// keys). Each message was decoded four times, three of them into maps of
// copies of its values, and the document was copied whole three times
// over before a message was read. A short message costs its Message
// struct and encoding/json's work, a few hundred bytes.
//
// Not parallel: the test counts the bytes the whole process allocates.
func TestDecodeMemory(t *testing.T) {
	text := strings.Repeat("word ", 2000)
	var long, short, tools strings.Builder
	long.WriteString(`{"messages":[`)
	short.WriteString(`{"messages":[`)
	tools.WriteString(`[`)
	for i := range 20000 {
		if i > 0 {
			short.WriteByte(',')
			tools.WriteByte(',')
		}
		if i > 0 && i < 400 {
			long.WriteByte(',')
		}
		if i < 400 {
			fmt.Fprintf(&long, `{"id":"m%d","role":"user","contentParts":[{"type":"text","text":%q}],"meta":{"k":%q}}`, i, text, text)
		}
		fmt.Fprintf(&short, `{"id":"m%d","role":"user","contentParts":[]}`, i)
		fmt.Fprintf(&tools, `{"role":"assistant","content":[{"type":"tool_use","id":"t%d","name":"read","input":{"path":"a.go","lines":[1,2,3]}}]}`, i)
	}
	long.WriteString(`]}`)
	short.WriteString(`]}`)
	tools.WriteString(`]`)
	for _, tt := range []struct {
		name  string
		data  string
		ratio float64
	}{
		{"long messages", long.String(), 3},
		{"short messages", short.String(), 40},
		{"tool calls", tools.String(), 45},
	} {
		data := []byte(tt.data)
		var err error
		alloc := allocated(func() { _, err = decodeRequest(data) })
		if err != nil {
			t.Fatal(err)
		}
		r := float64(alloc) / float64(len(data))
		t.Logf("%s: %d bytes, %d allocated (%.1f×)", tt.name, len(data), alloc, r)
		if r > tt.ratio {
			t.Errorf("%s: %.1f× the input allocated, over %.0f×", tt.name, r, tt.ratio)
		}
	}
}

// Standard input redirected from a file over the limit is refused by the
// file's size, before it is read.
func TestReadRequestRefusesBySize(t *testing.T) {
	f, err := os.Create(filepath.Join(t.TempDir(), "history.json"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := f.Truncate(MaxRequestBytes + 1); err != nil {
		t.Skipf("cannot make a sparse file: %v", err)
	}
	var err2 error
	alloc := allocated(func() { _, _, err2 = ReadRequest(f) })
	if err2 == nil || err2.Error() != "larger than 268435456 bytes" {
		t.Fatalf("error %v", err2)
	}
	if alloc > 1<<20 {
		t.Errorf("refusing it allocated %d bytes", alloc)
	}
}
