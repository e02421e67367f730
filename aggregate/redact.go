package aggregate

import (
	"bytes"
	"context"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/ctxaudit/ctx/aggregate/beads"
	"github.com/ctxaudit/ctx/internal/display"
	"github.com/ctxaudit/ctx/internal/mdtext"
	"github.com/ctxaudit/ctx/measure"
	"github.com/ctxaudit/ctx/secrets"
)

// Redaction records the credentials replaced in a file's text.
type Redaction struct {
	// Secrets are the credentials found in the file: the rule, the line
	// and the column of each (never the secret).
	Secrets []secrets.Finding `json:"secrets"`
	// HashAfter is the BLAKE3 of the text after redaction, the text the
	// view was made from; the file's own hash is Item.Source.Hash.
	HashAfter string `json:"hash_after"`
	// Text is the redacted text.
	Text string `json:"-"`
}

// redact scans a file's bytes and returns its redaction, or nil when the
// file has no credential or is not text (invalid UTF-8 or a NUL byte: a
// binary file is never shown).
func redact(ctx context.Context, sc secrets.Scanner, label string, src []byte) (*Redaction, error) {
	if !utf8.Valid(src) || bytes.IndexByte(src, 0) >= 0 {
		return nil, nil
	}
	text, found, err := sc.Redact(ctx, label, string(src))
	if err != nil || len(found) == 0 {
		return nil, err
	}
	return &Redaction{Secrets: found, HashAfter: measure.Hash([]byte(text)), Text: text}, nil
}

// RedactionSummary says in one line what Options.Redact replaced: "2
// credentials redacted (jwt, github-pat) in a.py, conf/x.env"; "" when
// nothing was.
func (res *Result) RedactionSummary() string {
	var all []secrets.Finding
	var paths []string
	for _, it := range res.Items {
		if it.Redacted != nil {
			all = append(all, it.Redacted.Secrets...)
			paths = append(paths, mdtext.Escape(it.Path))
		}
	}
	if len(all) == 0 {
		return ""
	}
	return secrets.Summary(all) + " in " + shownList(paths, BinaryShown)
}

// scanOnly scans a file's bytes and returns the credentials found, nil
// when the file has none or is not text (see redact).
func scanOnly(ctx context.Context, sc secrets.Scanner, label string, src []byte) ([]secrets.Finding, error) {
	if !utf8.Valid(src) || bytes.IndexByte(src, 0) >= 0 {
		return nil, nil
	}
	return sc.Scan(ctx, label, string(src))
}

// secretsIn returns the findings of found (in src) whose secret the view
// text still holds: a summary or skeleton that leaves out the line of a
// credential does not send it. A finding without a range (a rule that
// matches the file's name) is kept: the heading names the file.
func secretsIn(found []secrets.Finding, src []byte, view string) []secrets.Finding {
	var out []secrets.Finding
	for _, f := range found {
		if f.End > f.Start && f.End <= len(src) && !strings.Contains(view, string(src[f.Start:f.End])) {
			continue
		}
		out = append(out, f)
	}
	return out
}

// FileSecret is a credential left in a pack: the file's path as the
// document shows it (or the section's name: "Beads", "Discussion
// History") and the finding (never the secret).
type FileSecret struct {
	Path    string
	Finding secrets.Finding
	// Section is set when Path names a section of the document rather
	// than a file.
	Section bool
}

// Names of the document's sections a pack scans (Result.SectionSecrets).
const (
	SectionBeads   = "Beads"
	SectionHistory = "Discussion History"
)

// scanSections scans the Beads and Discussion History sections of a
// document (either may be "").
func scanSections(ctx context.Context, sc secrets.Scanner, beadsText, historyText string) ([]FileSecret, error) {
	var out []FileSecret
	for _, s := range []struct{ name, scanName, text string }{
		{SectionBeads, beads.ScanName, beadsText},
		// the name a secrets allowlist's paths match, as history.ScanName
		{SectionHistory, mdtext.HistoryScanName, historyText},
	} {
		if s.text == "" {
			continue
		}
		found, err := sc.Scan(ctx, s.scanName, s.text)
		if err != nil {
			return nil, fmt.Errorf("cannot scan the %s section for secrets: %w", s.name, err)
		}
		for _, f := range found {
			out = append(out, FileSecret{Path: s.name, Finding: f, Section: true})
		}
	}
	return out, nil
}

// UnredactedSecrets lists the credentials Options.Scan found in the files
// the document holds (an omitted file, or one that failed, holds none),
// then those of its sections (SectionSecrets), in the document's order:
// what a pack sends unless it is redacted.
func (res *Result) UnredactedSecrets() []FileSecret {
	var out []FileSecret
	for _, it := range res.Items {
		if !it.AutoAggregate || it.ViewMode == ViewNone || it.Status == StatusOmitted || it.Status == StatusError || it.Status == StatusBinary {
			continue
		}
		for _, f := range it.Secrets {
			out = append(out, FileSecret{Path: it.Path, Finding: f})
		}
	}
	return append(out, res.SectionSecrets...)
}

// SecretsShown is how many credentials left in a pack SecretWarnings
// names; a line counts the others.
const SecretsShown = 10

// SecretWarnings says where each credential left in the pack is
// (UnredactedSecrets), and how to replace it: "client.py:3:
// aws-access-token: a credential is in the pack (...)", the first
// SecretsShown, then a count of the rest; nil when there is none.
func (res *Result) SecretWarnings() []string {
	found := res.UnredactedSecrets()
	var out []string
	for i, f := range found {
		if i == SecretsShown {
			out = append(out, display.MoreCredentials(len(found)-i)+" in the pack (--format json lists each under \"secrets\")")
			break
		}
		at := mdtext.Escape(f.Path)
		switch {
		case f.Section && f.Finding.Line > 0:
			at = "the " + at + " section, line " + strconv.Itoa(f.Finding.Line)
		case f.Section:
			at = "the " + at + " section"
		case f.Finding.Line > 0:
			at += ":" + strconv.Itoa(f.Finding.Line)
		}
		out = append(out, at+": "+f.Finding.Rule+": a credential is in the pack (--redact, or redact = true in [secrets] of ctx.toml, replaces it)")
	}
	return out
}
