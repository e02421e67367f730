package audit

import (
	"context"
	"strconv"
	"strings"

	"github.com/ctxaudit/ctx/aggregate"
	"github.com/ctxaudit/ctx/manifest"
	"github.com/ctxaudit/ctx/secrets"
)

// CodeSecret: a credential in the text that is sent (an included
// fragment, an aggregated file's block, the discussion history); error.
// RelatedID is the rule that found it, Line its line in the file when
// known; the message never holds the secret.
const CodeSecret Code = "secret"

// CodeRedacted: credentials that redaction replaced before the text was
// sent (manifest "redactions"); info. RelatedID names the rules.
const CodeRedacted Code = "redacted"

// redactionFindings reports each record of m's redactions, in order.
func redactionFindings(m *manifest.Manifest) []Finding {
	var out []Finding
	for _, r := range m.Redactions {
		msg := secrets.Summary(r.Secrets) + ", replaced by [REDACTED:rule]"
		if r.Where != "" {
			msg += " in " + r.Where
		}
		out = append(out, Finding{SourceID: r.ID, Code: CodeRedacted, Severity: Info, RelatedID: secrets.Rules(r.Secrets), Message: msg})
	}
	return out
}

// historyID is the SourceID of the findings in the discussion history, and
// filesID of those in a files section whose blocks cannot be told apart.
const (
	historyID = string(manifest.SectionHistory)
	filesID   = string(manifest.SectionFiles)
)

// secretFindings scans what m sends, in rendering order: the fragment of
// every included source, the block of every aggregated file, the
// discussion history.
func secretFindings(ctx context.Context, m *manifest.Manifest, sc *secrets.Scanner) ([]Finding, error) {
	var out []Finding
	add := func(id, name, text string, where func(f secrets.Finding) (line int, msg string)) error {
		found, err := sc.Scan(ctx, name, text)
		if err != nil {
			return err
		}
		for _, f := range found {
			line, msg := where(f)
			out = append(out, Finding{
				SourceID: id, Code: CodeSecret, Severity: Error, RelatedID: f.Rule, Line: line,
				Message: "credential (" + f.Rule + ") " + msg + " would be sent; --redact replaces it",
			})
		}
		return nil
	}
	for i, s := range m.Sources {
		if !s.Included || i >= len(m.Fragments) || m.Fragments[i].Text == "" {
			continue
		}
		name := m.ScanName(&m.Sources[i])
		// a fragment is the start of its source, so its lines are the
		// file's
		err := add(s.ID, name, m.Fragments[i].Text, func(f secrets.Finding) (int, string) {
			return f.Line, atLine(f.Line)
		})
		if err != nil {
			return nil, err
		}
	}
	blocks, ok := m.FileBlocks()
	for _, b := range blocks {
		r := m.Files[b.Row]
		start, fenced := blockBody(b.Text)
		err := add(fileID(r), r.Path, b.Text, func(f secrets.Finding) (int, string) {
			if f.Start < start {
				return 0, "in the heading"
			}
			// lines of the view: the block's lines after the heading, the
			// blank line and the fence
			skip := strings.Count(b.Text[:start], "\n")
			line := f.Line - skip
			if r.ViewMode == aggregate.ViewFull && fenced {
				return line, atLine(line)
			}
			return 0, atLine(line) + " of the " + string(r.ViewMode) + " view"
		})
		if err != nil {
			return nil, err
		}
	}
	for _, sec := range m.Sections {
		switch {
		case sec.ID == manifest.SectionHistory:
			err := add(historyID, historyID, sec.Text, func(f secrets.Finding) (int, string) {
				where := atLine(f.Line) + " of the history"
				if n := excerpt(sec.Text, f.Start); n > 0 {
					where = "in discussion excerpt " + strconv.Itoa(n) + " (" + where + ")"
				}
				return 0, where
			})
			if err != nil {
				return nil, err
			}
		case sec.ID == manifest.SectionFiles && !ok:
			// the blocks could not be told apart: the section as a whole
			err := add(filesID, filesID, sec.Text, func(f secrets.Finding) (int, string) {
				return 0, atLine(f.Line) + " of the files section"
			})
			if err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

func atLine(n int) string {
	if n <= 0 {
		return "in the file's name"
	}
	return "at line " + strconv.Itoa(n)
}

// blockBody returns where the view of a file's block starts (after the
// heading, the blank line and, for a fenced view, the fence's line), and
// whether the view is fenced.
func blockBody(block string) (int, bool) {
	i := strings.Index(block, "\n\n")
	if i < 0 {
		return len(block), false
	}
	body := i + 2
	rest := block[body:]
	if strings.HasPrefix(rest, "```") || strings.HasPrefix(rest, "~~~") {
		if nl := strings.IndexByte(rest, '\n'); nl >= 0 {
			return body + nl + 1, true
		}
	}
	return body, false
}

// excerpt is the number of the discussion excerpt ("### Discussion
// Excerpt N") that holds the byte at off, or 0.
func excerpt(text string, off int) int {
	const heading = "### Discussion Excerpt "
	i := strings.LastIndex(text[:off], "\n"+heading)
	if i < 0 {
		return 0
	}
	rest := text[i+1+len(heading):]
	end := strings.IndexByte(rest, '\n')
	if end < 0 {
		end = len(rest)
	}
	n, err := strconv.Atoi(rest[:end])
	if err != nil {
		return 0
	}
	return n
}
