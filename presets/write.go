package presets

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/ctxaudit/ctx/format"

	"github.com/ctxaudit/ctx/aggregate"
	"github.com/ctxaudit/ctx/config"
	"github.com/ctxaudit/ctx/internal/display"
	"github.com/ctxaudit/ctx/internal/jsonenc"
	"github.com/ctxaudit/ctx/internal/mdtext"
	texttable "github.com/ctxaudit/ctx/internal/table"
)

// Status is a preset with what its files come to in a project: what
// `ctx preset list` and `ctx preset show` print.
type Status struct {
	Preset
	// Found is the number of distinct files the entries name in the
	// project; Missing are the entries that name nothing there.
	Found   int      `json:"found"`
	Missing []string `json:"missing,omitempty"`
}

// ProjectList returns every preset of the project and of the user
// ([List]), the user's file shown as [config.Project.ShownPath] shows it.
func ProjectList(p *config.Project) ([]Preset, error) {
	list, err := List(p.Config, p.UserConfigDir)
	for i := range list {
		if list[i].Scope == ScopeUser {
			list[i].File = p.ShownPath(list[i].File)
		}
	}
	return list, err
}

// ProjectByName returns the presets of the project and of the user by
// name (see [ByName]), the user's from p.UserConfigDir.
func ProjectByName(p *config.Project) (map[string]Preset, error) {
	return ByName(p.Config, p.UserConfigDir)
}

// Check resolves the files of pr in the project, as `ctx aggregate
// --preset` would (base_dir, .gitignore, the output directory skipped),
// without reading them ([aggregate.CheckFiles]).
func Check(ctx context.Context, p *config.Project, pr Preset) (Status, error) {
	fc, err := aggregate.CheckFiles(ctx, p.AggregateOptions(), pr.Files)
	return Status{Preset: pr, Found: fc.Files, Missing: fc.Missing}, err
}

// ProjectSave saves pr in the user's presets file ([Save]) and returns
// the file as [config.Project.ShownPath] shows it.
func ProjectSave(p *config.Project, pr Preset, replace bool) (string, error) {
	shown := p.ShownPath(config.PresetsFile(p.UserConfigDir))
	return shown, save(p.UserConfigDir, shown, pr, replace)
}

// ProjectDelete removes a preset from the user's presets file ([Delete])
// and returns the file as [config.Project.ShownPath] shows it.
func ProjectDelete(p *config.Project, name string) (string, error) {
	shown := p.ShownPath(config.PresetsFile(p.UserConfigDir))
	return shown, remove(p.UserConfigDir, shown, name)
}

// Format is an output format of [WriteList] and [Write]: table, text,
// json or toml, of [format.Format]'s names.
type Format = format.Format

// The formats.
const (
	// FormatTable: the list as a table fitted to a width.
	FormatTable = format.Table
	// FormatText: one preset, for people.
	FormatText = format.Text
	// FormatJSON: the [Status] values.
	FormatJSON = format.JSON
	// FormatTOML: one preset as a [presets.NAME] table ([TOML]),
	// to paste into ctx.toml.
	FormatTOML = format.TOML
)

var presetColumns = []texttable.Column{
	{Header: "name", Fit: texttable.FitCutMiddle, Min: 8},
	{Header: "scope"},
	{Header: "files", Align: texttable.Right},
	{Header: "description", Fit: texttable.FitWrap, Min: 12},
	{Header: "note", Fit: texttable.FitWrap, Min: 12},
}

// WriteList writes the presets as `ctx preset list` prints them: a
// table (at most width columns wide; 0 is 100) with each preset's name,
// scope, number of files found, description, and a note for entries that
// name nothing and for a user preset the project's overrides; or, in
// JSON, {"presets": [...]}.
func WriteList(w io.Writer, list []Status, f Format, width int) error {
	var b bytes.Buffer
	switch f {
	case FormatJSON:
		if list == nil {
			list = []Status{}
		}
		if err := jsonenc.Write(&b, struct {
			Presets []Status `json:"presets"`
		}{list}); err != nil {
			return err
		}
	case FormatTable:
		if len(list) == 0 {
			b.WriteString("no presets: add [presets.NAME] to ctx.toml, or run: ctx preset save NAME\n")
			break
		}
		if width <= 0 {
			width = texttable.DefaultWidth
		}
		var rows [][]string
		for _, s := range list {
			var notes []string
			if s.Overridden {
				notes = append(notes, "overridden by the project's")
			}
			if len(s.Missing) > 0 {
				notes = append(notes, "not found: "+escapeAll(s.Missing))
			}
			rows = append(rows, []string{mdtext.Escape(s.Name), string(s.Scope), display.Int(s.Found), mdtext.Escape(s.Description), strings.Join(notes, "; ")})
		}
		if err := texttable.WriteFitted(&b, presetColumns, rows, width); err != nil {
			return err
		}
	default:
		return fmt.Errorf("format: must be table or json, not %q", f)
	}
	_, err := w.Write(b.Bytes())
	return err
}

// Write writes one preset as `ctx preset show` prints it: as text
// (where it is defined, its description, each file entry with its
// settings and whether it names anything, its screenshots), JSON or TOML.
func Write(w io.Writer, s Status, f Format) error {
	var b bytes.Buffer
	switch f {
	case FormatJSON:
		if err := jsonenc.Write(&b, s); err != nil {
			return err
		}
	case FormatTOML:
		b.WriteString(TOML(s.Preset))
	case FormatText:
		where := mdtext.Escape(s.File)
		if s.Line > 0 {
			where += fmt.Sprintf(":%d", s.Line)
		}
		fmt.Fprintf(&b, "preset %s: %s, %s\n", mdtext.Escape(s.Name), s.Scope, where)
		if s.Overridden {
			b.WriteString("overridden by the project preset of the same name\n")
		}
		if s.Description != "" {
			b.WriteString("description: " + mdtext.Escape(s.Description) + "\n")
		}
		fmt.Fprintf(&b, "files: %s, %s found\n", display.Count(len(s.Files), "entry", "entries"), display.Count(s.Found, "file", "files"))
		missing := map[string]bool{}
		for _, m := range s.Missing {
			missing[m] = true
		}
		wide := 0
		for _, fi := range s.Files {
			wide = max(wide, texttable.Width(mdtext.Escape(fi.Path)))
		}
		for _, fi := range s.Files {
			extra := FileItemSettings(fi)
			if missing[fi.Path] {
				extra = append(extra, "(not found)")
			}
			path := mdtext.Escape(fi.Path)
			line := "  " + path
			if len(extra) > 0 {
				line += strings.Repeat(" ", wide-texttable.Width(path)+2) + strings.Join(extra, ", ")
			}
			b.WriteString(line + "\n")
		}
		switch {
		case !s.ScreenshotsSet:
			b.WriteString("screenshots: not set (the configured ones stay)\n")
		case len(s.Screenshots) == 0:
			b.WriteString("screenshots: none\n")
		default:
			b.WriteString("screenshots: " + escapeAll(s.Screenshots) + "\n")
		}
	default:
		return fmt.Errorf("format: must be text, json or toml, not %q", f)
	}
	_, err := w.Write(b.Bytes())
	return err
}

// escapeAll joins names with commas, each escaped (control characters as
// \n, \x1b): a name never adds a line or a terminal escape.
func escapeAll(names []string) string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = mdtext.Escape(n)
	}
	return strings.Join(out, ", ")
}

// SavedMessage is what ctx preset save says once the preset is in the
// user's presets file: "saved user preset api (3 entries) to FILE".
func SavedMessage(name string, p Preset, file string) string {
	return fmt.Sprintf("saved user preset %s (%s) to %s", name, display.Count(len(p.Files), "entry", "entries"), file)
}
