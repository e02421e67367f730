package profile

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/ctxaudit/ctx/internal/mdtext"

	"github.com/ctxaudit/ctx/internal/display"
	"github.com/ctxaudit/ctx/internal/table"
)

// heading says what the chain holds, with the counts of the audit, and its
// project root on a line of its own: "Profile gemini: 1 file the agent
// loads by itself, 7 more when their conditions apply; 8 listed in load
// order", or "Profile claude: 2 files the agent loads by itself, in load
// order"; then "Project root: ~/src/app", and the agent version the rules
// were held against.
func (c *Chain) heading(home string) string {
	root := "Project root: none found"
	if c.Root != "" {
		root = "Project root: " + display.Path(c.Root, home)
	}
	if v := CheckedAgainst(c.Profile); v != "" {
		root += "\nRules checked against " + v + " (what it sent, observed by ctx observe)"
	}
	loaded, conditional := c.Loaded()
	parts := []string{display.Plural(loaded, "file") + " the agent loads by itself"}
	if conditional > 0 {
		parts = append(parts, strconv.Itoa(conditional)+" more "+display.Conditions(conditional))
	}
	if rest := len(c.Files) - loaded - conditional; rest > 0 {
		what := " that bring nothing (blank, or past their limit)"
		if rest == 1 {
			what = " that brings nothing (blank, or past its limit)"
		}
		parts = append(parts, strconv.Itoa(rest)+what)
	}
	if len(parts) == 1 {
		return fmt.Sprintf("Profile %s: %s, in load order\n%s", c.Profile, parts[0], root)
	}
	return fmt.Sprintf("Profile %s: %s; %d listed in load order\n%s", c.Profile, strings.Join(parts, ", "), len(c.Files), root)
}

// WriteTable writes the chain as `ctx discover --profile` prints it: a
// heading, then the files in load order with the bytes the agent keeps,
// the rule that loads each (and the import that brought it in), and when
// a conditional file is loaded. Paths are relative to project when inside
// it, else show home as ~. The table fits width columns (0: 100).
func (c *Chain) WriteTable(w io.Writer, project, home string, width int) error {
	if width <= 0 {
		width = table.DefaultWidth
	}
	if _, err := fmt.Fprintf(w, "\n%s\n", table.WrapText(c.heading(home), width)); err != nil {
		return err
	}
	if len(c.Files) == 0 {
		_, err := fmt.Fprintln(w, "none")
		return err
	}
	rows := make([][]string, 0, len(c.Files))
	for i, f := range c.Files {
		loaded := display.Int(f.Loaded)
		if f.Loaded != f.Size {
			loaded = display.Int(f.Loaded) + " of " + display.Int(f.Size)
		}
		how := f.Label
		if f.ImportedBy != "" {
			how = f.Import + " in " + display.Rel(f.ImportedBy, project, home)
		}
		if f.Condition != "" {
			how += "; when " + f.Condition
		}
		// the import text, a rule's paths and a directory's name are the
		// repository's: escaped, so that none can add a line or an escape
		rows = append(rows, []string{strconv.Itoa(i + 1), display.Rel(f.Path, project, home), loaded, mdtext.Escape(how)})
	}
	return table.WriteFitted(w, []table.Column{
		{Header: "#", Align: table.Right},
		{Header: "path", Fit: table.FitWrapPath, Min: 16},
		{Header: "bytes", Align: table.Right},
		{Header: "loaded by", Fit: table.FitWrap, Min: 16},
	}, rows, width)
}
