package profile

import (
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"
)

// slowCodeRegions is findCodeRegions written as the regular expression
// /(`+)([\s\S]*?)\1/g runs: the reference for geminiCodeRegions.
func slowCodeRegions(s string) [][2]int {
	var out [][2]int
	for i := 0; i < len(s); {
		if s[i] != '`' {
			i++
			continue
		}
		run := 0
		for i+run < len(s) && s[i+run] == '`' {
			run++
		}
		end := -1
		for n := run; n >= 1 && end < 0; n-- {
			if k := strings.Index(s[i+n:], strings.Repeat("`", n)); k >= 0 {
				end = i + n + k + n
			}
		}
		if end < 0 {
			i++
			continue
		}
		out = append(out, [2]int{i, end})
		i = end
	}
	return out
}

func TestGeminiCodeRegionsIsTheRegex(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	alphabet := []string{"`", "``", "```", "a", " ", "\n", "@x.md"}
	for i := 0; i < 3000; i++ {
		var b strings.Builder
		for n := r.IntN(30); n > 0; n-- {
			b.WriteString(alphabet[r.IntN(len(alphabet))])
		}
		s := b.String()
		if got, want := geminiCodeRegions(s), slowCodeRegions(s); !reflect.DeepEqual(got, want) {
			t.Fatalf("%q: regions %v, want %v", s, got, want)
		}
	}
}

// Hostile files stay fast: a long run of backticks, many runs that never
// close.
func TestGeminiImportsLinear(t *testing.T) {
	for _, s := range []string{
		strings.Repeat("`", 400000),
		strings.Repeat("` ", 200000),
		strings.Repeat("``` `` ", 50000),
		strings.Repeat("`a@x.md ", 50000),
	} {
		start := time.Now()
		geminiImports([]byte(s))
		if took := time.Since(start); took > 2*time.Second {
			t.Errorf("%d bytes took %v", len(s), took)
		}
	}
}
