package profile

import (
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
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

// Hostile files stay linear: a long run of backticks, many runs that never
// close. Twice the file takes about twice the steps, and twice the
// allocations.
func TestGeminiImportsLinear(t *testing.T) {
	for name, input := range map[string]func(k int) string{
		"one run":  func(k int) string { return strings.Repeat("`", 4*k) },
		"singles":  func(k int) string { return strings.Repeat("` ", 2*k) },
		"mixed":    func(k int) string { return strings.Repeat("``` `` ", k/2) },
		"unclosed": func(k int) string { return strings.Repeat("`a@x.md ", k/2) },
		"ascending": func(k int) string {
			var b strings.Builder
			for i := 1; b.Len() < 4*k; i++ {
				b.WriteString(strings.Repeat("`", i%500+1) + " x ")
			}
			return b.String()
		},
	} {
		_, s1 := geminiCodeRegionsSteps(input(50000))
		_, s2 := geminiCodeRegionsSteps(input(100000))
		t.Logf("%s: steps %d → %d (×%.2f)", name, s1, s2, float64(s2)/float64(s1))
		if float64(s2) > 2.6*float64(s1) {
			t.Errorf("%s: twice the input took %.2f× the steps (%d → %d)", name, float64(s2)/float64(s1), s1, s2)
		}
		linearAllocs(t, name, 50000, input, func(b []byte) { geminiImports(b) })
	}
}
