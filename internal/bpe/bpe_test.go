package bpe

import (
	"math/rand"
	"reflect"
	"strings"
	"testing"

	"github.com/tiktoken-go/tokenizer"
)

// TestMergeHeapIsScan checks that the heap gives the same tokens as
// tiktoken's scan on pieces of every length, long repeats included.
func TestMergeHeapIsScan(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewSource(8))
	alphabet := []string{"a", "b", "ab", "the", " ", "\n", "1", "é", "中", "😀", "ing", "=", "-"}
	for _, e := range []*Encoding{O200kBase(), Cl100kBase()} {
		e.load()
		for i := range 300 {
			var b strings.Builder
			for range 1 + r.Intn(200) {
				b.WriteString(alphabet[r.Intn(len(alphabet))])
			}
			p := b.String()
			if i%10 == 0 {
				p = strings.Repeat(alphabet[r.Intn(len(alphabet))], 1+r.Intn(300))
			}
			var want []int
			for _, q := range e.mergeScan(p, nil) {
				want = append(want, q.start)
			}
			if got := e.mergeHeap(p); !reflect.DeepEqual(got, want) {
				t.Fatalf("%s: %q: heap %v, scan %v", e.Name(), p, got, want)
			}
			// the heap of pieces of 2 GiB and more, with int indexes
			if got := mergeHeap[int](e.vocab, p); !reflect.DeepEqual(got, want) {
				t.Fatalf("%s: %q: heap (int) %v, scan %v", e.Name(), p, got, want)
			}
		}
	}
}

// TestDecodePrefixes decodes every prefix of the ids of a text with the
// upstream tokenizer: each is the text up to the matching end offset, so
// the tokens are pieces of the text and every cut is a prefix of it.
func TestDecodePrefixes(t *testing.T) {
	t.Parallel()
	text := "func main() {\n\tx := \"héllo, 世界 😀 👨\u200d👩\u200d👧\"\r\n  \n\t\t<|endoftext|> 12345678\n}\n"
	for _, tt := range []struct {
		e   *Encoding
		enc tokenizer.Encoding
	}{{O200kBase(), tokenizer.O200kBase}, {Cl100kBase(), tokenizer.Cl100kBase}} {
		c, err := tokenizer.Get(tt.enc)
		if err != nil {
			t.Fatal(err)
		}
		c.SetErrorMode(tokenizer.ErrorModeNone)
		ids := tt.e.Encode(text)
		ends, ok := tt.e.Ends(text)
		if !ok || len(ends) != len(ids) || len(ids) != tt.e.Count(text) {
			t.Fatalf("%s: %d ids, %d ends (%v), count %d", tt.e.Name(), len(ids), len(ends), ok, tt.e.Count(text))
		}
		for j := range len(ids) + 1 {
			u := make([]uint, j)
			for i := range u {
				u[i] = uint(ids[i])
			}
			got, err := c.Decode(u)
			if err != nil {
				t.Fatal(err)
			}
			want := ""
			if j > 0 {
				want = text[:ends[j-1]]
			}
			if got != want {
				t.Fatalf("%s: the first %d ids decode to %q, want %q", tt.e.Name(), j, got, want)
			}
		}
	}
}

func TestEndsInvalidUTF8(t *testing.T) {
	t.Parallel()
	if _, ok := O200kBase().Ends("a\xffb"); ok {
		t.Error("Ends accepted text that is not UTF-8")
	}
	// each invalid byte is read as U+FFFD
	if a, b := O200kBase().Count("a\xffb"), O200kBase().Count("a\ufffdb"); a != b {
		t.Errorf("Count(a\\xffb) = %d, Count(a\\ufffdb) = %d", a, b)
	}
}
