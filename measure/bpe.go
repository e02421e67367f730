package measure

import (
	"unicode/utf8"

	"github.com/ctxaudit/ctx/internal/bpe"
)

// Names of the exact estimators, as recorded in manifests. The encoding
// (vocabulary and pre-tokenizer, as OpenAI's tiktoken publishes them) fixes
// every count; "special tokens as text" says that text such as
// "<|endoftext|>" is encoded as ordinary text (tiktoken's encode_ordinary),
// never as a special token. The version changes if ctx ever counts
// differently under the same encoding.
const (
	O200kBaseName  = "o200k_base (tiktoken BPE, special tokens as text), version 1"
	Cl100kBaseName = "cl100k_base (tiktoken BPE, special tokens as text), version 1"
)

// The exact estimators are shared values; their vocabulary is loaded the
// first time one counts, once per process, and is read-only after that, so
// counting is safe for concurrent use.
var (
	o200kBase  = &bpeEstimator{name: O200kBaseName, enc: bpe.O200kBase()}
	cl100kBase = &bpeEstimator{name: Cl100kBaseName, enc: bpe.Cl100kBase()}
)

// O200kBase returns the exact estimator of OpenAI's o200k_base encoding
// (GPT-4o, GPT-4.1, GPT-5, o-series), named [O200kBaseName]. It counts
// offline; the vocabulary is loaded on the first count. Text that is not
// valid UTF-8 is counted as if each invalid byte were U+FFFD.
func O200kBase() Estimator { return o200kBase }

// Cl100kBase returns the exact estimator of OpenAI's cl100k_base encoding
// (GPT-4, GPT-3.5), named [Cl100kBaseName]; see [O200kBase].
func Cl100kBase() Estimator { return cl100kBase }

// bpeEstimator is an exact byte-pair-encoding estimator (internal/bpe,
// whose vocabularies come from github.com/tiktoken-go/tokenizer).
type bpeEstimator struct {
	name string
	enc  *bpe.Encoding
}

// Name returns the name recorded in manifests.
func (b *bpeEstimator) Name() string { return b.name }

// Tokens returns the number of tokens of text.
func (b *bpeEstimator) Tokens(text []byte) int { return b.enc.Count(string(text)) }

// Prefix returns the length in bytes of the longest prefix of text that
// ends at a boundary between two of text's tokens (the tokenizer's own
// segmentation) and on a character boundary (a token may hold part of a
// character), and whose own count is at most max; 0 when max <= 0. Text
// that is not valid UTF-8 has no token boundaries in it (invalid bytes are
// counted as U+FFFD), so it is cut on characters alone.
//
// A prefix's own encoding may differ from text's near its end (the
// pre-tokenizer looks ahead: "\n\t\t" + "x" is "\n\t", "\tx" but "\n\t\t"
// alone is one token), so every candidate is counted again: starting at
// the first max tokens, shorter candidates are tried until one fits, then
// longer ones while they fit.
func (b *bpeEstimator) Prefix(text []byte, max int) int {
	if max <= 0 {
		return 0
	}
	s := string(text)
	toks, ok := b.enc.Ends(s)
	if !ok || len(toks) > 0 && toks[len(toks)-1] != len(s) {
		// not valid UTF-8: the tokens are not pieces of text, so cut on
		// characters alone
		return charPrefix(b, text, max)
	}
	if len(toks) <= max {
		return len(text)
	}
	// ends[j] is the byte length of the first j tokens
	ends := append([]int{0}, toks...)
	boundary := func(j int) bool { return utf8.RuneStart(s[ends[j]]) }
	fits := func(j int) bool { return b.enc.Count(s[:ends[j]]) <= max }
	best := 0
	for j := max; j > 0; j-- {
		if boundary(j) && fits(j) {
			best = j
			break
		}
	}
	for j := best + 1; j < len(toks); j++ {
		if !boundary(j) {
			continue
		}
		if !fits(j) {
			break
		}
		best = j
	}
	return ends[best]
}
