// Package secrets is what ctx asks of a credential scanner: the
// [Scanner] interface, the [Finding] it reports (never the secret: only the
// rule, the line and column, and the byte range to replace), the project's
// allowlist ([Allow]), and the redaction of findings ([Redact]). It links
// no scanner: package secrets/gitleaks is ctx's, with gitleaks' default
// rules, and config gives it to every step that scans. A nil Scanner, in
// every option that takes one, means no scan.
//
//	s, err := gitleaks.New(secrets.Options{})
//	found, err := s.Scan(ctx, "AGENTS.md", text)
//	clean := secrets.Redact(text, found)
package secrets

import (
	"context"
	"fmt"
	"sort"
	"strings"
)

// Scanner finds the credentials in a text. Implementations are safe for
// concurrent use.
type Scanner interface {
	// Scan returns the secrets in text, ordered by position. name is what
	// the text is (a project-relative path with forward slashes, or a
	// source id): an allowlist's paths are matched against it. It stops
	// when ctx is done, returning ctx's error.
	Scan(ctx context.Context, name, text string) ([]Finding, error)
	// Redact scans text as Scan does and returns it with every secret
	// replaced (see [Redact]), and the findings.
	Redact(ctx context.Context, name, text string) (string, []Finding, error)
}

// Finding is one credential in a text. It never holds the secret itself.
type Finding struct {
	// Rule is the id of the rule that matched ("aws-access-token").
	Rule string `json:"rule"`
	// Description says what the rule finds ("AWS access key").
	Description string `json:"description"`
	// Line and Column are where the secret starts: 1-based, Column
	// counted in characters. Both are 0 for a rule that matches a file's
	// name rather than its text.
	Line   int `json:"line"`
	Column int `json:"column"`
	// Start and End are the byte range of the secret in the text, the
	// range [Redact] replaces; both 0 for a name-only finding.
	Start int `json:"-"`
	End   int `json:"-"`
}

// Allow is one entry of a project's allowlist: a finding is allowed (not
// reported, not redacted) when it matches every field the entry sets. An
// entry must set at least one of Rules, Paths and Regexes.
type Allow struct {
	// Rules are rule ids ("jwt"); empty allows every rule.
	Rules []string
	// Paths are glob patterns (doublestar: "**" crosses directories)
	// matched against the name the text was scanned under: the
	// project-relative path of a file, or a source id; empty allows every
	// name.
	Paths []string
	// Regexes are regular expressions (RE2) matched against the secret;
	// empty allows every secret.
	Regexes []string
	// Reason says why the entry exists; it is not used.
	Reason string
	// Where is where the entry was declared ("ctx.toml:14"), for errors.
	Where string
}

// Options configure a [Scanner].
type Options struct {
	// Allow is the allowlist.
	Allow []Allow
}

// AllowError is an invalid allowlist entry.
type AllowError struct {
	// Index is the entry's position (0-based) and Where its declaration.
	Index int
	Where string
	Msg   string
}

func (e *AllowError) Error() string {
	msg := fmt.Sprintf("secrets.allow[%d]: %s", e.Index, e.Msg)
	if e.Where != "" {
		msg = e.Where + ": " + msg
	}
	return msg
}

// Label is what [Redact] puts in place of a secret found by rule.
func Label(rule string) string { return "[REDACTED:" + rule + "]" }

// Redact returns text with the byte range of every finding replaced by
// [Label] of its rule. Overlapping ranges are replaced once, under the rule
// of the finding that starts first; name-only findings and ranges outside
// text are ignored.
func Redact(text string, found []Finding) string {
	type span struct {
		start, end int
		rule       string
	}
	var spans []span
	for _, f := range found {
		if f.End <= f.Start || f.Start < 0 || f.End > len(text) {
			continue
		}
		spans = append(spans, span{f.Start, f.End, f.Rule})
	}
	if len(spans) == 0 {
		return text
	}
	sort.SliceStable(spans, func(i, j int) bool { return spans[i].start < spans[j].start })
	merged := spans[:1]
	for _, sp := range spans[1:] {
		last := &merged[len(merged)-1]
		if sp.start < last.end {
			last.end = max(last.end, sp.end)
			continue
		}
		merged = append(merged, sp)
	}
	var b strings.Builder
	at := 0
	for _, sp := range merged {
		b.WriteString(text[at:sp.start])
		b.WriteString(Label(sp.rule))
		at = sp.end
	}
	b.WriteString(text[at:])
	return b.String()
}

// Rules counts findings per rule, in the order of their first finding:
// "aws-access-token ×2, jwt".
func Rules(found []Finding) string {
	var order []string
	n := map[string]int{}
	for _, f := range found {
		if n[f.Rule] == 0 {
			order = append(order, f.Rule)
		}
		n[f.Rule]++
	}
	parts := make([]string, len(order))
	for i, r := range order {
		parts[i] = r
		if n[r] > 1 {
			parts[i] += fmt.Sprintf(" ×%d", n[r])
		}
	}
	return strings.Join(parts, ", ")
}

// Summary counts redacted findings for people: "1 credential redacted
// (jwt)", "3 credentials redacted (aws-access-token ×2, jwt)".
func Summary(found []Finding) string {
	noun := "credentials"
	if len(found) == 1 {
		noun = "credential"
	}
	return fmt.Sprintf("%d %s redacted (%s)", len(found), noun, Rules(found))
}
