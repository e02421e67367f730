package measure_test

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/ctxaudit/ctx/measure"
)

// Scan gives what Chars, Lines and Hash give, also when a chunk boundary
// falls inside a rune or among invalid bytes.
func TestScanMatchesSeparatePasses(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	alphabet := []string{"a", "\n", "é", "€", "😀", "\xff", "\x80", "\xe2\x82", "\r\n", " "}
	texts := [][]byte{nil, []byte("\n"), []byte("a"), []byte("a\n\n"), []byte(strings.Repeat("é", 40000))}
	for range 200 {
		n := r.IntN(3 * 32 << 10)
		var b strings.Builder
		for b.Len() < n {
			b.WriteString(alphabet[r.IntN(len(alphabet))])
		}
		texts = append(texts, []byte(b.String()))
	}
	for _, text := range texts {
		sz, h := measure.Scan(text)
		want := measure.Sizes{Bytes: len(text), Chars: measure.Chars(text), Lines: measure.Lines(text)}
		if sz != want || h != measure.Hash(text) {
			t.Fatalf("Scan(%d bytes) = %+v %s, want %+v %s", len(text), sz, h, want, measure.Hash(text))
		}
		for _, est := range []measure.Estimator{nil, measure.CharsDiv4{}} {
			got, gh := measure.MeasureHash(text, est)
			if got != measure.Measure(text, est) || gh != h {
				t.Fatalf("MeasureHash(%d bytes) = %+v, want %+v", len(text), got, measure.Measure(text, est))
			}
		}
	}
}

func TestTokensForChars(t *testing.T) {
	if n, ok := measure.TokensForChars(measure.CharsDiv4{}, 9); !ok || n != 3 {
		t.Fatalf("chars4 of 9 chars = %d, %v", n, ok)
	}
	if _, ok := measure.TokensForChars(measure.O200kBase(), 9); ok {
		t.Fatal("o200k counts without reading the text")
	}
}
