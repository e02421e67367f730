package secrets

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/pelletier/go-toml/v2"
	"github.com/zricethezav/gitleaks/v8/config"
	"github.com/zricethezav/gitleaks/v8/detect"
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

type gitleaks struct {
	chunked *detect.Detector // every rule but wideRule
	wide    *detect.Detector // wideRule alone
	ids     []string
}

func (g gitleaks) ruleIDs() []string { return g.ids }

// defaultDetector compiles gitleaks' default configuration once per
// process. It decodes the configuration with go-toml rather than viper,
// which gitleaks uses: viper (a TOML parse, then mapstructure) took a
// quarter of the compilation, and the detect package's
// NewDetectorDefaultConfig uses viper's global instance, which is not safe
// to share. TestDecodeAsViper checks that both decode the same.
var defaultDetector = sync.OnceValues(compile)

// ruleIDs lists the ids of the default rules, sorted, from the decoded
// configuration alone (an allowlist is checked without compiling the
// rules).
var ruleIDs = sync.OnceValues(func() ([]string, error) {
	vc, err := defaultConfig()
	if err != nil {
		return nil, err
	}
	ids := make([]string, 0, len(vc.Rules))
	for _, r := range vc.Rules {
		ids = append(ids, r.ID)
	}
	slices.Sort(ids)
	return ids, nil
})

// compileConfig decodes and translates gitleaks' default rules.
func compileConfig() (config.Config, error) {
	vc, err := defaultConfig()
	if err != nil {
		return config.Config{}, err
	}
	held := holdStopWords(&vc)
	cfg, err := vc.Translate()
	if err != nil {
		return config.Config{}, fmt.Errorf("secret rules: %w", err)
	}
	if err := held.restore(&cfg); err != nil {
		return config.Config{}, err
	}
	return cfg, nil
}

// compile compiles gitleaks' default rules into the two detectors.
func compile() (detector, error) {
	cfg, err := compileConfig()
	if err != nil {
		return nil, err
	}
	if _, ok := cfg.Rules[wideRule]; !ok {
		return nil, fmt.Errorf("secret rules: no rule %s", wideRule)
	}
	ids := slices.Sorted(maps.Keys(cfg.Rules))
	return gitleaks{chunked: newDetector(cfg, func(id string) bool { return id != wideRule }),
		wide: newDetector(cfg, func(id string) bool { return id == wideRule }), ids: ids}, nil
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
func defaultConfig() (config.ViperConfig, error) {
	var vc config.ViperConfig
	if err := toml.Unmarshal([]byte(config.DefaultConfig), &vc); err != nil {
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
			out = append(out, located{rule: r.rule, description: r.description, start: base + s, end: base + e})
		}
	}
	for i, w := range windows(text) {
		raw, err := run(ctx, g.chunked, name, text[w[0]:w[1]])
		if err != nil {
			return nil, err
		}
		if i > 0 {
			// a rule on the name reports once, with the first window
			raw = slices.DeleteFunc(raw, func(r rawFinding) bool { return r.nameOnly })
		}
		add(text[w[0]:w[1]], w[0], raw)
	}
	raw, err := run(ctx, g.wide, name, text)
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

// run is one gitleaks pass over text.
func run(ctx context.Context, d *detect.Detector, name, text string) ([]rawFinding, error) {
	// no file path: gitleaks' own path allowlist (lock files, vendored
	// code, images) would skip texts that are sent all the same
	_ = name
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
