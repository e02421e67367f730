// Package gitleaks is ctx's credential scanner: gitleaks' detect package
// with its default rule set (some 220 rules: cloud keys, tokens of source
// hosts and chat services, private keys, JWTs, generic high-entropy
// assignments), used as a library, so that the rules are maintained by the
// project that maintains them, behind [secrets.Scanner]. Its own allow
// markers work as in gitleaks: a line that contains "gitleaks:allow" is
// never reported, nor are the paths of gitleaks' global allowlist (lock
// files, go.sum, vendored code). A [Scanner] adds the allowlist of a
// project (see [secrets.Allow]).
//
// It is a package of its own so that the packages that take a scanner
// (manifest, render, audit, aggregate, history) do not link gitleaks and
// its dependencies: config and the command give them this one.
//
//	s, err := gitleaks.New(secrets.Options{})
//	found, err := s.Scan(ctx, "AGENTS.md", text)
//	clean := secrets.Redact(text, found)
package gitleaks

import (
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/ctxaudit/ctx/internal/suggest"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/ctxaudit/ctx/secrets"
)

// The types of package secrets, which a Scanner implements.
type (
	// Finding is secrets.Finding.
	Finding = secrets.Finding
	// Allow is secrets.Allow.
	Allow = secrets.Allow
	// Options is secrets.Options.
	Options = secrets.Options
	// AllowError is secrets.AllowError.
	AllowError = secrets.AllowError
)

// Scanner finds secrets with the default rules and an allowlist: a
// [secrets.Scanner]. It is safe for concurrent use.
type Scanner struct {
	det   func() (detector, error) // the rules, compiled as texts need them
	allow []allow
}

type allow struct {
	rules   []string
	paths   []string
	regexes []*regexp.Regexp
}

// New returns a scanner with the default rules and o's allowlist, or the
// error of the first invalid allowlist entry. It compiles no rule, so that
// loading a configuration with an allowlist costs nothing to a command
// that scans nothing: each rule is compiled once per process, when a text
// first holds one of its keywords (a short text without credentials
// compiles one rule of some 220, where all of them took 20 to 40 ms of CPU
// time and held 6 MB), and every rule once scanning has spent a few
// milliseconds finding those needed; the findings are the same.
func New(o Options) (*Scanner, error) {
	s := &Scanner{det: defaultDetector}
	for i, a := range o.Allow {
		fail := func(msg string) error { return &AllowError{Index: i, Where: a.Where, Msg: msg} }
		if len(a.Rules) == 0 && len(a.Paths) == 0 && len(a.Regexes) == 0 {
			return nil, fail("set at least one of rules, paths and regexes (an empty entry would allow every secret)")
		}
		if len(a.Rules) > 0 {
			ids, err := ruleIDs()
			if err != nil {
				return nil, err
			}
			for _, r := range a.Rules {
				if _, ok := slices.BinarySearch(ids, r); !ok {
					return nil, fail(fmt.Sprintf("rules: no rule %q (the rules are gitleaks' ids, as secret findings name them%s)", r, closest(r, ids)))
				}
			}
		}
		c := allow{rules: a.Rules}
		for _, p := range a.Paths {
			if !doublestar.ValidatePattern(p) {
				return nil, fail(fmt.Sprintf("paths: invalid pattern %q", p))
			}
			c.paths = append(c.paths, p)
		}
		for _, r := range a.Regexes {
			re, err := regexp.Compile(r)
			if err != nil {
				return nil, fail(fmt.Sprintf("regexes: %v", err))
			}
			c.regexes = append(c.regexes, re)
		}
		s.allow = append(s.allow, c)
	}
	return s, nil
}

// RuleIDs returns the ids of the rules, sorted: what a finding's Rule and
// an allowlist's Rules name.
func RuleIDs() ([]string, error) {
	ids, err := ruleIDs()
	return slices.Clone(ids), err
}

// closest suggests the ids of ids that id most likely misspells (see
// suggest.Names): ", such as jwt"; "" when there is none.
func closest(id string, ids []string) string {
	found := suggest.Names(id, ids)
	if len(found) == 0 {
		return ""
	}
	return ", such as " + strings.Join(found[:min(3, len(found))], " or ")
}

// Default returns the scanner with the default rules and no allowlist,
// shared by the process.
func Default() (*Scanner, error) { return defaultScanner() }

var defaultScanner = sync.OnceValues(func() (*Scanner, error) { return New(Options{}) })

// Scan returns the secrets in text, ordered by position. name is what the
// text is (a project-relative path with forward slashes, or a source id):
// the allowlists' paths are matched against it, gitleaks' own path rules
// too. It stops when ctx is done, returning ctx's error.
func (s *Scanner) Scan(ctx context.Context, name, text string) ([]Finding, error) {
	if text == "" && name == "" {
		return nil, nil
	}
	det, err := s.det()
	if err != nil {
		return nil, err
	}
	raw, err := det.detect(ctx, name, text)
	if err != nil {
		return nil, err
	}
	starts := lineStarts(text)
	var out []Finding
	seen := map[[3]any]bool{}
	for _, r := range raw {
		f := Finding{Rule: r.rule, Description: r.description}
		if r.nameOnly {
			if s.allowed(f, name, "") {
				continue
			}
			out = append(out, f)
			continue
		}
		f.Start, f.End = r.start, r.end
		f.Line, f.Column = position(text, starts, f.Start)
		key := [3]any{f.Rule, f.Start, f.End}
		if seen[key] || s.allowed(f, name, text[f.Start:f.End]) || genericRules[f.Rule] && !r.decoded && implausible(f.Rule, text[f.Start:f.End]) {
			continue
		}
		seen[key] = true
		out = append(out, f)
	}
	out = append(out, s.partialKeys(name, text, starts, out)...)
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Start != out[j].Start {
			return out[i].Start < out[j].Start
		}
		return out[i].Rule < out[j].Rule
	})
	return out, nil
}

// pemBegin is the header of a PEM private key, as gitleaks' private-key
// rule starts.
var pemBegin = regexp.MustCompile(`(?i)-----BEGIN[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----`)

// pemMaterial is a line of a PEM body: base64 characters, or a header such
// as "Proc-Type: 4,ENCRYPTED".
var pemMaterial = regexp.MustCompile(`^(?:[A-Za-z0-9+/=]{16,}|[A-Za-z-]+: .*)\r?$`)

// partialKeys finds private keys that the rules miss because their end was
// cut (a budget that keeps the first lines of a file, a cut view): a PEM
// header followed by at least one line of key material, where no
// private-key finding already covers it. The range runs from the header to
// the end of the material.
func (s *Scanner) partialKeys(name, text string, starts []int, found []Finding) []Finding {
	var out []Finding
	for _, m := range pemBegin.FindAllStringIndex(text, -1) {
		covered := false
		for _, f := range found {
			if f.Rule == partialKeyRule && f.Start <= m[0] && m[0] < f.End {
				covered = true
			}
		}
		if covered {
			continue
		}
		end, lines := m[1], 0
		rest := text[m[1]:]
		rest = strings.TrimPrefix(strings.TrimPrefix(rest, "\r"), "\n")
		at := len(text) - len(rest)
		for rest != "" {
			line, next, _ := strings.Cut(rest, "\n")
			if !pemMaterial.MatchString(line) {
				break
			}
			at += len(line)
			end, lines = at, lines+1
			if next == "" && !strings.Contains(rest, "\n") {
				break
			}
			at++
			rest = next
		}
		if lines == 0 {
			continue
		}
		f := Finding{Rule: partialKeyRule, Description: "Identified the start of a private key, cut before its end.", Start: m[0], End: end}
		f.Line, f.Column = position(text, starts, f.Start)
		if s.allowed(f, name, text[f.Start:f.End]) {
			continue
		}
		out = append(out, f)
	}
	return out
}

// partialKeyRule is the rule id of a private key cut before its end: the
// id of gitleaks' rule for whole keys, so that an allowlist of the rule
// covers both.
const partialKeyRule = "private-key"

// Redact scans text as [Scanner.Scan] does and returns it with every
// secret replaced (see [secrets.Redact]), and the findings.
func (s *Scanner) Redact(ctx context.Context, name, text string) (string, []Finding, error) {
	found, err := s.Scan(ctx, name, text)
	if err != nil {
		return "", nil, err
	}
	return secrets.Redact(text, found), found, nil
}

func (s *Scanner) allowed(f Finding, name, secret string) bool {
	if outside(name) {
		// the allowlist is the project's, for its own files
		return false
	}
	for _, a := range s.allow {
		if len(a.rules) > 0 && !slices.Contains(a.rules, f.Rule) {
			continue
		}
		if len(a.paths) > 0 && !slices.ContainsFunc(a.paths, func(p string) bool {
			ok, _ := doublestar.Match(p, name)
			return ok
		}) {
			continue
		}
		if len(a.regexes) > 0 && !slices.ContainsFunc(a.regexes, func(re *regexp.Regexp) bool { return re.MatchString(secret) }) {
			continue
		}
		return true
	}
	return false
}

// outside reports whether name is not a project's own: an absolute path
// (a file outside the project, as manifests name it), a path above the
// project, or one under the home directory written with ~.
func outside(name string) bool {
	n := filepath.ToSlash(name)
	return filepath.IsAbs(name) || strings.HasPrefix(n, "/") || n == ".." || strings.HasPrefix(n, "../") ||
		strings.HasPrefix(n, "~")
}

// lineStarts returns the byte offset of every line of text: 0, then one
// past each "\n".
func lineStarts(text string) []int {
	starts := []int{0}
	for i := 0; i < len(text); i++ {
		if text[i] == '\n' {
			starts = append(starts, i+1)
		}
	}
	return starts
}

// position converts a byte offset into a 1-based line and a 1-based column
// counted in characters.
func position(text string, starts []int, off int) (line, col int) {
	i := sort.Search(len(starts), func(i int) bool { return starts[i] > off }) - 1
	if i < 0 {
		i = 0
	}
	return i + 1, utf8.RuneCountInString(text[starts[i]:off]) + 1
}
