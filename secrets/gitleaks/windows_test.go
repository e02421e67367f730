package gitleaks

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// TestWindows: the windows cover the text, each overlaps the next by at
// least chunkOverlap (so a secret of up to that length lies whole in one),
// they advance, and they stay near chunkSize.
func TestWindows(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	texts := []string{"", "short", strings.Repeat("x", chunkSize), strings.Repeat("x", 5*chunkSize+7),
		strings.Repeat("line of text\n", 3000)}
	for i := 0; i < 50; i++ {
		var b strings.Builder
		for b.Len() < r.IntN(20*chunkSize) {
			b.WriteString(strings.Repeat("y", r.IntN(3*chunkOverlap)))
			b.WriteByte('\n')
		}
		texts = append(texts, b.String())
	}
	for _, text := range texts {
		ws := windows(text)
		if ws[0][0] != 0 || ws[len(ws)-1][1] != len(text) {
			t.Fatalf("%d bytes: windows %v do not cover the text", len(text), ws)
		}
		for i, w := range ws {
			if w[1]-w[0] > chunkSize {
				t.Fatalf("window %v longer than %d", w, chunkSize)
			}
			if i > 0 {
				p := ws[i-1]
				if w[0] <= p[0] || p[1]-w[0] < chunkOverlap {
					t.Fatalf("windows %v and %v: overlap %d", p, w, p[1]-w[0])
				}
			}
		}
		if len(text) > 0 && len(ws) > 2+3*len(text)/chunkSize {
			t.Fatalf("%d bytes in %d windows", len(text), len(ws))
		}
	}
}

// A secret anywhere in a long text is found once, at its place, whatever
// window holds it; a PEM key longer than the overlap too.
func TestScanLongText(t *testing.T) {
	const pat = "ghp_Yk3IMJ9PvMJ11Uqz6DNLLgGxJCbUUrt93l4B" // fake
	filler := strings.Repeat("just some ordinary prose, nothing to see\n", 200)
	key := "-----BEGIN RSA PRIVATE KEY-----\n" + strings.Repeat("WQ6DD/2CGKyFkwilZ6lf1dt/wavmVq9s2uENtem4TMTfkPvuLU5WLoMdKzlrzflx\n", 80) + "-----END RSA PRIVATE KEY-----\n"
	s, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, at := range []int{0, 1000, chunkSize - 20, chunkSize + 3, 3 * chunkSize} {
		text := filler[:min(at, len(filler))] + "token: " + pat + "\n" + filler + key + filler
		found, err := s.Scan(t.Context(), "x.md", text)
		if err != nil {
			t.Fatal(err)
		}
		var rules []string
		for _, f := range found {
			rules = append(rules, f.Rule)
			if f.Rule == "github-pat" && text[f.Start:f.End] != pat {
				t.Errorf("at %d: range holds %q", at, text[f.Start:f.End])
			}
			if f.Rule == "private-key" && text[f.Start:f.End] != strings.TrimSuffix(key, "\n") {
				t.Errorf("at %d: the key's range is %d bytes", at, f.End-f.Start)
			}
		}
		if strings.Join(rules, ",") != "github-pat,private-key" {
			t.Errorf("at %d: findings %v", at, rules)
		}
	}
}
