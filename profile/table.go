package profile

import (
	"fmt"
	"io"
	"strconv"

	"github.com/ctxaudit/ctx/internal/display"
	"github.com/ctxaudit/ctx/internal/table"
)

// WriteTable writes the chain as `ctx discover --profile` prints it: a
// heading, then the files in load order with the bytes the agent keeps,
// the rule that loads each (and the import that brought it in), and when
// a conditional file is loaded. Paths are relative to project when inside
// it, else show home as ~. The table fits width columns (0: 100).
func (c *Chain) WriteTable(w io.Writer, project, home string, width int) error {
	root := c.Root
	if root == "" {
		root = "(none found)"
	} else {
		root = display.Path(root, home)
	}
	if _, err := fmt.Fprintf(w, "\nProfile %s: %d file(s) the agent loads by itself, in load order (project root %s)\n",
		c.Profile, len(c.Files), root); err != nil {
		return err
	}
	if len(c.Files) == 0 {
		_, err := fmt.Fprintln(w, "none")
		return err
	}
	rows := make([][]string, 0, len(c.Files))
	for i, f := range c.Files {
		loaded := strconv.Itoa(f.Loaded)
		if f.Loaded != f.Size {
			loaded = fmt.Sprintf("%d of %d", f.Loaded, f.Size)
		}
		how := f.Label
		if f.ImportedBy != "" {
			how = f.Import + " in " + display.Rel(f.ImportedBy, project, home)
		}
		if f.Condition != "" {
			how += "; when " + f.Condition
		}
		rows = append(rows, []string{strconv.Itoa(i + 1), display.Rel(f.Path, project, home), loaded, how})
	}
	if width <= 0 {
		width = 100
	}
	return table.WriteFitted(w, []table.Column{
		{Header: "#", Align: table.Right},
		{Header: "path", Fit: table.FitCutMiddle, Min: 16},
		{Header: "bytes", Align: table.Right},
		{Header: "loaded by", Fit: table.FitWrap, Min: 16},
	}, rows, width)
}
