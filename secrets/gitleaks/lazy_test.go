package gitleaks

import (
	"context"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp/syntax"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode"

	"github.com/pelletier/go-toml/v2"
	"github.com/zricethezav/gitleaks/v8/config"

	"github.com/ctxaudit/ctx/internal/testlane"
)

// The lazy compilation of the rules (ruleSet) must find exactly what
// compiling them all finds, for every text. These tests compare the two
// over texts made to match each rule, encoded, long, and with composite
// rules.

// eagerDefault is the detector of all the default rules compiled at once.
var eagerDefault = sync.OnceValues(compile)

// lazyRules is one ruleSet of the default rules for the tests, which share
// its compiled rules.
var lazyRules = sync.OnceValues(func() (*ruleSet, error) {
	vc, err := defaultConfig()
	if err != nil {
		return nil, err
	}
	return newRuleSet(vc)
})

// lazyDetector is a detector of rs that holds no rule yet and never
// compiles them all: each text scanned alone by one gets a detector of
// exactly the rules it needs.
func lazyDetector(rs *ruleSet) detector {
	return gitleaks{detector: newDetectors(rs, math.MaxInt64).detector, ids: rs.ids}
}

// findings lists what d finds in text, in a fixed order (gitleaks reports
// its rules' findings in the order of a map).
func findings(t testing.TB, d detector, text string) []string {
	t.Helper()
	found, err := d.detect(context.Background(), "x.md", text)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]string, len(found))
	for i, f := range found {
		out[i] = fmt.Sprintf("%s %d-%d %v %q", f.rule, f.start, f.end, f.nameOnly, f.description)
	}
	slices.Sort(out)
	return out
}

// sample writes a random string that re matches, mostly; anchors and word
// boundaries are ignored, so that some samples do not match.
func sample(r *rand.Rand, re *syntax.Regexp, b *strings.Builder) {
	switch re.Op {
	case syntax.OpLiteral:
		for _, c := range re.Rune {
			if re.Flags&syntax.FoldCase != 0 && r.IntN(2) == 0 {
				c = unicode.SimpleFold(c)
			}
			b.WriteRune(c)
		}
	case syntax.OpCharClass:
		// a printable ASCII character of the class if it has one
		var pick []rune
		for i := 0; i+1 < len(re.Rune); i += 2 {
			for c := max(re.Rune[i], 0x21); c <= min(re.Rune[i+1], 0x7e); c++ {
				pick = append(pick, c)
			}
		}
		switch {
		case len(pick) > 0:
			b.WriteRune(pick[r.IntN(len(pick))])
		case len(re.Rune) > 0:
			b.WriteRune(re.Rune[0])
		}
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		b.WriteByte("abcdefghijklmnopqrstuvwxyz0123456789"[r.IntN(36)])
	case syntax.OpCapture:
		sample(r, re.Sub[0], b)
	case syntax.OpConcat:
		for _, s := range re.Sub {
			sample(r, s, b)
		}
	case syntax.OpAlternate:
		sample(r, re.Sub[r.IntN(len(re.Sub))], b)
	case syntax.OpStar, syntax.OpPlus, syntax.OpQuest, syntax.OpRepeat:
		lo, hi := re.Min, re.Max
		switch re.Op {
		case syntax.OpStar:
			lo, hi = 0, 3
		case syntax.OpPlus:
			lo, hi = 1, 4
		case syntax.OpQuest:
			lo, hi = 0, 1
		}
		if hi < 0 {
			hi = lo + 3
		}
		for range lo + r.IntN(hi-lo+1) {
			sample(r, re.Sub[0], b)
		}
	}
}

// ruleSamples makes n random strings for each rule's regex, mostly
// matches, by rule id.
func ruleSamples(t testing.TB, n int) map[string][]string {
	vc, err := defaultConfig()
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(10, 10))
	out := map[string][]string{}
	for _, rule := range vc.Rules {
		if rule.Regex == "" {
			continue
		}
		re, err := syntax.Parse(rule.Regex, syntax.Perl)
		if err != nil {
			t.Fatalf("%s: %v", rule.ID, err)
		}
		re = re.Simplify()
		for range n {
			var b strings.Builder
			sample(r, re, &b)
			out[rule.ID] = append(out[rule.ID], b.String())
		}
	}
	return out
}

// percent encodes every byte of s.
func percent(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		fmt.Fprintf(&b, "%%%02X", s[i])
	}
	return b.String()
}

// corpus is the texts compared: the fixture, samples of every rule alone
// and among others, encoded, its keywords with candidate secrets, long
// texts of many windows, and files of this package.
func corpus(t testing.TB) []string {
	fix, err := os.ReadFile(filepath.Join("testdata", "fake-credentials.txt"))
	if err != nil {
		t.Fatal(err)
	}
	texts := []string{string(fix), "", "\n", "# Agents\n\nRun tests with make test.\n",
		strings.Repeat(string(fix), 12), "blob: " + base64.StdEncoding.EncodeToString(fix) + "\n"}
	samples := ruleSamples(t, 4)
	ids := slices.Sorted(func(yield func(string) bool) {
		for id := range samples {
			if !yield(id) {
				return
			}
		}
	})
	var all []string
	for _, id := range ids {
		for i, s := range samples[id] {
			all = append(all, s)
			texts = append(texts, s+"\n", "config:\n  value: "+s+"\n# end\n")
			if i > 0 {
				continue
			}
			line := "key = " + s
			texts = append(texts,
				"blob: "+base64.StdEncoding.EncodeToString([]byte(line))+"\n",
				"data = '"+hex.EncodeToString([]byte(line))+"'\n",
				"url=https://example.com/?q="+percent(line)+"\n",
				"nested: "+base64.StdEncoding.EncodeToString([]byte(base64.StdEncoding.EncodeToString([]byte(line))))+"\n",
				"x = \""+base64.RawURLEncoding.EncodeToString([]byte(s))+"\" # "+hex.EncodeToString([]byte(s))+"\n")
		}
	}
	// keywords, in other cases and after characters whose lowercase is
	// longer or shorter, with candidate secrets
	vc, err := defaultConfig()
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(3, 4))
	for _, rule := range vc.Rules {
		for _, k := range rule.Keywords {
			v := make([]byte, 32)
			for i := range v {
				v[i] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"[r.IntN(62)]
			}
			texts = append(texts, k+"_token = \""+string(v)+"\"\n", "İ "+strings.ToUpper(k)+": "+string(v)+"\n")
		}
	}
	texts = append(texts, "api_\u212aey = \"Zx81kQ2mP0aL9vB3tY7wQ\"\n", "İİİİ secret=Zx81kQ2mP0aL9vB3tY7wQ\n")
	// long texts: samples among filler, across many windows
	filler := strings.Repeat("just some ordinary prose, nothing to see here\n", 8)
	for i := 0; i < len(all); i += 60 {
		var b strings.Builder
		for _, s := range all[i:min(i+60, len(all))] {
			b.WriteString(filler)
			b.WriteString("value: " + s + "\n")
		}
		texts = append(texts, b.String())
	}
	// this package's sources, long texts of code
	files, _ := filepath.Glob("*.go")
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		texts = append(texts, string(b))
	}
	return texts
}

// TestLazyAsEager: over the corpus, the lazily compiled rules find exactly
// what all the rules compiled at once find, whether each text is scanned
// by a detector of only the rules it needs, or by one that all the texts
// share, scanning in parallel, which compiles every rule after a while.
func TestLazyAsEager(t *testing.T) {
	eager, err := eagerDefault()
	if err != nil {
		t.Fatal(err)
	}
	rs, err := lazyRules()
	if err != nil {
		t.Fatal(err)
	}
	texts := corpus(t)
	if testlane.Race || testing.Short() {
		const step = 10
		// the race detector makes the regular expressions ten times
		// slower, and the edit loop wants an answer: a tenth of the texts
		var some []string
		for i := 0; i < len(texts); i += step {
			some = append(some, texts[i])
		}
		texts = some
	}
	want := make([][]string, len(texts))
	found := map[string]bool{}
	n, size := 0, 0
	for i, text := range texts {
		want[i] = findings(t, eager, text)
		for _, f := range want[i] {
			found[strings.Fields(f)[0]] = true
		}
		n += len(want[i])
		size += len(text)
		if got := findings(t, lazyDetector(rs), text); !slices.Equal(got, want[i]) {
			t.Errorf("text %d %.60q:\n lazy: %v\neager: %v", i, text, got, want[i])
		}
	}
	// shared, scanned in parallel: first lazily, each detector with the
	// rules of its own texts compiled (a bound never reached), then with a
	// bound already passed, so the first scan compiles every rule. Each
	// phase is chosen by its bound, not by the machine's speed.
	vc, err := defaultConfig()
	if err != nil {
		t.Fatal(err)
	}
	for _, phase := range []struct {
		name  string
		bound time.Duration
		all   bool
	}{{"lazy", time.Hour, false}, {"eager", -1, true}} {
		own, err := newRuleSet(vc)
		if err != nil {
			t.Fatal(err)
		}
		ds := newDetectors(own, phase.bound)
		shared := gitleaks{detector: ds.detector, ids: own.ids}
		var wg sync.WaitGroup
		for w := range 4 {
			wg.Go(func() {
				for i := w; i < len(texts); i += 4 {
					if got := findings(t, shared, texts[i]); !slices.Equal(got, want[i]) {
						t.Errorf("shared %s, text %d %.60q:\n lazy: %v\neager: %v", phase.name, i, texts[i], got, want[i])
					}
				}
			})
		}
		wg.Wait()
		// (the lazy phase may compile every rule too, when its texts need
		// them all)
		if phase.all && !ds.all.Load() {
			t.Errorf("shared %s: the detectors did not compile every rule", phase.name)
		}
	}
	t.Logf("%d texts, %d bytes, %d findings of %d rules", len(texts), size, n, len(found))
	if testlane.Race {
		return
	}
	// the corpus must exercise most rules, and decoding
	if len(found) < len(rs.ids)*2/3 {
		t.Errorf("the corpus makes only %d rules of %d find something", len(found), len(rs.ids))
	}
	decoded := 0
	for i, text := range texts {
		if strings.HasPrefix(text, "blob: ") || strings.HasPrefix(text, "nested: ") || strings.HasPrefix(text, "data = '") {
			decoded += len(want[i])
		}
	}
	if decoded < 50 {
		t.Errorf("only %d findings in encoded texts", decoded)
	}
}

// composite is the default configuration with composite rules: one that
// requires a rule whose keyword its texts lack, a chain of them, one that
// requires the rule that runs on whole texts, and allowlists that target
// rules.
func composite(t testing.TB) config.ViperConfig {
	const conf = `
[[rules]]
id = "comp-primary"
description = "composite primary"
regex = '''comp_primary=([a-z0-9]{12})'''
keywords = ["comp_primary"]
[[rules.required]]
id = "comp-part"
withinLines = 2
[[rules.required]]
id = "aws-access-token"

[[rules]]
id = "comp-part"
description = "composite part"
regex = '''part-([0-9]{8})'''
keywords = ["partkeyword"]
[[rules.required]]
id = "comp-deep"

[[rules]]
id = "comp-deep"
description = "required by a required rule"
regex = '''deep-([0-9]{6})'''
keywords = ["deepkeyword"]

[[rules]]
id = "comp-key"
description = "requires a private key"
regex = '''comp_key=([a-z]{10})'''
keywords = ["comp_key"]
[[rules.required]]
id = "private-key"

[[rules]]
id = "comp-self"
description = "chain to itself"
regex = '''selfchain:([a-z]{8})'''
keywords = ["selfchain"]
[[rules.required]]
id = "comp-self"
[[rules.required]]
id = "comp-deep"
withinColumns = 40

[[allowlists]]
targetRules = ["comp-part", "aws-access-token"]
regexes = ['''^00000000$''', '''^AKIAJPJOMKEFOIUC5LGT$''']

[[allowlists]]
description = "global"
regexes = ['''globallyallowed''']
`
	var extra config.ViperConfig
	if err := toml.Unmarshal([]byte(conf), &extra); err != nil {
		t.Fatal(err)
	}
	vc, err := defaultConfig()
	if err != nil {
		t.Fatal(err)
	}
	vc.Rules = append(vc.Rules, extra.Rules...)
	if err := mergeAllowList(&vc); err != nil {
		t.Fatal(err)
	}
	vc.Allowlists = append(vc.Allowlists, extra.Allowlists...)
	return vc
}

// TestLazyComposite: with composite rules, the rules they require are
// compiled with them even when the text lacks their keywords, and the
// findings are those of all the rules compiled at once.
func TestLazyComposite(t *testing.T) {
	cfg, err := translateAll(composite(t))
	if err != nil {
		t.Fatal(err)
	}
	eager := eagerDetector(cfg)
	rs, err := newRuleSet(composite(t))
	if err != nil {
		t.Fatal(err)
	}
	fix, err := os.ReadFile(filepath.Join("testdata", "fake-credentials.txt"))
	if err != nil {
		t.Fatal(err)
	}
	key := string(fix[strings.Index(string(fix), "-----BEGIN"):])
	texts := []string{
		"comp_primary=abcdef012345\npart-12345678 deep-123456\nAKIAJPJOMKEFOIUC5LGT\n",
		"comp_primary=abcdef012345\n\n\n\npart-12345678\nAKIAJPJOMKEFOIUC5LGT\n",
		"comp_primary=abcdef012345 part-00000000 AKIAJPJOMKEFOIUC5LGT\n",
		"comp_primary=abcdef012345 part-12345678 partkeyword deep-123456 deepkeyword AKIAJPJOMKEFOIUC5LGT\n",
		"x: " + base64.StdEncoding.EncodeToString([]byte("comp_primary=abcdef012345 part-12345678 AKIAJPJOMKEFOIUC5LGT")) + "\n",
		"comp_key=abcdefghij\n" + key,
		"comp_key=abcdefghij\n",
		"selfchain:abcdefgh deep-123456\nselfchain:qwertyui " + strings.Repeat(" ", 50) + "deep-654321\n",
		"comp_primary=globallyallowed part-12345678 AKIAJPJOMKEFOIUC5LGT\n",
		"part-12345678 partkeyword deep-111111\n",
		"comp_primary=abcdef012345 part-12345678 AKIAZ2Q7XK4MPL3NB6VW\n",
		"AKIAJPJOMKEFOIUC5LGT AKIAZ2Q7XK4MPL3NB6VW",
		"comp_primary=abcdef012345\npart-12345678\n" + strings.Repeat("filler line\n", 1000) + "AKIAZ2Q7XK4MPL3NB6VW\n",
	}
	primary := 0
	for i, text := range texts {
		want := findings(t, eager, text)
		if got := findings(t, lazyDetector(rs), text); !slices.Equal(got, want) {
			t.Errorf("text %d %.60q:\n lazy: %v\neager: %v", i, text, got, want)
		}
		for _, f := range want {
			if strings.HasPrefix(f, "comp-primary ") || strings.HasPrefix(f, "comp-self ") {
				primary++
			}
		}
	}
	if primary < 3 {
		t.Errorf("only %d findings of composite rules: the texts do not exercise them", primary)
	}
	// the allowlist that targets aws-access-token applies
	if got := findings(t, eager, "AKIAJPJOMKEFOIUC5LGT AKIAZ2Q7XK4MPL3NB6VW"); len(got) != 1 || !strings.HasPrefix(got[0], "aws-access-token 21-41 ") {
		t.Errorf("with the targeted allowlist: %v", got)
	}
	// the first text lacks the keywords of comp-part and comp-deep, which
	// comp-primary requires, and comp-part requires
	need := rs.need(texts[0], 0, nil)
	for _, id := range []string{"comp-primary", "comp-part", "comp-deep", "aws-access-token", "pkcs12-file"} {
		if !need.has(ruleIndex(rs, id)) {
			t.Errorf("%s is not needed for the first text", id)
		}
	}
	for _, id := range []string{"comp-key", "comp-self", "private-key", "github-pat"} {
		if need.has(ruleIndex(rs, id)) {
			t.Errorf("%s is needed for the first text", id)
		}
	}
}

func ruleIndex(rs *ruleSet, id string) int {
	for i, r := range rs.vc.Rules {
		if r.ID == id {
			return i
		}
	}
	panic("no rule " + id)
}

// FuzzLazyAsEager: for any text, the lazily compiled rules find exactly
// what all the rules compiled at once find.
func FuzzLazyAsEager(f *testing.F) {
	fix, err := os.ReadFile(filepath.Join("testdata", "fake-credentials.txt"))
	if err != nil {
		f.Fatal(err)
	}
	for _, line := range strings.Split(string(fix), "\n")[:14] {
		f.Add(line)
	}
	f.Add("# Agents\n\nRun tests with make test.\n")
	f.Add("blob: R0lUSFVCX1RPS0VOPWdocF9SOGZKcTJMeFcwdlQ5bU5jQjRoWWtFMXVac0RhM1BpR29RN2U=\n")
	f.Add("u=%61%70%69%5f%6b%65%79%3d%5a%78%38%31%6b%51%32%6d%50%30%61%4c%39%76%42%33%74%59%37%77")
	f.Add("İ API_\u212aEY = \"Zx81kQ2mP0aL9vB3tY7wQ\"")
	eager, err := eagerDefault()
	if err != nil {
		f.Fatal(err)
	}
	rs, err := lazyRules()
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, text string) {
		want := findings(t, eager, text)
		if got := findings(t, lazyDetector(rs), text); !slices.Equal(got, want) {
			t.Fatalf("lazy: %v\neager: %v", got, want)
		}
	})
}

// A short text without credentials compiles few of the rules: those
// without keywords, and those whose keywords it holds.
func TestShortTextCompilesFewRules(t *testing.T) {
	vc, err := defaultConfig()
	if err != nil {
		t.Fatal(err)
	}
	rs, err := newRuleSet(vc)
	if err != nil {
		t.Fatal(err)
	}
	s := &Scanner{det: func() (detector, error) { return lazyDetector(rs), nil }}
	if n := rs.compiled.Load(); n != 0 {
		t.Fatalf("%d rules compiled before any scan", n)
	}
	found, err := s.Scan(context.Background(), "AGENTS.md", "# Agents\n\nRun tests with make test.\n")
	if err != nil || len(found) > 0 {
		t.Fatalf("found %v, %v", found, err)
	}
	var compiled []string
	for i := range rs.rules {
		if rs.rules[i].rule.RuleID != "" {
			compiled = append(compiled, rs.rules[i].rule.RuleID)
		}
	}
	n := int(rs.compiled.Load())
	t.Logf("%d of %d rules compiled: %v", n, len(rs.ids), compiled)
	if n == 0 || n >= len(rs.ids)/4 {
		t.Errorf("%d of %d rules compiled for a short text", n, len(rs.ids))
	}
	// the fixture, with a credential of many kinds, compiles more
	if _, err := s.Scan(context.Background(), "x.md", fixture(t)); err != nil {
		t.Fatal(err)
	}
	if m := int(rs.compiled.Load()); m <= n+10 {
		t.Errorf("the fixture compiled %d rules more", m-n)
	}
}

// BenchmarkFirstScan is what a process that scans one short text spends
// on the rules: decoding them, and compiling those the text needs.
func BenchmarkFirstScan(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		vc, err := defaultConfig()
		if err != nil {
			b.Fatal(err)
		}
		rs, err := newRuleSet(vc)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := lazyDetector(rs).detect(context.Background(), "AGENTS.md", "# Agents\n\nRun tests with make test.\n"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCompileOneByOne compiles every default rule one by one, as
// the detectors do after eagerAfter bytes.
func BenchmarkCompileOneByOne(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		vc, err := defaultConfig()
		if err != nil {
			b.Fatal(err)
		}
		rs, err := newRuleSet(vc)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := newDetectors(rs, -1).detector("x", false); err != nil {
			b.Fatal(err)
		}
		if _, err := newDetectors(rs, -1).detector("x", true); err != nil {
			b.Fatal(err)
		}
		if int(rs.compiled.Load()) != len(rs.ids) {
			b.Fatalf("%d rules compiled", rs.compiled.Load())
		}
	}
}

// BenchmarkScan scans this package's sources (some 100 KB of code), with
// every rule compiled at once (eager), with the rules that each text needs
// (lazy), and as the default detectors do, which compile every rule after
// eagerAfter bytes; the rules are compiled before the timing.
func BenchmarkScan(b *testing.B) {
	files, _ := filepath.Glob("*.go")
	var texts []string
	for _, f := range files {
		t, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		texts = append(texts, string(t), string(t[:len(t)/50]))
	}
	texts = append(texts, fixture(b))
	eager, err := eagerDefault()
	if err != nil {
		b.Fatal(err)
	}
	rs, err := lazyRules()
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name string
		d    detector
	}{{"eager", eager}, {"lazy", lazyDetector(rs)}, {"default", gitleaks{detector: newDetectors(rs, eagerAfter).detector}}} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				for _, text := range texts {
					if _, err := c.d.detect(context.Background(), "x.go", text); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}
