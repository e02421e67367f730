package bpe

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/dlclark/regexp2/v2"

	"github.com/ctxaudit/ctx/internal/testlane"
)

// The oracle of the pre-tokenizers: tiktoken's patterns compiled with
// regexp2's interpreter, as this package split text before splitO200k and
// splitCl100k (whose counts measure's TestTokensGolden holds to tiktoken's).

var (
	oracleOnce sync.Once
	oracles    map[*Encoding]*regexp2.Regexp
)

// regexpPieces returns the pieces of text (valid UTF-8) that e's pattern
// matches, one after the other.
func regexpPieces(t testing.TB, e *Encoding, text string) []string {
	t.Helper()
	oracleOnce.Do(func() {
		oracles = map[*Encoding]*regexp2.Regexp{}
		for _, e := range []*Encoding{O200kBase(), Cl100kBase()} {
			// Compile, not MustCompile: MustCompile would return the
			// generated code registered for the same pattern by
			// github.com/tiktoken-go/tokenizer (see the package comment)
			re, err := regexp2.Compile(e.pattern, regexp2.None)
			if err != nil {
				panic(err)
			}
			oracles[e] = re
		}
	})
	re := oracles[e]
	// regexp2 reports runes: walk text alongside to slice it in bytes
	runePos, bytePos := 0, 0
	advance := func(to int) {
		for ; runePos < to; runePos++ {
			_, n := utf8.DecodeRuneInString(text[bytePos:])
			bytePos += n
		}
	}
	var out []string
	m, err := re.FindStringMatch(text)
	for ; m != nil && err == nil; m, err = re.FindNextMatch(m) {
		advance(m.RuneIndex)
		start := bytePos
		advance(m.RuneIndex + m.RuneLength)
		out = append(out, text[start:bytePos])
	}
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// splitPieces returns the pieces of text (valid UTF-8) that e.split makes.
func splitPieces(e *Encoding, text string) []string {
	e.load()
	var out []string
	e.pieces(text, func(p string, _ int) { out = append(out, p) })
	return out
}

// samePieces reports the first difference between the pieces of text made
// by the regular expression and by the pre-tokenizer.
func samePieces(t *testing.T, name string, e *Encoding, text string) bool {
	t.Helper()
	text = valid(text)
	want := regexpPieces(t, e, text)
	got := splitPieces(e, text)
	for i := range max(len(want), len(got)) {
		var w, g string
		if i < len(want) {
			w = want[i]
		}
		if i < len(got) {
			g = got[i]
		}
		if w != g {
			from := max(i-3, 0)
			t.Errorf("%s: %s: piece %d is %s, the regular expression's %s (pieces %d on: %s, want %s)",
				name, e.Name(), i, short(g), short(w), from, shorts(got[from:min(i+3, len(got))]), shorts(want[from:min(i+3, len(want))]))
			return false
		}
	}
	return true
}

// sameFar checks that what the pre-tokenizer says it looked at is all it
// needs: splitting text cut there (when that is before its end) ends the
// piece at the same place.
func sameFar(t *testing.T, name string, e *Encoding, text string) {
	t.Helper()
	text = valid(text)
	for i := 0; i < len(text); {
		j, far := e.split(text, i)
		if far < j {
			t.Errorf("%s: %s: the piece at %d ends at %d, after what was looked at (%d)", name, e.Name(), i, j, far)
			return
		}
		if far < len(text) {
			if k, _ := e.split(text[:far], i); k != j {
				t.Errorf("%s: %s: the piece at %d of %s ends at %d, at %d with the text cut at %d", name, e.Name(), i, short(text), j, k, far)
				return
			}
		}
		i = j
	}
}

// short quotes s, cut to its first 60 bytes.
func short(s string) string {
	if len(s) > 60 {
		return fmt.Sprintf("%q... (%d bytes)", s[:60], len(s))
	}
	return fmt.Sprintf("%q", s)
}

func shorts(ss []string) string {
	var b strings.Builder
	for _, s := range ss {
		b.WriteString(" " + short(s))
	}
	return "[" + strings.TrimPrefix(b.String(), " ") + "]"
}

// TestPiecesMatchRegexp compares the pre-tokenizers with the regular
// expressions on every file of measure's testdata (tiktoken's reference
// corpus and the fuzz inputs), whole and line by line, and on this
// repository's Go files and documentation.
func TestPiecesMatchRegexp(t *testing.T) {
	t.Parallel()
	root := filepath.Join("..", "..")
	var files []string
	err := filepath.WalkDir(filepath.Join(root, "measure", "testdata"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			files = append(files, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 20 {
		t.Fatalf("only %d files in measure/testdata", len(files))
	}
	ownFiles := 0
	if !testlane.Race && !testing.Short() {
		// three megabytes, through regexp2 twice: a second or two without
		// the race detector, many with it (the full lane runs it)
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				if n := d.Name(); p != root && (strings.HasPrefix(n, ".") || n == "node_modules" || n == "testdata") {
					return filepath.SkipDir
				}
				return nil
			}
			if strings.HasSuffix(p, ".go") || strings.HasSuffix(p, ".md") {
				files = append(files, p)
				ownFiles++
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if ownFiles < 100 {
			t.Fatalf("only %d Go files and documents in the repository", ownFiles)
		}
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range []*Encoding{O200kBase(), Cl100kBase()} {
			if !samePieces(t, f, e, string(data)) {
				continue
			}
			sameFar(t, f, e, string(data))
			if ownFiles > 0 && !strings.Contains(f, "testdata") {
				continue // the whole file is enough
			}
			for _, l := range strings.SplitAfter(string(data), "\n") {
				if !samePieces(t, f, e, l) {
					break
				}
			}
		}
	}
	t.Logf("%d files (%d of the repository's own)", len(files), ownFiles)
}

// splitSeeds are texts where the pre-tokenizers are easy to get wrong.
var splitSeeds = []string{
	"",
	"don't I'LL we'Re they've she'd he's it'S i'm you'll 'tis '",
	"end's", "end'", "end'l", "end'r", "'s", "x's", "X'S", "Ǆ's", "ʰ'd", "a'ſ", "A'ſx", "a'K", "a'\u212a", "'ll'",
	"1234567890 12 123 1234 ١٢٣٤٥ ½⅓¼ 12a a12 Ⅻ",
	"a\r\nb\r\n\r\nc\n\n\n  \n\t\n \r \n", "\r\n\r\n  x", "\n  \n", "  \n  x", "\n\t\tx", "\n\t\t",
	"  x", "   ", " \t x", "x  ", "x \u00a0 y", "\u3000x", "\u2028\u2029 x", "\u0085x", "\v\fx",
	"e\u0301 \u0301 x\u0301\u0302y \u0301\u0301 1\u0301 \u0301A \u0301",
	"😀😀 👨\u200d👩\u200d👧 🇫🇷 a😀b #️⃣ ✔︎",
	"한국어 텍스트입니다. 안녕하세요!", "日本語のテキスト。漢字", "中文，标点。",
	"مرحبا بالعالم، كيف حالك؟", "שלום עולם", "\u200fRTL\u200e",
	"HTTPServer XMLHttpRequest getHTTPResponse ABCʰDEF ʰAB DŽungla ǅungla",
	"a/b//c/\n/d x// y/\r\n/ ;/\n", "?!\n\n... ---\r\n", " ?x", " ? x", "\t;", " ;", "'\n",
	"<|endoftext|> <|fim_prefix|>",
	"\ufeffBOM", "\xff\xfeinvalid\x80", "a\xffb", "\xc3", "\xe2\x82",
	"\U000e0100 \U000e0001tag 𝐀𝐁𝐜 𝔸b 𐐀𐐨",
}

// spellAlphabet holds a character of each class the patterns tell apart,
// and the letters of the contractions: spell makes text of them.
var spellAlphabet = []string{
	"a", "Z", "ʰ", "中", "ǅ", "\u0301", "\u0903", "1", "٣", "½", "Ⅻ",
	" ", "\t", "\n", "\r", "\v", "\u00a0", "\u3000", "\u2028", "\u0085",
	"'", "s", "S", "ſ", "t", "r", "E", "v", "m", "l", "L", "d",
	"/", ".", "!", "😀", "\u200d", "\ufe0f", "\U000e0100", "\ufffd",
}

// spell maps each byte of s to a character of spellAlphabet, so that
// random bytes become text dense in the cases the pre-tokenizers tell
// apart.
func spell(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		b.WriteString(spellAlphabet[int(s[i])%len(spellAlphabet)])
	}
	return b.String()
}

// FuzzPiecesMatchRegexp compares the pre-tokenizers with the regular
// expressions on arbitrary text, invalid UTF-8 included (read as Count
// reads it: each invalid byte is U+FFFD), and on the same bytes spelled
// with spellAlphabet.
func FuzzPiecesMatchRegexp(f *testing.F) {
	for _, s := range splitSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := valid(s), string([]rune(s)); got != want {
			t.Fatalf("valid(%q) = %q, want %q", s, got, want)
		}
		for _, text := range []string{s, spell(s)} {
			for _, e := range []*Encoding{O200kBase(), Cl100kBase()} {
				if samePieces(t, "fuzz", e, text) {
					sameFar(t, "fuzz", e, text)
				}
			}
		}
	})
}

// TestClasses checks the table of classes, and classOf past it, against
// the unicode tables the patterns name (as regexp2 reads them), for every
// character.
func TestClasses(t *testing.T) {
	testlane.Heavy(t, "classifies all 1.1 million characters")
	t.Parallel()
	loadClasses()
	for r := rune(0); r <= unicode.MaxRune; r++ {
		is := func(tab *unicode.RangeTable) bool { return unicode.Is(tab, r) }
		letter, number, space := is(unicode.L), is(unicode.N), unicode.IsSpace(r)
		var want uint8
		set := func(c uint8, ok bool) {
			if ok {
				want |= c
			}
		}
		set(cL, letter)
		set(cUpper, is(unicode.Lu) || is(unicode.Lt) || is(unicode.Lm) || is(unicode.Lo) || is(unicode.M))
		set(cLower, is(unicode.Ll) || is(unicode.Lm) || is(unicode.Lo) || is(unicode.M))
		set(cN, number)
		set(cS, space)
		set(cP, r != '\r' && r != '\n' && !letter && !number)
		set(cO, !space && !letter && !number)
		got := classOf(r)
		if r < classRunes {
			if classTable[r] != got {
				t.Fatalf("%U: table %07b, classOf %07b", r, classTable[r], got)
			}
		}
		if got != want {
			t.Fatalf("%U: class %07b, want %07b", r, got, want)
		}
		if utf8.ValidRune(r) {
			if c, n := classAt(string(r), 0); c != want || n != utf8.RuneLen(r) {
				t.Fatalf("%U: classAt %07b, %d", r, c, n)
			}
		}
	}
}

// TestContractionFolds checks that contraction matches each letter of the
// contractions in exactly its case foldings, as (?i:...) does.
func TestContractionFolds(t *testing.T) {
	t.Parallel()
	for _, c := range []string{"s", "t", "re", "ve", "m", "ll", "d"} {
		// every spelling of c from the foldings of each of its letters
		spellings := []string{""}
		for _, r := range c {
			var next []string
			for _, prefix := range spellings {
				f := r
				for {
					next = append(next, prefix+string(f))
					if f = unicode.SimpleFold(f); f == r {
						break
					}
				}
			}
			spellings = next
		}
		for _, sp := range spellings {
			if n := contraction("'"+sp+"x", 0); n != 1+len(sp) {
				t.Errorf("contraction('%s) = %d, want %d", sp, n, 1+len(sp))
			}
		}
	}
	for _, s := range []string{"'", "'x", "'r", "'v", "'l", "'rr", "'K", "'\u212a", "s", "'ß", "'ŝ"} {
		if n := contraction(s, 0); n != 0 {
			t.Errorf("contraction(%q) = %d, want 0", s, n)
		}
	}
}
