package profile

import (
	"runtime"
	"strings"
	"testing"
)

// allocated returns the bytes fn allocates on the Go heap.
func allocated(fn func()) uint64 {
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	fn()
	runtime.ReadMemStats(&m1)
	return m1.TotalAlloc - m0.TotalAlloc
}

// linearAllocs fails the test unless input(2k) allocates at most about
// twice what input(k) does in fn.
func linearAllocs(t *testing.T, name string, k int, input func(k int) string, fn func([]byte)) {
	t.Helper()
	small, large := []byte(input(k)), []byte(input(2*k))
	a1 := allocated(func() { fn(small) })
	a2 := allocated(func() { fn(large) })
	t.Logf("%s: %d → %d bytes in, %d → %d KiB allocated (×%.2f)", name, len(small), len(large), a1>>10, a2>>10, float64(a2)/float64(a1))
	if float64(a2) > 2.6*float64(a1) {
		t.Errorf("%s: twice the input allocated %.2f× the bytes (%d → %d)", name, float64(a2)/float64(a1), a1, a2)
	}
}

// hostile are memory files that Markdown parsers read in time that grows
// faster than the text, each of about k units.
var hostile = map[string]func(k int) string{
	"quotes": func(k int) string { return strings.Repeat(">", 3*k) + " @x.md\n" },
	"dashes": func(k int) string { return strings.Repeat("- ", 3*k) + "@x.md\n" },
	"links":  func(k int) string { return strings.Repeat("[a](", k) + "\n" },
	"nested": func(k int) string {
		var b strings.Builder
		for i := 0; i < k/30; i++ {
			b.WriteString(strings.Repeat("  ", i%600) + "- item @x.md\n")
		}
		return b.String()
	},
	"big":      func(k int) string { return strings.Repeat("Some prose with `code` and @docs/x.md in it.\n", k) },
	"backtick": func(k int) string { return strings.Repeat("`", 3*k) },
}

// Hostile memory files never reach the Markdown parser, and the line
// reader that reads them instead grows linearly: twice the file, about
// twice the allocations.
func TestClaudeImportsHostileLinear(t *testing.T) {
	for name, input := range hostile {
		if withinParserBounds([]byte(input(100000))) {
			t.Errorf("%s: within the parser's bounds", name)
		}
		linearAllocs(t, name, 100000, input, func(b []byte) { claudeImports(b) })
	}
}

// Within its bounds the parser grows linearly too: files at the edge of
// each bound, at two sizes.
func TestClaudeImportsParserLinear(t *testing.T) {
	edge := map[string]func(k int) string{
		"quotes":   func(k int) string { return strings.Repeat(strings.Repeat(">", parserMaxQuotes)+" q @x.md\n", k) },
		"indent":   func(k int) string { return strings.Repeat(strings.Repeat(" ", parserMaxIndent)+"- i @x.md\n", k) },
		"brackets": func(k int) string { return strings.Repeat(strings.Repeat("[a](", parserMaxBracket)+"\n", k) },
		"prose":    func(k int) string { return strings.Repeat("Some prose with `code` and @docs/x.md in it.\n", k) },
	}
	for name, input := range edge {
		k := parserMaxBytes / 600
		if b := []byte(input(2 * k)); !withinParserBounds(b) {
			t.Fatalf("%s: %d bytes outside the parser's bounds", name, len(b))
		}
		linearAllocs(t, name, k, input, func(b []byte) { claudeImports(b) })
	}
}
