package gitleaks

import (
	"context"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/spf13/viper"
	"github.com/zricethezav/gitleaks/v8/config"
	"github.com/zricethezav/gitleaks/v8/detect"
)

// TestDecodeAsViper checks that go-toml decodes gitleaks' default
// configuration as gitleaks' own viper does (field names matched without
// case, the global allowlist squashed into its embedded struct), so that
// the rules compiled are gitleaks' own.
func TestDecodeAsViper(t *testing.T) {
	v := viper.New()
	v.SetConfigType("toml")
	if err := v.ReadConfig(strings.NewReader(rulesConfig())); err != nil {
		t.Fatal(err)
	}
	var want config.ViperConfig
	if err := v.Unmarshal(&want); err != nil {
		t.Fatal(err)
	}
	got, err := defaultConfig()
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Rules) < 200 {
		t.Fatalf("decoded %d rules", len(got.Rules))
	}
	if !reflect.DeepEqual(got, want) {
		for i := range min(len(got.Rules), len(want.Rules)) {
			if !reflect.DeepEqual(got.Rules[i], want.Rules[i]) {
				t.Errorf("rule %d:\n go-toml: %+v\n   viper: %+v", i, got.Rules[i], want.Rules[i])
			}
		}
		t.Fatalf("the configurations differ")
	}
}

// compileConfig decodes and translates all of gitleaks' default rules at
// once, as ctx did before it compiled them lazily: the eager path that the
// lazy one is compared with.
func compileConfig() (config.Config, error) {
	vc, err := defaultConfig()
	if err != nil {
		return config.Config{}, err
	}
	return translateAll(vc)
}

// translateAll translates every rule of vc, stop words held out.
func translateAll(vc config.ViperConfig) (config.Config, error) {
	held := holdStopWords(&vc)
	cfg, err := vc.Translate()
	if err != nil {
		return config.Config{}, err
	}
	if err := held.restore(&cfg); err != nil {
		return config.Config{}, err
	}
	return cfg, nil
}

// compile compiles gitleaks' default rules into the two detectors, all of
// them at once.
func compile() (detector, error) {
	cfg, err := compileConfig()
	if err != nil {
		return nil, err
	}
	return eagerDetector(cfg), nil
}

// eagerDetector is the detector of all the rules of cfg.
func eagerDetector(cfg config.Config) detector {
	chunked := newDetector(cfg, func(id string) bool { return id != wideRule })
	wide := newDetector(cfg, func(id string) bool { return id == wideRule })
	return gitleaks{detector: func(_ string, w bool) (*detect.Detector, error) {
		if w {
			return wide, nil
		}
		return chunked, nil
	}, ids: slices.Sorted(maps.Keys(cfg.Rules))}
}

// BenchmarkCompile compiles all the default rules, as the first scan of a
// process did before they were compiled lazily.
func BenchmarkCompile(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := compile(); err != nil {
			b.Fatal(err)
		}
	}
}

// gitleaksDetector compiles the default rules exactly as gitleaks does,
// stop word tries and all.
func gitleaksDetector(t *testing.T) *detect.Detector {
	t.Helper()
	vc, err := defaultConfig()
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := vc.Translate()
	if err != nil {
		t.Fatal(err)
	}
	d := detect.NewDetector(cfg)
	d.MaxDecodeDepth = maxDecodeDepth
	return d
}

// The rules keep every stop word of gitleaks' compilation, and find what
// gitleaks finds: candidates of generic-api-key with and without a stop
// word, and the fixture of every kind of credential.
func TestStopWordsKept(t *testing.T) {
	want := gitleaksDetector(t)
	cfg, err := compileConfig()
	if err != nil {
		t.Fatal(err)
	}
	got := newDetector(cfg, func(string) bool { return true })
	words := func(a *config.Allowlist) []string {
		w := append([]string{}, a.StopWords...)
		sort.Strings(w)
		return w
	}
	stop := 0
	for id, wr := range want.Config.Rules {
		gr := got.Config.Rules[id]
		if len(gr.Allowlists) != len(wr.Allowlists) {
			t.Fatalf("%s: %d allowlists, want %d", id, len(gr.Allowlists), len(wr.Allowlists))
		}
		for i := range wr.Allowlists {
			stop += len(wr.Allowlists[i].StopWords)
			if g, w := words(gr.Allowlists[i]), words(wr.Allowlists[i]); !reflect.DeepEqual(g, w) {
				t.Errorf("%s allowlist %d: %d stop words, want %d", id, i, len(g), len(w))
			}
		}
	}
	if stop < 1000 {
		t.Errorf("only %d stop words in the rules", stop)
	}
	texts := []string{fixture(t)}
	for _, v := range []string{"Zx81kQ2mP0aL9vB3tY7w", "adminZx81kQ2mP0aL9vB3", "Zx81kQ2mP0-Agent-aL9vB3", "q9W2e8R4t6Y1u3I5o7P0"} {
		texts = append(texts, "api_key = \""+v+"\"\n", "config:\n  auth_token: "+v+"\n")
	}
	type hit struct {
		rule, secret string
		line, col    int
	}
	hits := func(d *detect.Detector, text string) []hit {
		var out []hit
		//lint:ignore SA1019 DetectContext takes this type until gitleaks v9
		for _, f := range d.DetectContext(context.Background(), detect.Fragment{Raw: text, FilePath: "x.md"}) {
			out = append(out, hit{f.RuleID, f.Secret, f.StartLine, f.StartColumn})
		}
		sort.Slice(out, func(i, j int) bool { return fmt.Sprint(out[i]) < fmt.Sprint(out[j]) })
		return out
	}
	generic := 0
	for _, text := range texts {
		g, w := hits(got, text), hits(want, text)
		if !reflect.DeepEqual(g, w) {
			t.Errorf("%.40q: found %v, gitleaks finds %v", text, g, w)
		}
		for _, h := range w {
			if h.rule == "generic-api-key" {
				generic++
			}
		}
	}
	t.Logf("%d generic-api-key findings in %d texts", generic, len(texts))
	if generic == 0 || generic == 2*4 {
		t.Errorf("%d generic-api-key findings: the texts do not exercise the stop words", generic)
	}
}

// Making a scanner compiles no rule (a configuration with an allowlist is
// decoded by every command); the first scan does.
func TestRulesCompiledOnFirstScan(t *testing.T) {
	compiled := 0
	saved := defaultDetector
	defaultDetector = func() (detector, error) { compiled++; return saved() }
	t.Cleanup(func() { defaultDetector = saved })
	s, err := New(Options{Allow: []Allow{{Rules: []string{"jwt"}, Regexes: []string{"^x"}}}})
	if err != nil {
		t.Fatal(err)
	}
	if compiled != 0 {
		t.Fatalf("New compiled the rules")
	}
	if _, err := s.Scan(context.Background(), "a.md", "text"); err != nil {
		t.Fatal(err)
	}
	if compiled != 1 {
		t.Errorf("the first scan asked for the rules %d times", compiled)
	}
}
