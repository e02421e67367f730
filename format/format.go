// Package format names the output formats of ctx's writers: one type for
// the audit (audit.Write), verify and diff (provenance), stats and the
// presets, each of which accepts some of them, and one parser that says
// which.
package format

import (
	"fmt"
	"strings"
)

// Format is an output format's name, as --format takes it.
type Format string

// The formats. Each writer documents those it accepts and what it writes
// in each.
const (
	// Table: plain-text tables for a terminal, fitted to a width.
	Table Format = "table"
	// Markdown: markdown tables, for pull requests and issues.
	Markdown Format = "markdown"
	// JSON: the report's own type, for runtimes and scripts.
	JSON Format = "json"
	// GitHub: GitHub Actions workflow commands (annotations).
	GitHub Format = "github"
	// SARIF: a SARIF 2.1.0 log, for code scanning.
	SARIF Format = "sarif"
	// Text: prose for people (one preset).
	Text Format = "text"
	// TOML: a table to paste into ctx.toml (one preset).
	TOML Format = "toml"
)

// Parse returns s as a Format when it is one of allowed, and otherwise
// an error that lists them: `must be table, markdown or json, not "yaml"`.
func Parse(s string, allowed ...Format) (Format, error) {
	for _, f := range allowed {
		if Format(s) == f {
			return f, nil
		}
	}
	return "", fmt.Errorf("must be %s, not %q", List(allowed), s)
}

// List names the formats for people: "table, markdown or json".
func List(fs []Format) string {
	names := make([]string, len(fs))
	for i, f := range fs {
		names[i] = string(f)
	}
	switch len(names) {
	case 0:
		return "nothing"
	case 1:
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}
