package discover

import (
	"io"
	"os"

	"github.com/ctxaudit/ctx/internal/display"
	"github.com/ctxaudit/ctx/internal/mdtext"
	"github.com/ctxaudit/ctx/internal/table"
)

// WriteTable writes the candidates of r as the table `ctx discover` prints:
// id, kind, delivery, path (relative to the project, else with home as
// ~) and whether the file exists ("text" for an inline source). It looks at
// file existence only, never at contents. The table fits width columns
// (0: 100), wrapping ids and paths after a slash when it must (nothing of
// them is cut, so that two rows never look alike).
func WriteTable(w io.Writer, r *Result, home string, width int) error {
	rows := make([][]string, 0, len(r.Sources))
	for _, src := range r.Sources {
		exists, path := "text", ""
		if !src.IsText() {
			path = display.Rel(src.Path, r.ProjectDir, home)
			exists = "no"
			if _, err := os.Stat(src.Path); err == nil {
				exists = "yes"
			}
		}
		rows = append(rows, []string{display.ID(src.ID, r.ProjectDir, home), mdtext.Escape(src.Kind), string(src.Delivery), path, exists})
	}
	if width <= 0 {
		width = table.DefaultWidth
	}
	return table.WriteFitted(w, []table.Column{
		{Header: "id", Fit: table.FitWrapPath, Min: 12},
		{Header: "kind"},
		{Header: "delivery"},
		{Header: "path", Fit: table.FitWrapPath, Min: 16},
		{Header: "exists"},
	}, rows, width)
}
