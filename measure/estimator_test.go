package measure

import (
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"
)

func TestParseEstimator(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		flag, name string
	}{
		{"chars4", "ceiling(characters / 4), version 1"},
		{"o200k", O200kBaseName},
		{"cl100k", Cl100kBaseName},
	} {
		est, err := ParseEstimator(tt.flag)
		if err != nil {
			t.Fatalf("ParseEstimator(%q): %v", tt.flag, err)
		}
		if est.Name() != tt.name {
			t.Errorf("ParseEstimator(%q).Name() = %q, want %q", tt.flag, est.Name(), tt.name)
		}
		back, err := EstimatorNamed(tt.name)
		if err != nil || back != est {
			t.Errorf("EstimatorNamed(%q) = %v, %v; want the estimator of %s", tt.name, back, err, tt.flag)
		}
	}
	if got := strings.Join(EstimatorNames(), ","); got != "chars4,o200k,cl100k" {
		t.Errorf("EstimatorNames() = %s", got)
	}
	// the encodings' own names are aliases
	for alias, flag := range map[string]string{"o200k_base": "o200k", "cl100k_base": "cl100k"} {
		a, err := ParseEstimator(alias)
		b, _ := ParseEstimator(flag)
		if err != nil || a != b {
			t.Errorf("ParseEstimator(%q) = %v, %v; want the estimator of %s", alias, a, err, flag)
		}
	}
	for _, bad := range []string{"", "o200k-base", "CHARS4", "gpt-4o"} {
		_, err := ParseEstimator(bad)
		want := fmt.Sprintf("unknown estimator %q (known: chars4, o200k, cl100k)", bad)
		if err == nil || err.Error() != want {
			t.Errorf("ParseEstimator(%q) error = %v, want %s", bad, err, want)
		}
	}
	_, err := EstimatorNamed("words / 0.75")
	if err == nil || !strings.Contains(err.Error(), `unknown estimator "words / 0.75" (known: "ceiling(characters / 4), version 1" (chars4), "o200k_base`) {
		t.Errorf("EstimatorNamed(unknown) error = %v", err)
	}
}

// TestLazyVocabulary checks, in a fresh process, that choosing an exact
// estimator, naming it and finding it from a manifest name load no
// vocabulary: only counting does.
func TestLazyVocabulary(t *testing.T) {
	if os.Getenv("CTX_MEASURE_LAZY_CHILD") != "" {
		for _, f := range EstimatorNames() {
			est, _ := ParseEstimator(f)
			if _, err := EstimatorNamed(est.Name()); err != nil {
				t.Fatal(err)
			}
		}
		if o200kBase.enc.Loaded() || cl100kBase.enc.Loaded() {
			t.Fatal("a vocabulary was loaded before the first count")
		}
		O200kBase().Tokens([]byte("x"))
		if !o200kBase.enc.Loaded() || cl100kBase.enc.Loaded() {
			t.Fatal("counting with o200k must load o200k_base, and only it")
		}
		return
	}
	t.Parallel()
	cmd := exec.Command(os.Args[0], "-test.run=^TestLazyVocabulary$")
	cmd.Env = append(os.Environ(), "CTX_MEASURE_LAZY_CHILD=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
}

// TestConcurrentFirstUse counts with every estimator from many goroutines
// at once (run with -race): the first count loads the vocabulary once.
func TestConcurrentFirstUse(t *testing.T) {
	t.Parallel()
	text := []byte("func main() {\n\tfmt.Println(\"héllo, 世界 😀\")\n}\n")
	for _, f := range EstimatorNames() {
		est, _ := ParseEstimator(f)
		want := est.Tokens(text)
		var wg sync.WaitGroup
		for range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if got := est.Tokens(text); got != want {
					t.Errorf("%s: concurrent count %d, want %d", f, got, want)
				}
				TokenPrefix(est, text, 5)
			}()
		}
		wg.Wait()
	}
}

func TestExactCounts(t *testing.T) {
	t.Parallel()
	// counts from tiktoken (encode_ordinary); the corpus comparison is in
	// reference_test.go
	for _, tt := range []struct {
		text          string
		o200k, cl100k int
	}{
		{"", 0, 0},
		{"Hello, world! 😀 done", 6, 6},
		{"中文字符", 2, 3},
		{"<|endoftext|>hi", 8, 8},
		{"x  \n  \ny", 3, 3},
	} {
		if got := O200kBase().Tokens([]byte(tt.text)); got != tt.o200k {
			t.Errorf("o200k %q = %d, want %d", tt.text, got, tt.o200k)
		}
		if got := Cl100kBase().Tokens([]byte(tt.text)); got != tt.cl100k {
			t.Errorf("cl100k %q = %d, want %d", tt.text, got, tt.cl100k)
		}
	}
}

// TestTokenPrefixCuts lists exact cut points: the prefix kept for each
// limit.
func TestTokenPrefixCuts(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		est  Estimator
		text string
		want []string // want[max] is the prefix kept under max tokens
	}{
		{CharsDiv4{}, "abcdefghij", []string{"", "abcd", "abcdefgh", "abcdefghij"}},
		{CharsDiv4{}, "😀é中xyz\n", []string{"", "😀é中x", "😀é中xyz\n"}},
		// tokens "Hello" "," " world" "!" " 😀" " done"
		{O200kBase(), "Hello, world! 😀 done", []string{"", "Hello", "Hello,", "Hello, world", "Hello, world!", "Hello, world! 😀", "Hello, world! 😀 done"}},
		// o200k: "中文" "字符"; cl100k: "中" "文" "字符"
		{O200kBase(), "中文字符", []string{"", "中文", "中文字符"}},
		{Cl100kBase(), "中文字符", []string{"", "中", "中文", "中文字符"}},
		// "\n\t" "\tb" in text, but "a\n\t" alone is "a" "\n\t": 2 tokens
		{O200kBase(), "a\n\t\tb", []string{"", "a", "a\n", "a\n\t", "a\n\t\tb"}},
		// a token may hold part of a character: cut only between characters
		{O200kBase(), "👨\u200d👩\u200d👧 family", []string{"", "", "👨", "👨\u200d", "👨\u200d", "👨\u200d👩", "👨\u200d👩\u200d", "👨\u200d👩\u200d", "👨\u200d👩\u200d👧", "👨\u200d👩\u200d👧 family"}},
		{Cl100kBase(), "👨\u200d👩 x", []string{"", "", "", "👨", "👨", "👨\u200d", "👨\u200d", "👨\u200d", "👨\u200d👩", "👨\u200d👩 x"}},
		// special-looking text is ordinary text
		{Cl100kBase(), "<|endoftext|>hi", []string{"", "<", "<|", "<|endo", "<|endoft", "<|endoftext", "<|endoftext|", "<|endoftext|>", "<|endoftext|>hi"}},
		{O200kBase(), "x  \n  \ny", []string{"", "x", "x  \n  \n", "x  \n  \ny"}},
	} {
		for max, want := range tt.want {
			if got := tt.text[:TokenPrefix(tt.est, []byte(tt.text), max)]; got != want {
				t.Errorf("%s: TokenPrefix(%q, %d) keeps %q, want %q", tt.est.Name(), tt.text, max, got, want)
			}
		}
		if n := TokenPrefix(tt.est, []byte(tt.text), len(tt.want)+5); n != len(tt.text) {
			t.Errorf("%s: TokenPrefix(%q, more than enough) = %d, want the whole text", tt.est.Name(), tt.text, n)
		}
		if n := TokenPrefix(tt.est, []byte(tt.text), -1); n != 0 {
			t.Errorf("%s: TokenPrefix(%q, -1) = %d, want 0", tt.est.Name(), tt.text, n)
		}
	}
}

// words counts space-separated words: an estimator that is not a Prefixer.
type words struct{}

func (words) Name() string { return "words" }
func (words) Tokens(b []byte) int {
	return len(strings.Fields(string(b)))
}

func TestTokenPrefixOtherEstimators(t *testing.T) {
	t.Parallel()
	text := []byte("one two  three four")
	for max, want := range []string{"", "one ", "one two  ", "one two  three ", "one two  three four"} {
		if got := string(text[:TokenPrefix(words{}, text, max)]); got != want {
			t.Errorf("TokenPrefix(words, %d) keeps %q, want %q", max, got, want)
		}
	}
	if got := TokenPrefix(nil, []byte("abcdefgh"), 1); got != 4 {
		t.Errorf("TokenPrefix(nil, 8 chars, 1) = %d, want 4 (chars4)", got)
	}
}

// tokenEnds returns the token boundaries of text under est (0 and the end
// included), for the properties below.
func tokenEnds(est Estimator, text []byte) map[int]bool {
	out := map[int]bool{0: true, len(text): true}
	switch e := est.(type) {
	case *bpeEstimator:
		ends, _ := e.enc.Ends(string(text))
		for _, x := range ends {
			out[x] = true
		}
	case CharsDiv4:
		n := 0
		for i := range string(text) {
			if n%4 == 0 {
				out[i] = true
			}
			n++
		}
	}
	return out
}

// checkPrefix checks the properties of a cut: a prefix that fits, ends on
// a character and a token boundary, keeps the whole text when it fits, and
// cannot be extended to the next such boundary.
func checkPrefix(t *testing.T, est Estimator, text []byte, max int) {
	t.Helper()
	n := TokenPrefix(est, text, max)
	if n < 0 || n > len(text) {
		t.Fatalf("%s: TokenPrefix(%q, %d) = %d, out of range", est.Name(), text, max, n)
	}
	p := text[:n]
	if got := est.Tokens(p); got > max && n > 0 {
		t.Fatalf("%s: TokenPrefix(%q, %d) keeps %q, %d tokens: over the limit", est.Name(), text, max, p, got)
	}
	// character boundaries as Chars counts them: an invalid byte is one
	chars := map[int]bool{len(text): true}
	for i := range string(text) {
		chars[i] = true
	}
	if !chars[n] {
		t.Fatalf("%s: TokenPrefix(%q, %d) = %d splits a character", est.Name(), text, max, n)
	}
	ends := tokenEnds(est, text)
	if _, isBPE := est.(*bpeEstimator); isBPE && !utf8.Valid(text) {
		// no token boundaries: invalid bytes are counted as U+FFFD, so the
		// cut is on characters alone
		ends = chars
	}
	if !ends[n] {
		t.Fatalf("%s: TokenPrefix(%q, %d) = %d is not a token boundary", est.Name(), text, max, n)
	}
	whole := est.Tokens(text) <= max
	if whole != (n == len(text)) {
		t.Fatalf("%s: TokenPrefix(%q, %d) = %d of %d, but the text counts %d", est.Name(), text, max, n, len(text), est.Tokens(text))
	}
	// the next boundary that is also a character boundary does not fit
	for j := n + 1; j < len(text); j++ {
		if ends[j] && chars[j] {
			if est.Tokens(text[:j]) <= max {
				t.Fatalf("%s: TokenPrefix(%q, %d) = %d, but %q (%d bytes) fits too", est.Name(), text, max, n, text[:j], j)
			}
			break
		}
	}
}

var pieces = []string{" ", "  ", "\t", "\n", "\r\n", "\n\n", "a", "Hello", "WORLD", "'s", "42", "12345", ".", "!?", "<|endoftext|>",
	"é", "e\u0301", "中", "文字", "カタ", "😀", "👍🏽", "👨\u200d👩\u200d👧", "🇫🇷", "\u00a0", "\u3000", "func", "()", "{\n\t", "    ", "x\xff"}

// TestTokenPrefixProperties cuts random texts at random limits with every
// estimator: a budget is never exceeded.
func TestTokenPrefixProperties(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewSource(8))
	for _, f := range EstimatorNames() {
		est, _ := ParseEstimator(f)
		for range 400 {
			var b strings.Builder
			for range r.Intn(30) {
				b.WriteString(pieces[r.Intn(len(pieces))])
			}
			text := []byte(b.String())
			checkPrefix(t, est, text, r.Intn(est.Tokens(text)+3))
		}
	}
}

func FuzzTokenPrefix(f *testing.F) {
	f.Add("Hello, world! 😀 done", 3)
	f.Add("a\n\t\tb", 3)
	f.Add("👨\u200d👩\u200d👧 family", 4)
	f.Add("x  \n  \ny <|endoftext|>", 2)
	f.Add("\xff\xfe invalid", 2)
	f.Fuzz(func(t *testing.T, s string, max int) {
		if max < 0 || max > 1<<20 {
			return
		}
		for _, name := range EstimatorNames() {
			est, _ := ParseEstimator(name)
			checkPrefix(t, est, []byte(s), max)
		}
	})
}
