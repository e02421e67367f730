package aggregate

import (
	"bytes"
	"context"
	"fmt"
	"strconv"
	"unicode/utf8"

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

// FileSecret is a credential left in a packed file: the file's path as the
// document shows it and the finding (never the secret).
type FileSecret struct {
	Path    string
	Finding secrets.Finding
}

// UnredactedSecrets lists the credentials Options.Scan found in the files
// the document holds (an omitted file, or one that failed, holds none), in
// the document's order: what a pack sends unless it is redacted.
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
	return out
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
			more, verb := "more credentials", "are"
			if len(found)-i == 1 {
				more, verb = "more credential", "is"
			}
			out = append(out, fmt.Sprintf("%s %s %s in the pack (--format json lists each under \"secrets\")", display.Int(len(found)-i), more, verb))
			break
		}
		at := mdtext.Escape(f.Path)
		if f.Finding.Line > 0 {
			at += ":" + strconv.Itoa(f.Finding.Line)
		}
		out = append(out, at+": "+f.Finding.Rule+": a credential is in the pack (--redact, or redact = true in [secrets] of ctx.toml, replaces it)")
	}
	return out
}
