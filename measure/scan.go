package measure

import (
	"bytes"
	"encoding/hex"
	"unicode/utf8"

	"github.com/zeebo/blake3"
)

// scanChunk is how much of a text [Scan] counts and hashes at a time: small
// enough to stay in the processor's cache between the counting and the
// hashing of a chunk.
const scanChunk = 32 << 10

// Scan measures b in one pass: its bytes, chars and lines (Sizes.Tokens is
// 0), and its [Hash]. It gives the same numbers as [Chars], [Lines] and
// [Hash], reading the text once, a cache-sized chunk at a time, instead of
// three times.
func Scan(b []byte) (Sizes, string) {
	sz := Sizes{Bytes: len(b)}
	h := blake3.New()
	for rest := b; len(rest) > 0; {
		n := min(len(rest), scanChunk)
		if n < len(rest) {
			// cut before a rune start, where utf8.RuneCount would start a
			// rune anyway (a continuation byte never starts one), so that
			// the counts of the chunks add up; with no rune start in the last
			// UTFMax bytes no valid rune crosses the cut
			for i := n; i > n-utf8.UTFMax && i > 0; i-- {
				if utf8.RuneStart(rest[i]) {
					n = i
					break
				}
			}
		}
		c := rest[:n]
		sz.Chars += utf8.RuneCount(c)
		sz.Lines += bytes.Count(c, newline)
		_, _ = h.Write(c)
		rest = rest[n:]
	}
	// Lines: the line breaks, plus one for a last line without one
	if len(b) > 0 && b[len(b)-1] != '\n' {
		sz.Lines++
	}
	var sum [32]byte
	return sz, hex.EncodeToString(h.Sum(sum[:0]))
}

// TokensForChars returns est's count of a text of chars code points
// without reading the text, when est counts code points alone
// ([CharsDiv4]); ok is false for any other estimator, which must read it.
func TokensForChars(est Estimator, chars int) (tokens int, ok bool) {
	switch est.(type) {
	case CharsDiv4, *CharsDiv4:
		return (chars + 3) / 4, true
	}
	return 0, false
}

// MeasureHash returns [Measure](b, est) and [Hash](b) from one pass over b
// ([Scan]); an estimator other than [CharsDiv4] (nil is CharsDiv4) reads
// the text once more to count its tokens.
func MeasureHash(b []byte, est Estimator) (Sizes, string) {
	if est == nil {
		est = CharsDiv4{}
	}
	sz, h := Scan(b)
	if t, ok := TokensForChars(est, sz.Chars); ok {
		sz.Tokens = t
	} else {
		sz.Tokens = est.Tokens(b)
	}
	return sz, h
}
