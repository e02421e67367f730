package secrets

import (
	"context"
	"fmt"
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

// detector finds raw matches in a text.
type detector interface {
	detect(ctx context.Context, name, text string) ([]rawFinding, error)
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

type gitleaks struct{ d *detect.Detector }

// defaultDetector compiles gitleaks' default configuration once per
// process. It decodes the configuration with go-toml rather than viper,
// which gitleaks uses: viper (a TOML parse, then mapstructure) took a
// quarter of the compilation, and the detect package's
// NewDetectorDefaultConfig uses viper's global instance, which is not safe
// to share. TestDecodeAsViper checks that both decode the same.
var defaultDetector = sync.OnceValues(newDetector)

// newDetector compiles gitleaks' default rules.
func newDetector() (detector, error) {
	vc, err := defaultConfig()
	if err != nil {
		return nil, err
	}
	held := holdStopWords(&vc)
	cfg, err := vc.Translate()
	if err != nil {
		return nil, fmt.Errorf("secret rules: %w", err)
	}
	if err := held.restore(&cfg); err != nil {
		return nil, err
	}
	d := detect.NewDetector(cfg)
	d.MaxDecodeDepth = maxDecodeDepth
	return gitleaks{d: d}, nil
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

func (g gitleaks) detect(ctx context.Context, name, text string) ([]rawFinding, error) {
	//lint:ignore SA1019 DetectContext takes this type until gitleaks v9
	found := g.d.DetectContext(ctx, detect.Fragment{Raw: text, FilePath: name})
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
