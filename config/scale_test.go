package config

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
)

// sourcesTOML is a ctx.toml with n [[sources]] tables, half of them files,
// with a budget per kind.
func sourcesTOML(n int) []byte {
	var b strings.Builder
	b.WriteString("agent = \"claude\"\nshared_path = false\n\n[budgets.memory]\nmax_lines = 100000\n\n")
	for i := range n {
		if i%2 == 0 {
			fmt.Fprintf(&b, "[[sources]]\nid = \"s%d\"\nkind = \"memory\"\npath = \"src/s%d.md\"\naudience = [\"claude\", \"codex\"]\n\n", i, i)
		} else {
			fmt.Fprintf(&b, "[[sources]]\nid = \"s%d\"\nkind = \"runtime\"\ntext = \"inline text %d\"\norder = %d\n\n", i, i, n-i)
		}
	}
	return []byte(b.String())
}

// work counts what decoding a file of n sources costs: its allocations,
// and the newlines the line index steps over (work that allocates nothing,
// and that grew with the square of the file when each key's line was
// counted from the start).
func work(t *testing.T, n int) (allocs float64, steps int) {
	data := sourcesTOML(n)
	allocs = testing.AllocsPerRun(1, func() {
		if _, err := Decode("ctx.toml", data); err != nil {
			t.Fatal(err)
		}
	})
	li := newLineIndex(data)
	d := &doc{}
	d.indexLines(data, li)
	if got := d.Line(fmt.Sprintf("sources[%d].id", n-1)); got != 8+6*(n-1) {
		t.Fatalf("last id on line %d, want %d", got, 8+6*(n-1))
	}
	return allocs, li.steps + len(d.lines.nodes)
}

// Ten times the sources cost at most about ten times the work.
func TestDecodeScalesLinearly(t *testing.T) {
	a1, s1 := work(t, 1000)
	a10, s10 := work(t, 10000)
	t.Logf("allocations %.0f → %.0f (×%.1f), line work %d → %d (×%.1f)", a1, a10, a10/a1, s1, s10, float64(s10)/float64(s1))
	if r := a10 / a1; r > 12 {
		t.Errorf("10× the sources: %.1f× the allocations", r)
	}
	if r := float64(s10) / float64(s1); r > 12 {
		t.Errorf("10× the sources: %.1f× the line work", r)
	}
}

func BenchmarkDecode(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		data := sourcesTOML(n)
		b.Run(fmt.Sprintf("sources=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if _, err := Decode("ctx.toml", data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// A ctx.toml nested deeper than the limit is refused at the line that
// goes too deep, before it is decoded, and so is one with more tables than
// its size can hold (each decodes to a map of a few hundred bytes).
func TestDecodeRefusesDeepFiles(t *testing.T) {
	tests := []struct{ name, src, want string }{
		{"arrays", "agent = \"claude\"\nx = " + strings.Repeat("[", 300) + strings.Repeat("]", 300) + "\n", "ctx.toml:2: nesting deeper than 256 levels"},
		{"inline tables", "\n\nx = " + strings.Repeat("{a = ", 300) + "1" + strings.Repeat("}", 300) + "\n", "ctx.toml:3: nesting deeper than 256 levels"},
		{"a dotted key", "agent = \"claude\"\n" + strings.Repeat("a.", 300) + "z = 1\n", "ctx.toml:2: nesting deeper than 256 levels"},
		{"a header", "[" + strings.Repeat("a.", 300) + "z]\n", "ctx.toml:1: nesting deeper than 256 levels"},
		{"dense tables", func() string {
			var b strings.Builder
			for i := range 2000 {
				fmt.Fprintf(&b, "k%d.a.a.a.a.a.a.a.a.z = 1\n", i)
			}
			return b.String()
		}(), "ctx.toml:495: more than 4454 tables"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Decode("ctx.toml", []byte(tt.src))
			if err == nil || !strings.HasPrefix(err.Error(), tt.want) && !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want %q", err, tt.want)
			}
		})
	}
}

// Recording the line of every key costs memory in proportion to the file
// (within 40 times its size, and 1 MiB for the tables a file may hold
// whatever its size):
// the paths of keys were strings held for every key, each as long as the
// path above it, so that a file of deep or long keys took the square of
// its size.
func TestDecodeHostileLinear(t *testing.T) {
	longKey := strings.Repeat("k", 20000)
	tests := []struct{ name, src string }{
		{"nested arrays", func() string {
			var b strings.Builder
			for i := range 10 {
				fmt.Fprintf(&b, "x%d%s = %s%s\n", i, longKey[:200], strings.Repeat("[", 250), strings.Repeat("]", 250))
			}
			return b.String()
		}()},
		{"nested inline tables", func() string {
			var b strings.Builder
			for i := range 4 {
				fmt.Fprintf(&b, "x%d = %s1%s\n", i, strings.Repeat("{a = ", 250), strings.Repeat("}", 250))
			}
			return b.String()
		}()},
		{"a long header", "[\"" + longKey + "\"]\n" + strings.Repeat("a = 1\n", 1) + func() string {
			var b strings.Builder
			for i := range 3000 {
				fmt.Fprintf(&b, "k%d = %d\n", i, i)
			}
			return b.String()
		}()},
		{"long keys in arrays", "[x]\n" + longKey + " = [" + strings.Repeat("1,", 2000) + "1]\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := []byte(tt.src)
			var err error
			bytes := allocated(func() { _, err = parseDoc("ctx.toml", data) })
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%d bytes: %d allocated (%.1f×)", len(data), bytes, float64(bytes)/float64(len(data)))
			if limit := 40*uint64(len(data)) + 1<<20; bytes > limit {
				t.Errorf("%d bytes allocated, over 40× the file and 1 MiB", bytes)
			}
		})
	}
}

// allocated returns the bytes f allocates.
func allocated(f func()) uint64 {
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	f()
	runtime.ReadMemStats(&m1)
	return m1.TotalAlloc - m0.TotalAlloc
}
