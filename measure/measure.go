// Package measure holds the size, line, token and hash rules that every ctx
// pipeline shares, so that an instruction source, an aggregated file and a
// rendered message history are counted the same way.
//
// # Sizes
//
// Bytes are raw bytes. Chars are Unicode code points (an invalid byte counts
// as one). Lines follow the manifest rule: 0 for empty text, otherwise the
// number of "\n" plus one, minus one when the text ends with "\n"; so "\n" is
// one line, "a\n\n" two and "a\r\nb\r\n" two.
//
// # Tokens
//
// Token counts come from an [Estimator]. Three are built in, chosen by
// [ParseEstimator] from their flag names (the --estimator flag and the
// estimator key of ctx.toml) and found again from the name a manifest
// records by [EstimatorNamed]:
//
//   - chars4, [CharsDiv4], the default and the original's: ceiling(code
//     points / 4), recorded as "ceiling(characters / 4), version 1";
//   - o200k, [O200kBase]: the exact count of OpenAI's o200k_base encoding
//     (GPT-4o, GPT-4.1, GPT-5, o-series), recorded as [O200kBaseName];
//   - cl100k, [Cl100kBase]: the exact count of cl100k_base (GPT-4,
//     GPT-3.5), recorded as [Cl100kBaseName].
//
// The exact ones count offline with the vocabularies embedded in the
// binary, loaded the first time a count is asked for (never at start-up).
// They encode ordinary text, as tiktoken's encode_ordinary does: text that
// looks like a special token ("<|endoftext|>") is counted as the plain text
// it is. Their counts equal OpenAI's tiktoken (checked against it on a
// mixed corpus in this package's tests).
//
// Budgets cut text at a token boundary with [TokenPrefix].
//
// # Hashes
//
// [Hash] is the lowercase hex BLAKE3-256 digest named by [HashAlgorithm].
package measure

import (
	"bytes"
	"encoding/hex"
	"unicode/utf8"

	"github.com/zeebo/blake3"
)

// HashAlgorithm names the digest that [Hash] computes, as recorded in manifests.
const HashAlgorithm = "blake3"

// Hash returns the lowercase hex BLAKE3-256 digest of b: Sum(b).String().
func Hash(b []byte) string { return Sum(b).String() }

// Digest is a BLAKE3-256 digest; comparable, so it can key a map.
type Digest [32]byte

// Sum returns the BLAKE3-256 digest of b.
func Sum(b []byte) Digest { return blake3.Sum256(b) }

// String returns the digest in lowercase hex, as [Hash] does.
func (d Digest) String() string { return hex.EncodeToString(d[:]) }

// Estimator turns text into a token count. Implementations must be pure and
// safe for concurrent use.
type Estimator interface {
	// Name identifies the estimator and its version, as written in manifests.
	Name() string
	// Tokens estimates the tokens of text, which is usually valid UTF-8.
	Tokens(text []byte) int
}

// CharsDiv4 estimates ceiling(code points / 4) tokens.
type CharsDiv4 struct{}

// Name returns "ceiling(characters / 4), version 1".
func (CharsDiv4) Name() string { return "ceiling(characters / 4), version 1" }

// Tokens returns ceiling(Chars(text) / 4).
func (CharsDiv4) Tokens(text []byte) int { return (Chars(text) + 3) / 4 }

// Prefix returns the length in bytes of the longest prefix of text that
// counts at most max tokens and ends at a token boundary: the whole text
// when it fits, else its first 4 × max characters (every fourth character
// ends a token); 0 when max <= 0.
func (CharsDiv4) Prefix(text []byte, max int) int {
	if max <= 0 {
		return 0
	}
	if (Chars(text)+3)/4 <= max {
		return len(text)
	}
	// the first 4 × max characters; an invalid byte is one, as Chars counts
	i := 0
	for range 4 * max {
		_, n := utf8.DecodeRune(text[i:])
		i += n
	}
	return i
}

// Default returns the estimator ctx uses unless told otherwise, [CharsDiv4].
func Default() Estimator { return CharsDiv4{} }

// Chars counts the Unicode code points of b.
func Chars(b []byte) int { return utf8.RuneCount(b) }

// Lines counts physical lines: 0 for empty text, else the number of "\n"
// plus one, minus one when the text ends with "\n".
func Lines(b []byte) int {
	if len(b) == 0 {
		return 0
	}
	n := 1 + bytes.Count(b, newline)
	if b[len(b)-1] == '\n' {
		n--
	}
	return n
}

var newline = []byte{'\n'}

// Sizes are the measurements ctx records for a piece of text.
type Sizes struct {
	Bytes  int `json:"bytes"`
	Chars  int `json:"chars"`
	Lines  int `json:"lines"`
	Tokens int `json:"tokens"`
}

// Measure returns the sizes of b, counting tokens with est (Default when nil).
// The characters are counted once: [CharsDiv4]'s tokens are derived from
// them rather than counted again.
func Measure(b []byte, est Estimator) Sizes {
	s := Sizes{Bytes: len(b), Chars: Chars(b), Lines: Lines(b)}
	switch est.(type) {
	case nil, CharsDiv4:
		s.Tokens = (s.Chars + 3) / 4
	default:
		s.Tokens = est.Tokens(b)
	}
	return s
}
