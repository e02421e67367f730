package gitleaks

import (
	_ "embed"

	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/pelletier/go-toml/v2"
	"github.com/zricethezav/gitleaks/v8/config"
	"github.com/zricethezav/gitleaks/v8/detect"
	"github.com/zricethezav/gitleaks/v8/detect/codec"
)

// The binding to gitleaks: everything of it that ctx uses is in this file.

// maxDecodeDepth is how many nested encodings (base64, hex, percent) are
// decoded to look for secrets, gitleaks' own default.
const maxDecodeDepth = 5

// detector finds the secrets of a text, located: the byte range of each.
type detector interface {
	detect(ctx context.Context, name, text string) ([]located, error)
	// ruleIDs lists the ids of the rules, sorted.
	ruleIDs() []string
}

// located is a finding of a rule with its byte range in the text (0, 0 for
// a rule on the text's name).
type located struct {
	rule, description string
	start, end        int
	nameOnly          bool
	decoded           bool // the range is the encoded text the secret was decoded from
}

// rawFinding is a match as gitleaks reports it: 0-based lines, columns
// relative to the preceding newline (see locate), the match and the
// captured secret.
type rawFinding struct {
	rule, description  string
	startLine, endLine int
	startCol, endCol   int
	match, secret      string
	decoded            bool // found in decoded text: the location is the encoded text
	nameOnly           bool // a rule on the file's name, with no location
}

// Texts are scanned in windows: gitleaks runs every rule whose keyword
// appears in a fragment over the whole fragment, and Go's regexp engine on
// its patterns costs far more than linear time in the fragment's length
// (a 212 KB Go test file took 1.1 s whole and 0.15 s in 4 KiB windows).
// Windows end at line ends and overlap by chunkOverlap, so every secret of
// up to that length lies whole in one of them; the one rule whose matches
// have no bound (a PEM private key, some 3 KiB for RSA 4096 and more for
// larger keys) runs over the whole text instead, and only where its
// keyword appears.
const (
	chunkSize    = 8 << 10
	chunkOverlap = 2 << 10
	// wideRule is the rule that runs over whole texts.
	wideRule = "private-key"
)

// gitleaks runs gitleaks' detectors over a text's windows and over the
// whole text.
type gitleaks struct {
	// detector returns the detector to run over fragment: the one of
	// every rule but wideRule, or with wide the one of wideRule alone; nil
	// when none of those rules can match fragment.
	detector func(fragment string, wide bool) (*detect.Detector, error)
	ids      []string
}

func (g gitleaks) ruleIDs() []string { return g.ids }

// defaultDetector is the detector of gitleaks' default rules, which are
// compiled as texts need them (see ruleSet and detectors).
var defaultDetector = sync.OnceValues(func() (detector, error) {
	rs, err := defaultRules()
	if err != nil {
		return nil, err
	}
	return gitleaks{detector: newDetectors(rs, eagerAfter).detector, ids: rs.ids}, nil
})

// defaultRules decodes gitleaks' default configuration once per process,
// compiling no rule. It decodes the configuration with go-toml rather than
// viper, which gitleaks uses: viper (a TOML parse, then mapstructure) took
// a quarter of the decoding and compilation, and the detect package's
// NewDetectorDefaultConfig uses viper's global instance, which is not
// safe to share. TestDecodeAsViper checks that both decode the same.
var defaultRules = sync.OnceValues(func() (*ruleSet, error) {
	vc, err := defaultConfig()
	if err != nil {
		return nil, err
	}
	return newRuleSet(vc)
})

// ruleIDs lists the ids of the default rules, sorted, from the decoded
// configuration alone (an allowlist is checked without compiling the
// rules).
func ruleIDs() ([]string, error) {
	rs, err := defaultRules()
	if err != nil {
		return nil, err
	}
	return rs.ids, nil
}

// ruleSet holds gitleaks' rules decoded, and compiles each one the first
// time a text needs it.
//
// Compiling all the default rules (some 220 regular expressions) took
// 25 to 40 ms of CPU time and 15 MB of allocations, in every process that
// scanned anything, most often a few short texts that few rules can match.
// gitleaks runs a rule that has keywords over a fragment only when one of
// them appears in the lowercased fragment, at one of its decoding passes
// (detect.(*Detector).DetectContext). So before a fragment is scanned, the
// rules gitleaks would consider for it are found the same way (need): the
// keywords in each decoding pass (the same decoder, the same depth), the
// rules without keywords, and the rules that those require
// ([[rules.required]], which composite rules look up among the
// detector's rules even where their keywords are absent). Only those
// rules are compiled; the others could not run, so the findings are
// exactly those of all the rules (TestLazyAsEager, FuzzLazyAsEager).
//
// Each rule is translated on its own, once per process, with the
// [[allowlists]] that target it; the global allowlists once.
type ruleSet struct {
	vc  config.ViperConfig // decoded, not compiled
	ids []string           // sorted

	parts     [2]ruleBits      // the rules but wideRule; wideRule
	keywords  []string         // distinct, lowercase
	byKeyword map[string][]int // rules (indexes in vc.Rules) by keyword
	always    []int            // the rules without keywords
	required  [][]int          // by rule, the rules it requires

	base     func() (config.Config, error) // the global allowlists
	rules    []compiledRule
	compiled atomic.Int32 // rules translated, for tests
}

type compiledRule struct {
	once sync.Once
	rule config.Rule
	err  error
}

// eagerAfter is how much time finding the rules that windows need may
// take before every rule is compiled. Finding them decodes each window as
// gitleaks then does again, which made scanning code a third slower
// (BenchmarkScan); once that has cost a few milliseconds, the scan is big
// enough that compiling the rules left (15 to 25 ms, which most big trees
// need anyway) costs less than going on. The whole texts scanned for
// wideRule are not counted: when its keyword is absent, that search
// replaces gitleaks' own.
const eagerAfter = 3 * time.Millisecond

// detectors are the detectors of a ruleSet's rules compiled so far, one
// per part: wideRule, and the others. A fragment is scanned by the
// detector of its part, which holds every rule the fragment needs: a rule
// that it holds but the fragment does not need never runs, as its
// keywords are not in the fragment. A detector is rebuilt only when a
// fragment needs a rule it lacks, so at most once per rule, and most texts
// reuse the last one. Once finding the rules has taken eagerAfter, the
// detectors get every rule and fragments are scanned without looking for
// the rules they need.
type detectors struct {
	rules      *ruleSet
	eagerAfter time.Duration
	spent      atomic.Int64 // nanoseconds finding the rules of windows
	current    [2]atomic.Pointer[partDetector]
	all        atomic.Bool // current holds every rule
	mu         sync.Mutex  // held to replace current
}

// partDetector is a detector and the rules it holds, with its twin that
// does not decode, for fragments that hold nothing to decode (see
// decodable).
type partDetector struct {
	d, flat *detect.Detector
	has     ruleBits
}

// pick returns the detector for fragment: flat when the decoder would
// find nothing in it, which finds the same without looking.
func (p *partDetector) pick(fragment string) *detect.Detector {
	if decodable(fragment) {
		return p.d
	}
	return p.flat
}

func newDetectors(rs *ruleSet, eagerAfter time.Duration) *detectors {
	return &detectors{rules: rs, eagerAfter: eagerAfter}
}

// ruleBits is a set of rules, by index.
type ruleBits []uint64

func newRuleBits(n int) ruleBits  { return make(ruleBits, (n+63)/64) }
func (b ruleBits) set(i int)      { b[i/64] |= 1 << (i % 64) }
func (b ruleBits) has(i int) bool { return b[i/64]&(1<<(i%64)) != 0 }
func (b ruleBits) empty() bool    { return !slices.ContainsFunc(b, func(w uint64) bool { return w != 0 }) }
func (b ruleBits) within(c ruleBits) bool {
	for i, w := range b {
		if w&^c[i] != 0 {
			return false
		}
	}
	return true
}

// newRuleSet indexes the rules of vc by keyword, compiling none.
func newRuleSet(vc config.ViperConfig) (*ruleSet, error) {
	if err := mergeAllowList(&vc); err != nil {
		return nil, err
	}
	n := len(vc.Rules)
	rs := &ruleSet{vc: vc, parts: [2]ruleBits{newRuleBits(n), newRuleBits(n)}, byKeyword: map[string][]int{},
		rules: make([]compiledRule, n), required: make([][]int, n)}
	index := map[string]int{}
	for i, r := range vc.Rules {
		index[r.ID] = i
		rs.ids = append(rs.ids, r.ID)
		if r.ID == wideRule {
			rs.parts[1].set(i)
		} else {
			rs.parts[0].set(i)
		}
	}
	if rs.parts[1].empty() {
		return nil, fmt.Errorf("secret rules: no rule %s", wideRule)
	}
	slices.Sort(rs.ids)
	for i, r := range vc.Rules {
		if len(r.Keywords) == 0 {
			rs.always = append(rs.always, i)
		}
		for _, k := range r.Keywords {
			k = strings.ToLower(k)
			if _, ok := rs.byKeyword[k]; !ok {
				rs.keywords = append(rs.keywords, k)
			}
			if !slices.Contains(rs.byKeyword[k], i) {
				rs.byKeyword[k] = append(rs.byKeyword[k], i)
			}
		}
		for _, q := range r.Required {
			j, ok := index[q.ID]
			if !ok {
				// as Translate checks
				return nil, fmt.Errorf("secret rules: %s: [[rules.required]] rule ID '%s' does not exist", r.ID, q.ID)
			}
			rs.required[i] = append(rs.required[i], j)
		}
	}
	for _, a := range vc.Allowlists {
		for _, id := range a.TargetRules {
			if _, ok := index[id]; !ok {
				return nil, fmt.Errorf("secret rules: [[allowlists]] target rule ID '%s' does not exist", id)
			}
		}
	}
	rs.base = sync.OnceValues(func() (config.Config, error) {
		g := config.ViperConfig{Title: vc.Title, Description: vc.Description, MinVersion: vc.MinVersion}
		for _, a := range vc.Allowlists {
			if len(a.TargetRules) == 0 {
				g.Allowlists = append(g.Allowlists, a)
			}
		}
		cfg, err := g.Translate()
		if err != nil {
			return config.Config{}, fmt.Errorf("secret rules: %w", err)
		}
		cfg.Extend = vc.Extend
		return cfg, nil
	})
	return rs, nil
}

// mergeAllowList moves the global [allowlist] of vc, the deprecated form
// that the default configuration uses, into its [[allowlists]], as
// Translate does.
func mergeAllowList(vc *config.ViperConfig) error {
	//lint:ignore SA1019 the default configuration has one, until gitleaks v9
	a := vc.AllowList
	if a == nil {
		return nil
	}
	if len(vc.Allowlists) > 0 {
		return fmt.Errorf("secret rules: [allowlist] is deprecated, it cannot be used alongside [[allowlists]]")
	}
	vc.Allowlists = append(vc.Allowlists, a)
	//lint:ignore SA1019 see above
	vc.AllowList = nil
	return nil
}

// need is the set of rules of a part (0: all but wideRule; 1: wideRule)
// that gitleaks considers for fragment and that have (a set closed under
// [[rules.required]], or nil) lacks, with the rules they require.
func (rs *ruleSet) need(fragment string, part int, have ruleBits) ruleBits {
	in := rs.parts[part]
	lacks := func(i int) bool { return in.has(i) && (have == nil || !have.has(i)) }
	need := newRuleBits(len(rs.vc.Rules))
	for _, i := range rs.always {
		if lacks(i) {
			need.set(i)
		}
	}
	// the keywords of the rules lacking
	var left []string
	for _, k := range rs.keywords {
		if slices.ContainsFunc(rs.byKeyword[k], lacks) {
			left = append(left, k)
		}
	}
	// as DetectContext: the keywords in each decoding pass
	raw := fragment
	segments := []*codec.EncodedSegment{}
	decoder := codec.NewDecoder()
	for depth := 0; len(left) > 0; {
		lower := strings.ToLower(raw)
		left = slices.DeleteFunc(left, func(k string) bool {
			if !strings.Contains(lower, k) {
				return false
			}
			for _, i := range rs.byKeyword[k] {
				if lacks(i) {
					need.set(i)
				}
			}
			return true
		})
		if depth++; depth > maxDecodeDepth {
			break
		}
		if raw, segments = decoder.Decode(raw, segments); len(segments) == 0 {
			break
		}
	}
	// and the rules they require, in the same part (a detector looks them
	// up among its own rules)
	var queue []int
	for i := range rs.vc.Rules {
		if need.has(i) {
			queue = append(queue, i)
		}
	}
	for len(queue) > 0 {
		i := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		for _, j := range rs.required[i] {
			if lacks(j) && !need.has(j) {
				need.set(j)
				queue = append(queue, j)
			}
		}
	}
	return need
}

// detector returns a detector that holds every rule of its part that
// fragment needs, or nil when it needs none.
func (ds *detectors) detector(fragment string, wide bool) (*detect.Detector, error) {
	part := 0
	if wide {
		part = 1
	}
	if ds.all.Load() {
		return ds.current[part].Load().pick(fragment), nil
	}
	rs := ds.rules
	cur := ds.current[part].Load()
	var have ruleBits
	if cur != nil {
		have = cur.has
	}
	var need ruleBits
	if time.Duration(ds.spent.Load()) > ds.eagerAfter {
		need = rs.parts[part]
	} else {
		start := time.Now()
		need = rs.need(fragment, part, have)
		if !wide {
			ds.spent.Add(int64(time.Since(start)))
		}
		if need.empty() {
			// nothing lacking (or, without a detector, nothing needed)
			if cur == nil {
				return nil, nil
			}
			return cur.pick(fragment), nil
		}
	}
	if cur != nil && need.within(cur.has) {
		return cur.pick(fragment), nil
	}
	base, err := rs.base()
	if err != nil {
		return nil, err
	}
	for i := range rs.vc.Rules {
		if need.has(i) {
			if _, err := rs.compile(i); err != nil {
				return nil, err
			}
		}
	}
	ds.mu.Lock()
	defer ds.mu.Unlock()
	cur = ds.current[part].Load()
	if cur == nil || !need.within(cur.has) {
		has := slices.Clone(need)
		if cur != nil {
			for i := range has {
				has[i] |= cur.has[i]
			}
		}
		cfg := base
		cfg.Rules = map[string]config.Rule{}
		cfg.OrderedRules = nil
		for i, r := range rs.vc.Rules {
			if has.has(i) {
				cfg.Rules[r.ID] = rs.rules[i].rule
				cfg.OrderedRules = append(cfg.OrderedRules, r.ID)
			}
		}
		all := func(string) bool { return true }
		flat := newDetector(cfg, all)
		flat.MaxDecodeDepth = 0
		cur = &partDetector{d: newDetector(cfg, all), flat: flat, has: has}
		ds.current[part].Store(cur)
	}
	full := func(p int) bool {
		c := ds.current[p].Load()
		return c != nil && rs.parts[p].within(c.has)
	}
	if full(0) && full(1) {
		ds.all.Store(true)
	}
	return cur.pick(fragment), nil
}

// compile translates rule i of the set, once: a configuration of that rule
// alone, with the [[allowlists]] that target it, and in place of the
// rules it requires, rules of the same ids that match no path (Translate
// checks that they exist; each is compiled on its own).
func (rs *ruleSet) compile(i int) (config.Rule, error) {
	c := &rs.rules[i]
	c.once.Do(func() {
		rs.compiled.Add(1)
		c.rule, c.err = rs.translate(i)
	})
	return c.rule, c.err
}

func (rs *ruleSet) translate(i int) (config.Rule, error) {
	id := rs.vc.Rules[i].ID
	vc := config.ViperConfig{Title: rs.vc.Title, Description: rs.vc.Description, MinVersion: rs.vc.MinVersion}
	var stubs []string
	for _, q := range rs.vc.Rules[i].Required {
		if q.ID != id && !slices.Contains(stubs, q.ID) {
			stubs = append(stubs, q.ID)
		}
	}
	vc.Rules = slices.Grow(slices.Clone(rs.vc.Rules[i:i+1]), len(stubs))[:1+len(stubs)]
	clear(vc.Rules[1:])
	for k, q := range stubs {
		vc.Rules[1+k].ID, vc.Rules[1+k].Path = q, "$^"
	}
	// the rule is a copy, with copies of what Translate and holdStopWords
	// change
	r := &vc.Rules[0]
	r.Keywords = slices.Clone(r.Keywords)
	if r.AllowList != nil {
		a := *r.AllowList
		r.AllowList = &a
	}
	r.Allowlists = slices.Clone(r.Allowlists)
	for j, a := range r.Allowlists {
		a := *a
		r.Allowlists[j] = &a
	}
	for _, a := range rs.vc.Allowlists {
		if slices.Contains(a.TargetRules, id) {
			a := *a
			a.TargetRules = []string{id}
			vc.Allowlists = append(vc.Allowlists, &a)
		}
	}
	held := holdStopWords(&vc)
	cfg, err := vc.Translate()
	if err != nil {
		return config.Rule{}, fmt.Errorf("secret rules: %w", err)
	}
	if err := held.restore(&cfg); err != nil {
		return config.Rule{}, err
	}
	return cfg.Rules[id], nil
}

// heldStopWords are the stop words of rule allowlists, taken out before
// Translate and put back after it.
//
// Translate builds an Aho-Corasick trie of every allowlist's stop words:
// for generic-api-key's 1,446 that took a quarter of the compilation and
// 9 MB of the 14 MB the rules hold, in every process that scans, to look
// in the few candidate secrets that rule matches. Without the trie,
// gitleaks' Allowlist.ContainsStopWord looks for each stop word in the
// secret itself (the same answer, TestStopWordsKept); so Translate gets
// the allowlists without their stop words (an allowlist keeps another
// check, or it is left as it is) and the stop words are set afterwards,
// lowercased and deduplicated as Validate does.
type heldStopWords []struct {
	rule  string
	index int // in the rule's Allowlists, which Translate keeps in order
	words []string
}

func holdStopWords(vc *config.ViperConfig) heldStopWords {
	var held heldStopWords
	for i := range vc.Rules {
		r := &vc.Rules[i]
		for j, a := range r.Allowlists {
			if len(a.StopWords) == 0 || len(a.Commits)+len(a.Paths)+len(a.Regexes) == 0 {
				continue
			}
			held = append(held, struct {
				rule  string
				index int
				words []string
			}{r.ID, j, a.StopWords})
			a.StopWords = nil
		}
	}
	return held
}

func (h heldStopWords) restore(cfg *config.Config) error {
	for _, x := range h {
		r, ok := cfg.Rules[x.rule]
		if !ok || x.index >= len(r.Allowlists) {
			return fmt.Errorf("secret rules: %s: allowlist %d not found after compiling", x.rule, x.index)
		}
		seen := map[string]bool{}
		var words []string
		for _, w := range x.words {
			if w = strings.ToLower(w); !seen[w] {
				seen[w] = true
				words = append(words, w)
			}
		}
		r.Allowlists[x.index].StopWords = words
	}
	return nil
}

// defaultConfig decodes gitleaks' default configuration.
// ctxRules are the rules ctx adds to gitleaks' (rules.toml).
//
//go:embed rules.toml
var ctxRules string

// rulesConfig is the configuration ctx scans with: gitleaks' default
// rules, then ctx's own.
func rulesConfig() string { return config.DefaultConfig + "\n" + ctxRules }

func defaultConfig() (config.ViperConfig, error) {
	var vc config.ViperConfig
	if err := toml.Unmarshal([]byte(rulesConfig()), &vc); err != nil {
		return vc, fmt.Errorf("secret rules: %w", err)
	}
	return vc, nil
}

// newDetector is a detector of the rules of cfg that keep accepts.
func newDetector(cfg config.Config, keep func(id string) bool) *detect.Detector {
	c := cfg
	c.Rules = map[string]config.Rule{}
	c.Keywords = map[string]struct{}{}
	c.OrderedRules = nil
	for _, id := range cfg.OrderedRules {
		r, ok := cfg.Rules[id]
		if !ok || !keep(id) {
			continue
		}
		c.Rules[id] = r
		c.OrderedRules = append(c.OrderedRules, id)
		for _, k := range r.Keywords {
			c.Keywords[strings.ToLower(k)] = struct{}{}
		}
	}
	d := detect.NewDetector(c)
	d.MaxDecodeDepth = maxDecodeDepth
	// what a repository says of its own files does not hide a secret that
	// is sent: only the project's allowlist in ctx.toml, which is reviewed
	// as configuration, allows one
	d.IgnoreGitleaksAllow = true
	return d
}

func (g gitleaks) detect(ctx context.Context, name, text string) ([]located, error) {
	var out []located
	add := func(chunk string, base int, raw []rawFinding) {
		var starts []int
		for _, r := range raw {
			if r.nameOnly {
				out = append(out, located{rule: r.rule, description: r.description, nameOnly: true})
				continue
			}
			if starts == nil {
				starts = lineStarts(chunk)
			}
			s, e := locate(chunk, starts, r)
			out = append(out, located{rule: r.rule, description: r.description, start: base + s, end: base + e, decoded: r.decoded})
		}
	}
	for i, w := range windows(text) {
		d, err := g.detector(text[w[0]:w[1]], false)
		if err != nil {
			return nil, err
		}
		raw, err := run(ctx, d, name, text[w[0]:w[1]])
		if err != nil {
			return nil, err
		}
		if i > 0 {
			// a rule on the name reports once, with the first window
			raw = slices.DeleteFunc(raw, func(r rawFinding) bool { return r.nameOnly })
		}
		add(text[w[0]:w[1]], w[0], raw)
	}
	d, err := g.detector(text, true)
	if err != nil {
		return nil, err
	}
	raw, err := run(ctx, d, name, text)
	if err != nil {
		return nil, err
	}
	add(text, 0, slices.DeleteFunc(raw, func(r rawFinding) bool { return r.nameOnly }))
	return out, nil
}

// windows splits text into ranges of about chunkSize bytes that end at line
// ends (or the end of the text) and overlap by at least chunkOverlap; a
// text of at most chunkSize bytes is one range.
func windows(text string) [][2]int {
	if len(text) <= chunkSize {
		return [][2]int{{0, len(text)}}
	}
	var out [][2]int
	start := 0
	for {
		end := start + chunkSize
		if end >= len(text) {
			return append(out, [2]int{start, len(text)})
		}
		// end after a line, unless the window's second half has no line end
		if nl := strings.LastIndexByte(text[start+2*chunkOverlap:end], '\n'); nl >= 0 {
			end = start + 2*chunkOverlap + nl + 1
		}
		out = append(out, [2]int{start, end})
		// the next window starts chunkOverlap or more before this one's
		// end, at a line start when the first half of the window has one;
		// it is always chunkOverlap or more after this one's start
		next := end - chunkOverlap
		if nl := strings.LastIndexByte(text[start+chunkOverlap:next], '\n'); nl >= 0 {
			next = start + chunkOverlap + nl + 1
		}
		start = next
	}
}

// run is one gitleaks pass over text; none with a nil detector.
func run(ctx context.Context, d *detect.Detector, name, text string) ([]rawFinding, error) {
	// no file path: gitleaks' own path allowlist (lock files, vendored
	// code, images) would skip texts that are sent all the same
	_ = name
	if d == nil {
		return nil, ctx.Err()
	}
	//lint:ignore SA1019 DetectContext takes this type until gitleaks v9
	found := d.DetectContext(ctx, detect.Fragment{Raw: text})
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	out := make([]rawFinding, 0, len(found))
	for _, f := range found {
		r := rawFinding{
			rule: f.RuleID, description: f.Description,
			startLine: f.StartLine, endLine: f.EndLine, startCol: f.StartColumn, endCol: f.EndColumn,
			match: f.Match, secret: f.Secret,
		}
		for _, t := range f.Tags {
			if strings.HasPrefix(t, "decoded:") {
				r.decoded = true
			}
		}
		r.nameOnly = f.StartLine == 0 && f.EndLine == 0 && f.StartColumn == 0 && f.EndColumn == 0 && strings.HasPrefix(f.Match, "file detected: ")
		out = append(out, r)
	}
	return out, nil
}

// locate returns the byte range of a finding's secret in text.
//
// gitleaks reports 0-based lines and columns counted from the preceding
// newline: on the first line the match starts at byte col-1 and ends at
// endCol; on a later line L it starts at starts[L]+col-2 and ends at
// starts[E]-1+endCol. The range found that way is checked: it must hold the
// secret (then it is narrowed to it), or be the encoded text a decoded
// secret came from. Otherwise the secret is looked for from the start of
// its line, then anywhere; when it cannot be found at all, the whole
// lines of the match are the range, so that redaction never leaves it.
func locate(text string, starts []int, r rawFinding) (int, int) {
	lineOff := func(l int) (int, bool) {
		if l < 0 || l >= len(starts) {
			return 0, false
		}
		return starts[l], true
	}
	s, okS := lineOff(r.startLine)
	e, okE := lineOff(r.endLine)
	if okS && okE {
		start, end := r.startCol-1, r.endCol
		if r.startLine > 0 {
			start = s + r.startCol - 2
		}
		if r.endLine > 0 {
			end = e - 1 + r.endCol
		}
		if 0 <= start && start < end && end <= len(text) {
			region := text[start:end]
			if r.secret != "" {
				if i := strings.Index(region, r.secret); i >= 0 {
					return start + i, start + i + len(r.secret)
				}
			}
			if r.decoded {
				return start, end
			}
		}
	}
	if r.secret != "" {
		if okS {
			if i := strings.Index(text[s:], r.secret); i >= 0 {
				return s + i, s + i + len(r.secret)
			}
		}
		if i := strings.Index(text, r.secret); i >= 0 {
			return i, i + len(r.secret)
		}
	}
	// the whole lines of the match
	if !okS {
		s = 0
	}
	end := len(text)
	if r.endLine+1 < len(starts) && r.endLine >= 0 {
		end = starts[r.endLine+1]
		if end > 0 && text[end-1] == '\n' {
			end--
		}
	}
	if end < s {
		end = len(text)
	}
	return s, end
}
