// Package bpe splits text into the tokens of OpenAI's byte-pair encodings
// o200k_base and cl100k_base exactly as OpenAI's tiktoken does, offline.
//
// The vocabularies are those that github.com/tiktoken-go/tokenizer
// embeds, kept here as hash tables built in advance (vocab.go), which load
// in no time. Its pre-tokenizer is not used: the regular expressions it
// registers as generated code with regexp2 split a run of white space that
// holds several line breaks at the first one ("\n  \n" is "\n", "  \n"
// there, one piece in tiktoken), so that, for example, a blank line holding
// spaces after a line break counts one token too many. This package splits
// text with hand-written matchers of tiktoken's published patterns
// (split.go), which the tests hold to the patterns compiled with regexp2's
// interpreter (regexp2.Compile, which never uses generated code), and
// merges byte pairs as tiktoken's _byte_pair_merge does. Text that looks
// like a special token ("<|endoftext|>") is ordinary text, as in tiktoken's
// encode_ordinary. Package measure keeps all of this behind its Estimator
// interface.
package bpe

import (
	"fmt"
	"math"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"
)

// The pre-tokenizer patterns, as tiktoken publishes them (pat_str of
// tiktoken_ext/openai_public.py, in the form without possessive
// quantifiers that the tiktoken npm package also uses). splitO200k and
// splitCl100k match them; the tests compare the two with regexp2.
const (
	o200kPattern = `[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?` +
		`|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?` +
		`|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+`
	cl100kPattern = `(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`
)

// Encoding is one byte-pair encoding. Its vocabulary is loaded the first
// time it is used; after that it is read-only, so an Encoding is safe for
// concurrent use.
type Encoding struct {
	name    string
	pattern string
	// split returns the end of the pre-tokenizer's piece that starts at
	// text[i] (valid UTF-8, i < len(text)), and how far it looked
	split func(text string, i int) (end, far int)
	file  *string // the embedded vocabulary file
	// size is the number of ordinary tokens (ids 0 to size-1).
	size int

	once  sync.Once
	vocab *vocab
	err   error
	// loaded is set once vocab is (read by Loaded without the once)
	loaded atomic.Bool
}

var (
	o200k  = &Encoding{name: "o200k_base", pattern: o200kPattern, split: splitO200k, file: &o200kVocab, size: 199998}
	cl100k = &Encoding{name: "cl100k_base", pattern: cl100kPattern, split: splitCl100k, file: &cl100kVocab, size: 100256}
)

// O200kBase returns the o200k_base encoding (GPT-4o, GPT-4.1, GPT-5,
// o-series).
func O200kBase() *Encoding { return o200k }

// Cl100kBase returns the cl100k_base encoding (GPT-4, GPT-3.5).
func Cl100kBase() *Encoding { return cl100k }

// Name returns tiktoken's name of the encoding, such as "o200k_base".
func (e *Encoding) Name() string { return e.name }

// load reads the embedded vocabulary and builds the table of character
// classes that the pre-tokenizers share.
func (e *Encoding) load() {
	e.once.Do(func() {
		loadClasses()
		e.vocab, e.err = parseVocab(*e.file, e.size)
		if e.err != nil {
			e.err = fmt.Errorf("%s: %w", e.name, e.err)
			return
		}
		e.loaded.Store(true)
	})
	if e.err != nil {
		// the vocabularies are compiled in: this cannot happen in a build
		// that passes this package's tests
		panic("bpe: " + e.err.Error())
	}
}

// pieces calls yield with each piece of the pre-tokenizer, in order, and
// its offset in bytes. Text must be valid UTF-8.
func (e *Encoding) pieces(text string, yield func(piece string, offset int)) {
	for i := 0; i < len(text); {
		j, _ := e.split(text, i)
		yield(text[i:j], i)
		i = j
	}
}

// valid returns text with each invalid byte replaced by U+FFFD, as Go
// converts text to runes.
func valid(text string) string {
	if utf8.ValidString(text) {
		return text
	}
	var b strings.Builder
	b.Grow(len(text) + len(text)/2)
	from := 0 // text[from:i] is valid, not yet written
	for i := 0; i < len(text); {
		if text[i] < utf8.RuneSelf {
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(text[i:])
		if r == utf8.RuneError && n == 1 {
			b.WriteString(text[from:i])
			b.WriteRune(utf8.RuneError)
			from = i + 1
		}
		i += n
	}
	b.WriteString(text[from:])
	return b.String()
}

// Count returns the number of tokens of text. Text that is not valid UTF-8
// is read as Go converts it to runes: each invalid byte is U+FFFD.
func (e *Encoding) Count(text string) int {
	e.load()
	text = valid(text)
	n := 0
	for i := 0; i < len(text); {
		j, _ := e.split(text, i)
		n += e.countPiece(text[i:j])
		i = j
	}
	return n
}

// countPiece returns the number of tokens of a piece.
func (e *Encoding) countPiece(p string) int {
	if len(p) < 2 || e.vocab.rank(p) != noRank {
		return 1
	}
	if len(p) >= heapThreshold {
		return len(e.mergeHeap(p)) - 1
	}
	var buf [32]part // most pieces: no allocation
	return len(e.mergeScan(p, buf[:0])) - 1
}

// Encode returns the ids of the tokens of text (see [Encoding.Count]).
func (e *Encoding) Encode(text string) []uint32 {
	e.load()
	var ids []uint32
	e.pieces(valid(text), func(p string, _ int) {
		if id := e.vocab.rank(p); id != noRank {
			ids = append(ids, id)
			return
		}
		b := e.merge(p)
		for i := 0; i+1 < len(b); i++ {
			ids = append(ids, e.vocab.rank(p[b[i]:b[i+1]]))
		}
	})
	return ids
}

// Ends returns, for valid UTF-8 text, the byte offset at which each token
// ends, in order (the last is len(text) unless the pre-tokenizer skipped
// the end of text, which tiktoken's patterns never do); ok is false for
// text that is not valid UTF-8, whose tokens are not pieces of it.
func (e *Encoding) Ends(text string) (ends []int, ok bool) {
	if !utf8.ValidString(text) {
		return nil, false
	}
	e.load()
	e.pieces(text, func(p string, at int) {
		if e.vocab.rank(p) != noRank {
			ends = append(ends, at+len(p))
			return
		}
		for _, off := range e.merge(p)[1:] {
			ends = append(ends, at+off)
		}
	})
	return ends, true
}

// merge returns the boundaries of the tokens that byte-pair merging makes
// of piece: offsets from 0 to len(piece), one more than the tokens.
func (e *Encoding) merge(piece string) []int {
	if len(piece) < 2 {
		return []int{0, len(piece)}[:len(piece)+1]
	}
	if len(piece) < heapThreshold {
		parts := e.mergeScan(piece, make([]part, 0, len(piece)+1))
		out := make([]int, len(parts))
		for i, p := range parts {
			out[i] = p.start
		}
		return out
	}
	return e.mergeHeap(piece)
}

// heapThreshold is the piece length in bytes from which merge uses the
// O(n log n) heap instead of tiktoken's O(n²) scan; both give the same
// tokens.
const heapThreshold = 128

// part is a part of a piece being merged: where it starts, and the rank of
// merging it with the next part.
type part struct {
	start int
	rank  uint32
}

// mergeScan is tiktoken's _byte_pair_merge: repeatedly merge the adjacent
// pair whose union has the lowest rank, the leftmost on ties. It returns
// the parts left, whose starts are the tokens' boundaries (the last is
// len(piece)), appended to parts (which should be empty, with room for
// len(piece)+1 parts, to avoid allocating).
func (e *Encoding) mergeScan(piece string, parts []part) []part {
	for i := 0; i+1 < len(piece); i++ {
		parts = append(parts, part{i, e.vocab.rank(piece[i : i+2])})
	}
	parts = append(parts, part{len(piece) - 1, noRank}, part{len(piece), noRank})
	// rankAt is the rank of merging parts i and i+1 once i+1 and i+2 are merged
	rankAt := func(i int) uint32 {
		if i+3 < len(parts) {
			return e.vocab.rank(piece[parts[i].start:parts[i+3].start])
		}
		return noRank
	}
	for {
		minRank, at := uint32(noRank), -1
		for i := 0; i+1 < len(parts); i++ {
			if parts[i].rank < minRank {
				minRank, at = parts[i].rank, i
			}
		}
		if at < 0 {
			break
		}
		if at > 0 {
			parts[at-1].rank = rankAt(at - 1)
		}
		parts[at].rank = rankAt(at)
		parts = append(parts[:at+1], parts[at+2:]...)
	}
	return parts
}

// mergeHeap makes the same merges as mergeScan with a min-heap of
// candidate pairs ordered by rank, then by position, over a linked list of
// parts; a candidate whose pair has changed since it was pushed is skipped.
// It allocates about 20 bytes for each byte of piece (int32 indexes, for
// any piece shorter than 2 GiB).
func (e *Encoding) mergeHeap(piece string) []int {
	if len(piece) < math.MaxInt32 {
		return mergeHeap[int32](e.vocab, piece)
	}
	return mergeHeap[int](e.vocab, piece)
}

func mergeHeap[I int32 | int](v *vocab, piece string) []int {
	n := I(len(piece))
	next := make([]I, n+1)
	prev := make([]I, n+1)
	rank := make([]uint32, n+1) // rank of merging the part at i with the next one
	for i := range next {
		next[i], prev[i], rank[i] = I(i)+1, I(i)-1, noRank
	}
	next[n] = -1
	pairRank := func(i I) uint32 {
		j := next[i]
		if j < 0 || next[j] < 0 {
			return noRank
		}
		return v.rank(piece[i:next[j]])
	}
	h := pairHeap(make([]uint64, 0, n))
	for i := I(0); i+1 < n; i++ {
		if r := pairRank(i); r != noRank {
			rank[i] = r
			h = append(h, pairKey(r, int(i)))
		}
	}
	h.init()
	tokens := int(n)
	for len(h) > 0 {
		var top uint64
		top, h = h.pop()
		i := I(top & atMask)
		if rank[i] != uint32(top>>atBits) || next[i] < 0 {
			continue // stale: the pair at i changed after it was pushed
		}
		j := next[i]
		k := next[j]
		rank[j] = noRank
		next[i] = k
		if k >= 0 {
			prev[k] = i
		}
		tokens--
		for _, b := range [2]I{i, prev[i]} {
			if b < 0 {
				continue
			}
			rank[b] = pairRank(b)
			if rank[b] != noRank {
				h = h.push(pairKey(rank[b], int(b)))
			}
		}
	}
	out := make([]int, 0, tokens+1)
	for i := I(0); i >= 0; i = next[i] {
		out = append(out, int(i))
	}
	return out
}

// A candidate pair is a number that orders pairs by rank, then by
// position: the rank (under 1<<rankBits) above atBits bits of position.
const (
	atBits = 64 - rankBits
	atMask = 1<<atBits - 1
)

func pairKey(rank uint32, at int) uint64 { return uint64(rank)<<atBits | uint64(at) }

// pairHeap is a 4-ary min-heap of pair keys: half the levels of a binary
// heap, and the children of a node side by side in memory.
type pairHeap []uint64

func (h pairHeap) init() {
	for i := (len(h) - 2) / 4; i >= 0; i-- {
		h.down(i)
	}
}

func (h pairHeap) push(k uint64) pairHeap {
	h = append(h, k)
	for i := len(h) - 1; i > 0; {
		parent := (i - 1) / 4
		if h[parent] <= h[i] {
			break
		}
		h[i], h[parent] = h[parent], h[i]
		i = parent
	}
	return h
}

func (h pairHeap) pop() (uint64, pairHeap) {
	top := h[0]
	last := len(h) - 1
	h[0] = h[last]
	h = h[:last]
	h.down(0)
	return top, h
}

func (h pairHeap) down(i int) {
	for {
		first := 4*i + 1
		if first >= len(h) {
			return
		}
		m := first
		for c := first + 1; c < min(first+4, len(h)); c++ {
			if h[c] < h[m] {
				m = c
			}
		}
		if h[i] <= h[m] {
			return
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
}

// Loaded reports whether the vocabulary has been loaded (for tests of
// lazy loading).
func (e *Encoding) Loaded() bool { return e.loaded.Load() }
