package bpe

import (
	"sync"
	"unicode"
	"unicode/utf8"
)

// The pre-tokenizers split text into pieces exactly as tiktoken's regular
// expressions (o200kPattern, cl100kPattern) do when a backtracking engine
// (fancy-regex in tiktoken, regexp2's interpreter here before) matches them
// from the end of the previous piece: the first alternative that matches
// wins, each quantifier takes as much as it can and gives back a character
// at a time until the rest matches. Written out, the alternatives need no
// backtracking but a remembered position:
//
//   - U* L+ (o200k's first letters alternative) takes the whole run of U
//     characters; if an L character follows, the run of L characters from
//     there; otherwise it ends after the last L character within the U run
//     (Lm, Lo and M are in both classes), and fails if there is none;
//   - \s*[\r\n]+ ends after the last line break of the run of white space
//     (so "\n  \n" is one piece), and fails if the run holds none;
//   - \s+(?!\S) is the run of white space, less its last character when a
//     non-space follows (so "  x" is " ", " x"), and fails for a single
//     character that a non-space follows, which \s+ then takes.
//
// The character classes are Go's unicode tables, as regexp2 reads them:
// \p{L} and its parts, \p{M}, \p{N}, and \s (unicode.IsSpace). tiktoken
// reads the same classes from the Rust regex crate's Unicode tables, which
// may differ for characters assigned in a newer Unicode version than Go's.
// TestPiecesMatchRegexp and FuzzPiecesMatchRegexp hold the pre-tokenizers
// to the regular expressions, compiled with regexp2.

// Character classes, as bits: a character's class has every bit whose class
// holds it.
const (
	cL     uint8 = 1 << iota // \p{L}
	cUpper                   // [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}], o200k
	cLower                   // [\p{Ll}\p{Lm}\p{Lo}\p{M}], o200k
	cN                       // \p{N}
	cS                       // \s
	cP                       // [^\r\n\p{L}\p{N}], the prefix of a word
	cO                       // [^\s\p{L}\p{N}], punctuation and symbols
)

// classRunes is the number of characters, from U+0000, whose class is kept
// in a table: the first four planes, which hold every letter, mark and
// digit assigned so far but the variation selectors of plane 14.
const classRunes = 0x40000

var (
	classOnce  sync.Once
	classTable []uint8 // by character, below classRunes
	asciiClass [utf8.RuneSelf]uint8
)

// loadClasses builds the table of classes (about a millisecond).
func loadClasses() {
	classOnce.Do(func() {
		t := make([]uint8, classRunes)
		for r := range t {
			t[r] = cP | cO
		}
		each := func(tab *unicode.RangeTable, set func(c uint8) uint8) {
			for _, r := range tab.R16 {
				for c := int(r.Lo); c <= int(r.Hi) && c < classRunes; c += int(r.Stride) {
					t[c] = set(t[c])
				}
			}
			for _, r := range tab.R32 {
				for c := int(r.Lo); c <= int(r.Hi) && c < classRunes; c += int(r.Stride) {
					t[c] = set(t[c])
				}
			}
		}
		to := func(class uint8) func(uint8) uint8 { return func(uint8) uint8 { return class } }
		each(unicode.Lu, to(cL|cUpper))
		each(unicode.Lt, to(cL|cUpper))
		each(unicode.Ll, to(cL|cLower))
		each(unicode.Lm, to(cL|cUpper|cLower))
		each(unicode.Lo, to(cL|cUpper|cLower))
		each(unicode.M, func(c uint8) uint8 { return c | cUpper | cLower })
		each(unicode.N, to(cN))
		each(unicode.White_Space, to(cS|cP))
		t['\r'], t['\n'] = cS, cS
		classTable = t
		copy(asciiClass[:], t)
	})
}

// classOf returns the class of r from the unicode tables themselves (the
// characters past the table, and the tests of the table).
func classOf(r rune) uint8 {
	switch {
	case r == '\r' || r == '\n':
		return cS
	case unicode.IsSpace(r):
		return cS | cP
	case unicode.Is(unicode.Ll, r):
		return cL | cLower
	case unicode.Is(unicode.Lu, r) || unicode.Is(unicode.Lt, r):
		return cL | cUpper
	case unicode.Is(unicode.L, r):
		return cL | cUpper | cLower // Lm, Lo
	case unicode.Is(unicode.N, r):
		return cN
	case unicode.Is(unicode.M, r):
		return cP | cO | cUpper | cLower
	}
	return cP | cO
}

// classAt returns the class of the character at s[i] (valid UTF-8) and its
// length in bytes.
func classAt(s string, i int) (uint8, int) {
	if c := s[i]; c < utf8.RuneSelf {
		return asciiClass[c], 1
	}
	r, n := utf8.DecodeRuneInString(s[i:])
	if r < classRunes {
		return classTable[r], n
	}
	return classOf(r), n
}

// splitO200k returns the end of the piece of o200k_base's pre-tokenizer
// that starts at s[i], and the end of what it looked at to find it (for
// the tests of growth: all its work is within s[i:far]):
//
//	[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?
//	|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?
//	|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+
func splitO200k(s string, i int) (end, far int) {
	c, n := classAt(s, i)
	far = i + n
	// the letters alternatives, each with its prefix first, then without
	if c&cP != 0 {
		j, scanned := o200kLower(s, i+n)
		if j >= 0 {
			return j, max(j, scanned) + peek
		}
		far = scanned
	}
	if c&(cUpper|cLower) != 0 {
		j, scanned := o200kLower(s, i)
		if j >= 0 {
			return j, max(far, j, scanned) + peek
		}
		far = max(far, scanned)
	}
	if c&cP != 0 {
		if j := o200kUpper(s, i+n); j >= 0 {
			return j, max(far, j+peek)
		}
	}
	if c&cUpper != 0 {
		j := o200kUpper(s, i) // never fails: s[i] is in the class
		return j, max(far, j+peek)
	}
	if c&cN != 0 {
		j := digits(s, i+n)
		return j, max(far, j+peek)
	}
	if s[i] == ' ' {
		if j := punctuation(s, i+1, true); j >= 0 {
			return j, max(far, j+peek)
		}
	}
	if c&cO != 0 {
		j := punctuation(s, i, true)
		return j, max(far, j+peek)
	}
	j, scanned := whitespace(s, i)
	return j, max(far, scanned+peek)
}

// peek is how far past the end of what they match the matchers look at
// most, in bytes: a character, or a contraction.
const peek = 4

// o200kLower matches [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+
// and an optional contraction at s[i], returning the end or -1, and the
// end of the upper run it read.
func o200kLower(s string, i int) (end, scanned int) {
	j, lastLower := i, -1
	for j < len(s) {
		c, n := classAt(s, j)
		if c&cUpper == 0 {
			if c&cLower != 0 {
				// the lower run starts after the whole upper run
				for j += n; j < len(s); j += n {
					if c, n = classAt(s, j); c&cLower == 0 {
						break
					}
				}
				return j + contraction(s, j), j
			}
			break
		}
		j += n
		if c&cLower != 0 {
			lastLower = j
		}
	}
	if lastLower < 0 {
		return -1, j
	}
	// the upper run gives back its characters after its last lower one,
	// which is the lower run
	return lastLower + contraction(s, lastLower), j
}

// o200kUpper matches [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*
// and an optional contraction at s[i], returning the end or -1.
func o200kUpper(s string, i int) int {
	j := run(s, i, cUpper)
	if j == i {
		return -1
	}
	j = run(s, j, cLower)
	return j + contraction(s, j)
}

// splitCl100k returns the end of the piece of cl100k_base's pre-tokenizer
// that starts at s[i], and the end of what it looked at (see splitO200k):
//
//	(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}
//	| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+
func splitCl100k(s string, i int) (end, far int) {
	if n := contraction(s, i); n > 0 {
		return i + n, i + n
	}
	c, n := classAt(s, i)
	if c&cP != 0 {
		if j := run(s, i+n, cL); j > i+n {
			return j, j + peek
		}
	}
	if c&cL != 0 {
		j := run(s, i+n, cL)
		return j, j + peek
	}
	if c&cN != 0 {
		j := digits(s, i+n)
		return j, j + peek
	}
	if s[i] == ' ' {
		if j := punctuation(s, i+1, false); j >= 0 {
			return j, j + peek
		}
	}
	if c&cO != 0 {
		j := punctuation(s, i, false)
		return j, j + peek
	}
	j, scanned := whitespace(s, i)
	return j, scanned + peek
}

// run returns the end of the run of characters of class from s[i].
func run(s string, i int, class uint8) int {
	for i < len(s) {
		c, n := classAt(s, i)
		if c&class == 0 {
			break
		}
		i += n
	}
	return i
}

// digits returns the end of \p{N}{1,3} whose first digit ends at s[i].
func digits(s string, i int) int {
	for k := 1; k < 3 && i < len(s); k++ {
		c, n := classAt(s, i)
		if c&cN == 0 {
			break
		}
		i += n
	}
	return i
}

// punctuation matches [^\s\p{L}\p{N}]+ then [\r\n/]* (o200k, slash) or
// [\r\n]* (cl100k) at s[i], returning the end or -1.
func punctuation(s string, i int, slash bool) int {
	j := run(s, i, cO)
	if j == i {
		return -1
	}
	for j < len(s) && (s[j] == '\r' || s[j] == '\n' || slash && s[j] == '/') {
		j++
	}
	return j
}

// whitespace returns the end of \s*[\r\n]+|\s+(?!\S)|\s+ at s[i], which is
// white space, and the end of the run of white space.
func whitespace(s string, i int) (end, scanned int) {
	j, last, lineBreak := i, i, -1
	for j < len(s) {
		c, n := classAt(s, j)
		if c&cS == 0 {
			break
		}
		last = j
		j += n
		if s[last] == '\r' || s[last] == '\n' {
			lineBreak = j
		}
	}
	switch {
	case lineBreak >= 0: // \s*[\r\n]+ to the last line break
		return lineBreak, j
	case j == len(s) || last == i: // \s+(?!\S) at the end of text, or \s+
		return j, j
	}
	return last, j // \s+(?!\S): all but the space before the non-space
}

// contraction returns the length of (?i:'s|'t|'re|'ve|'m|'ll|'d) at s[i],
// or 0. The letters match their case foldings (unicode.SimpleFold), which
// for s include U+017F LATIN SMALL LETTER LONG S.
func contraction(s string, i int) int {
	if i+1 >= len(s) || s[i] != '\'' {
		return 0
	}
	switch s[i+1] | 0x20 { // ASCII letters, either case
	case 's', 't', 'm', 'd':
		return 2
	case 'r', 'v':
		if i+2 < len(s) && s[i+2]|0x20 == 'e' {
			return 3
		}
	case 'l':
		if i+2 < len(s) && s[i+2]|0x20 == 'l' {
			return 3
		}
	}
	if len(s) >= i+3 && s[i+1:i+3] == "ſ" {
		return 3
	}
	return 0
}
