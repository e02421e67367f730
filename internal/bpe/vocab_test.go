package bpe

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tiktoken-go/tokenizer"

	"github.com/ctxaudit/ctx/internal/goldenfile"
	"github.com/ctxaudit/ctx/internal/testlane"
)

// TestVocabularyIsUpstream checks that the embedded vocabularies are the
// ones github.com/tiktoken-go/tokenizer compiles in, token by token, and
// that every token is found at its rank. With CTX_UPDATE set (go generate
// ./internal/bpe) it writes them instead.
func TestVocabularyIsUpstream(t *testing.T) {
	testlane.Heavy(t, "decodes and looks up 300,000 tokens")
	t.Parallel()
	for _, tt := range []struct {
		e   *Encoding
		enc tokenizer.Encoding
	}{{O200kBase(), tokenizer.O200kBase}, {Cl100kBase(), tokenizer.Cl100kBase}} {
		c, err := tokenizer.Get(tt.enc)
		if err != nil {
			t.Fatal(err)
		}
		c.SetErrorMode(tokenizer.ErrorModeNone) // tokens may hold part of a character
		tokens := make([]string, tt.e.size)
		for id := range tokens {
			if tokens[id], err = c.Decode([]uint{uint(id)}); err != nil {
				t.Fatalf("%s: token %d: %v", tt.e.Name(), id, err)
			}
		}
		if _, err := c.Decode([]uint{uint(tt.e.size)}); err == nil {
			t.Errorf("%s: upstream has a token %d: the vocabulary has grown", tt.e.Name(), tt.e.size)
		}
		file, probes, err := buildVocab(tokens)
		if err != nil {
			t.Fatalf("%s: %v", tt.e.Name(), err)
		}
		t.Logf("%s: %d tokens, %d bytes, at most %d probes", tt.e.Name(), len(tokens), len(file), probes)
		if probes > 64 {
			t.Errorf("%s: a lookup takes up to %d probes: the hash clusters", tt.e.Name(), probes)
		}
		name := tt.e.Name() + ".vocab"
		if goldenfile.Update() {
			if err := os.WriteFile(name, file, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if !bytes.Equal([]byte(*tt.e.file), file) {
			t.Errorf("%s is not upstream's vocabulary: run go generate ./internal/bpe", name)
			continue
		}
		v, err := parseVocab(string(file), len(tokens))
		if err != nil {
			t.Fatal(err)
		}
		for r, tok := range tokens {
			if got := v.rank(tok); got != uint32(r) {
				t.Fatalf("%s: rank(%q) = %d, want %d", tt.e.Name(), tok, got, r)
			}
			// a byte more or less is another token or none
			for _, other := range []string{tok + "\x00", tok[:len(tok)-1], "\x00" + tok} {
				if got := v.rank(other); got != noRank && tokens[got] != other {
					t.Fatalf("%s: rank(%q) = %d, the rank of %q", tt.e.Name(), other, got, tokens[got])
				}
			}
		}
		for _, s := range []string{"", strings.Repeat("a", maxToken+1), "<|endoftext|>"} {
			if got := v.rank(s); got != noRank {
				t.Errorf("%s: rank(%q) = %d, want none", tt.e.Name(), s, got)
			}
		}
	}
}

func TestParseVocabErrors(t *testing.T) {
	t.Parallel()
	good, _, err := buildVocab([]string{"a", "b", "ab", "a long token, longer than 8 bytes"})
	if err != nil {
		t.Fatal(err)
	}
	v, err := parseVocab(string(good), 4)
	if err != nil {
		t.Fatal(err)
	}
	for s, want := range map[string]uint32{"a": 0, "ab": 2, "ba": noRank, "a long token, longer than 8 bytes": 3, "a long token, longer than 8 bytes!": noRank} {
		if got := v.rank(s); got != want {
			t.Errorf("rank(%q) = %d, want %d", s, got, want)
		}
	}
	if _, _, err := buildVocab([]string{"a", "b", "a"}); err == nil {
		t.Error("buildVocab accepted a token twice")
	}
	if _, _, err := buildVocab([]string{"a", ""}); err == nil {
		t.Error("buildVocab accepted an empty token")
	}
	for name, tt := range map[string]struct {
		file string
		size int
	}{
		"not a vocabulary": {"hello", 4},
		"wrong size":       {string(good), 3},
		"truncated":        {string(good[:len(good)-1]), 4},
		"longer":           {string(good) + "x", 4},
		"no header":        {vocabMagic, 4},
	} {
		if _, err := parseVocab(tt.file, tt.size); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

// TestLoadTime loads both vocabularies in a new process (this test binary
// run again), as ctx does on its first count, and logs how long the first
// count took and what it allocated, then how long counting this package's
// source took the first time (the pages of the table it reads come from
// the binary then) and the second. The times are not checked (the machine
// may be busy); the allocations are: loading is a table of classes of
// characters, not a map of every token.
func TestLoadTime(t *testing.T) {
	if os.Getenv("CTX_BPE_LOAD_CHILD") != "" {
		src, err := os.ReadFile("bpe.go")
		if err != nil {
			t.Fatal(err)
		}
		text := strings.Repeat(string(src), 100_000/len(src)+1)[:100_000]
		for _, e := range []*Encoding{O200kBase(), Cl100kBase()} {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			start := time.Now()
			e.Count("load")
			load := time.Since(start)
			runtime.ReadMemStats(&after)
			start = time.Now()
			e.Count(text)
			first := time.Since(start)
			start = time.Now()
			e.Count(text)
			second := time.Since(start)
			fmt.Printf("load: %s %d %d %d %d %d\n", e.Name(), load.Microseconds(), after.Mallocs-before.Mallocs,
				after.TotalAlloc-before.TotalAlloc, first.Microseconds(), second.Microseconds())
		}
		return
	}
	t.Parallel()
	cmd := exec.Command(os.Args[0], "-test.run=^TestLoadTime$", "-test.count=1")
	cmd.Env = append(os.Environ(), "CTX_BPE_LOAD_CHILD=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	n := 0
	for _, l := range strings.Split(string(out), "\n") {
		f := strings.Fields(strings.TrimPrefix(l, "load: "))
		if !strings.HasPrefix(l, "load: ") || len(f) != 6 {
			continue
		}
		n++
		var v [5]float64
		for i := range v {
			v[i], _ = strconv.ParseFloat(f[i+1], 64)
		}
		t.Logf("%s: first count %.1f ms, %.0f allocations, %.2f MB; 100 KB of code: %.1f ms the first time, %.1f ms the second",
			f[0], v[0]/1000, v[1], v[2]/1e6, v[3]/1000, v[4]/1000)
		if v[1] > 100 || v[2] > 1e6 {
			t.Errorf("%s: loading allocated %.0f times, %.0f bytes: want the table of classes alone", f[0], v[1], v[2])
		}
	}
	if n != 2 {
		t.Fatalf("the child printed %q", out)
	}
}
