package bpe

import (
	"fmt"
	"math/rand"
	"os"
	"runtime"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ctxaudit/ctx/internal/testlane"
)

// cost is what counting a text took, counted: no clock.
type cost struct {
	allocs, bytes uint64 // allocated by Count
	// steps is the pre-tokenizer's work: for each piece, the bytes from
	// its start to the end of what the pre-tokenizer looked at to find it
	// (each of its matchers reads that span at most once)
	steps int
	// merges is the work of merging bytes within the pieces that are not
	// tokens: the square of the length of the short ones (tiktoken's scan
	// is quadratic, under heapThreshold bytes) and n log n of the others
	// (the heap)
	merges int
}

func measureCount(e *Encoding, text string) cost {
	var c cost
	for i := 0; i < len(text); {
		j, far := e.split(text, i)
		c.steps += far - i
		if p := text[i:j]; len(p) > 1 && e.vocab.rank(p) == noRank {
			if n := len(p); n < heapThreshold {
				c.merges += n * n
			} else {
				c.merges += n * max(1, bitsLen(n))
			}
		}
		i = j
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	e.Count(text)
	runtime.ReadMemStats(&after)
	c.allocs, c.bytes = after.Mallocs-before.Mallocs, after.TotalAlloc-before.TotalAlloc
	return c
}

func bitsLen(n int) int {
	k := 0
	for ; n > 0; n >>= 1 {
		k++
	}
	return k
}

// growthTexts make texts of about n bytes that stress the exact
// tokenizer: long runs that the pre-tokenizer must read to their end,
// pieces of megabytes to merge (onePiece: the whole text, or all but a few
// bytes, is one piece), and ordinary code.
var growthTexts = []struct {
	name     string
	onePiece bool
	make     func(n int) string
}{
	{"code", false, func(n int) string {
		b, err := os.ReadFile("bpe.go")
		if err != nil {
			panic(err)
		}
		return repeatTo(string(b), n)
	}},
	{"digits", false, func(n int) string { return repeatTo("1234567890", n) }},
	{"cjk", false, func(n int) string { return repeatTo("日本語のテキスト。", n) }},
	{"invalid UTF-8", false, func(n int) string { return repeatTo("a\xffb\xfe ", n) }},
	{"spelled", false, func(n int) string {
		r := rand.New(rand.NewSource(int64(n)))
		b := make([]byte, n/3)
		r.Read(b)
		return spell(string(b))
	}},
	{"one letter", true, func(n int) string { return strings.Repeat("A", n) }},
	{"one punctuation", true, func(n int) string { return strings.Repeat("=", n) }},
	// capitals whose last modifier letter ends the piece (o200k reads the
	// whole run of capitals to find it)
	{"capitals then a modifier", true, func(n int) string { return strings.Repeat("A", n-2) + "ʰ" }},
	{"spaces then a word", true, func(n int) string { return strings.Repeat(" ", n-1) + "x" }},
	{"a line break then spaces", true, func(n int) string { return "\n" + strings.Repeat(" ", n-2) + "x" }},
	{"blank lines", true, func(n int) string { return repeatTo(" \t\r\n", n) }},
}

// repeatTo repeats s to n bytes, cut at the start of a character.
func repeatTo(s string, n int) string {
	s = strings.Repeat(s, n/len(s)+1)
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// TestCountGrowth counts texts of 1 MB and 4 MB of each kind in
// growthTexts (a quarter of that for the kinds that are one piece, whose
// merging takes a third of a second a megabyte): four times the text must
// cost about four times the allocations, the pre-tokenizer's steps and the
// merging work, and the allocations must stay within a small multiple of
// the text's size. With -short it counts a quarter of the other kinds
// alone.
func TestCountGrowth(t *testing.T) {
	testlane.Heavy(t, "counts tens of megabytes")
	// not parallel: the counts of allocations are the process's
	for _, tt := range growthTexts {
		small := 1 << 20
		if tt.onePiece {
			if testing.Short() {
				continue
			}
			small /= 4
		}
		if testing.Short() {
			small /= 4
		}
		name := tt.name
		a, b := tt.make(small), tt.make(4*small)
		for _, e := range []*Encoding{O200kBase(), Cl100kBase()} {
			e.load()
			ca, cb := measureCount(e, a), measureCount(e, b)
			what := fmt.Sprintf("%s, %s: %d → %d bytes", name, e.Name(), len(a), len(b))
			t.Logf("%s: %d → %d allocations, %d → %d bytes allocated, %d → %d steps, %d → %d merge steps",
				what, ca.allocs, cb.allocs, ca.bytes, cb.bytes, ca.steps, cb.steps, ca.merges, cb.merges)
			grows := func(quantity string, x, y, slack uint64) {
				if y > 4*x+x/4+slack {
					t.Errorf("%s: %s grows from %d to %d", what, quantity, x, y)
				}
			}
			grows("allocations", ca.allocs, cb.allocs, 16)
			grows("bytes allocated", ca.bytes, cb.bytes, 64<<10)
			grows("steps", uint64(ca.steps), uint64(cb.steps), 64)
			// n log n: a quarter more per doubling, at most
			if cb.merges > 5*ca.merges+64 {
				t.Errorf("%s: merging grows from %d to %d", what, ca.merges, cb.merges)
			}
			if perByte := float64(cb.bytes) / float64(len(b)); perByte > 48 {
				t.Errorf("%s: Count allocated %.1f bytes a byte of text", what, perByte)
			}
			if perByte := float64(cb.steps) / float64(len(b)); perByte > 4 {
				t.Errorf("%s: the pre-tokenizer made %.1f steps a byte of text", what, perByte)
			}
		}
	}
}
