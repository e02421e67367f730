package config

import (
	"fmt"
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
	d := &doc{lines: map[string]int{}}
	d.indexLines(data, li)
	if got := d.Line(fmt.Sprintf("sources[%d].id", n-1)); got != 8+6*(n-1) {
		t.Fatalf("last id on line %d, want %d", got, 8+6*(n-1))
	}
	return allocs, li.steps + len(d.lines)
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
