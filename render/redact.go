package render

import (
	"context"
	"strings"

	"github.com/ctxaudit/ctx/manifest"
	"github.com/ctxaudit/ctx/secrets"
)

// Redact returns [Text] of m with every credential sc finds replaced by
// "[REDACTED:rule]", and what it found, for a stored manifest that was
// written without redaction. Each piece is scanned under its own name (a
// source's path, a file's path, the section's id), so that an allowlist's
// paths apply as they do when the manifest is built with redaction. Lines
// in the findings are those of the piece. It stops when ctx is done.
func Redact(ctx context.Context, m *manifest.Manifest, sc secrets.Scanner) (string, []secrets.Finding, error) {
	c := *m
	c.Fragments = append(manifest.Fragments(nil), m.Fragments...)
	c.Sections = append([]manifest.Section(nil), m.Sections...)
	var all []secrets.Finding
	redact := func(name, text string) (string, error) {
		red, found, err := sc.Redact(ctx, name, text)
		all = append(all, found...)
		return red, err
	}
	var err error
	for i := range m.Sources {
		s := &m.Sources[i]
		if !s.Included || i >= len(c.Fragments) || c.Fragments[i].Text == "" {
			continue
		}
		if c.Fragments[i].Text, err = redact(m.ScanName(s), c.Fragments[i].Text); err != nil {
			return "", nil, err
		}
	}
	blocks, ok := m.FileBlocks()
	for i := range c.Sections {
		sec := &c.Sections[i]
		if sec.ID != manifest.SectionFiles || !ok {
			if sec.Text, err = redact(string(sec.ID), sec.Text); err != nil {
				return "", nil, err
			}
			continue
		}
		// each file's block under the file's path, the text around them
		// (headings, separators, screenshots) under the section's id
		var b strings.Builder
		at := 0
		for _, bl := range blocks {
			gap, err := redact(string(sec.ID), sec.Text[at:bl.Offset])
			if err != nil {
				return "", nil, err
			}
			block, err := redact(m.Files[bl.Row].Path, bl.Text)
			if err != nil {
				return "", nil, err
			}
			b.WriteString(gap)
			b.WriteString(block)
			at = bl.Offset + len(bl.Text)
		}
		rest, err := redact(string(sec.ID), sec.Text[at:])
		if err != nil {
			return "", nil, err
		}
		b.WriteString(rest)
		sec.Text = b.String()
	}
	return Text(&c), all, nil
}
