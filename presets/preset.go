// Package presets holds ctx's presets: named, reusable file sets for
// `ctx aggregate --preset NAME`, from the [presets.NAME] tables of the
// project's ctx.toml and of the user's presets.toml
// ([config.PresetsFile]), which holds those tables only.
//
// config decodes both files; this package merges them ([List], [ByName]),
// says what a preset's files come to in a project ([Check]), writes a
// preset as TOML ([TOML]), edits the user's file ([Save], [Delete]) and
// prints `ctx preset list` and `ctx preset show` ([WriteList], [Write]).
// It writes the user's file and never ctx.toml, whose comments and layout
// are the user's: [TOML] prints a table to paste into it.
//
// Like the command and mcpserver, it reads ctx.toml through config: no
// library package imports it.
package presets

import (
	"errors"
	"io/fs"
	"slices"
	"sort"
	"strings"

	"github.com/ctxaudit/ctx/aggregate"
	"github.com/ctxaudit/ctx/config"
	"github.com/ctxaudit/ctx/internal/fileio"
)

// Scope says where a preset is defined.
type Scope string

// Preset scopes.
const (
	// ScopeUser: the user's presets.toml, for every project.
	ScopeUser Scope = "user"
	// ScopeProject: [presets.NAME] in the project's ctx.toml.
	ScopeProject Scope = "project"
)

// Preset is a named, reusable file set.
type Preset struct {
	Name        string               `json:"name"`
	Description string               `json:"description,omitempty"`
	Scope       Scope                `json:"scope"`
	Files       []aggregate.FileItem `json:"files"`
	// Screenshots replace the configured ones when ScreenshotsSet.
	Screenshots    []string `json:"screenshots,omitempty"`
	ScreenshotsSet bool     `json:"-"`
	// File and Line say where the preset is defined, the file as it is
	// shown to people; "" and 0 for a preset built in code.
	File string `json:"file,omitempty"`
	Line int    `json:"line,omitempty"`
	// Overridden marks a user preset that a project preset of the same
	// name hides: the project's wins.
	Overridden bool `json:"overridden,omitempty"`
}

// Apply returns o with the preset's files (and screenshots, when the
// preset sets them). A preset's file that does not exist is left out
// (FileItem.Optional): a preset is a file set for several projects or
// branches, and [aggregate.CheckFiles] says what it names that a project
// lacks.
func (p Preset) Apply(o aggregate.Options) aggregate.Options {
	o.Files = append([]aggregate.FileItem(nil), p.Files...)
	for i := range o.Files {
		o.Files[i].Optional = true
	}
	if p.ScreenshotsSet {
		o.Screenshots = append([]string(nil), p.Screenshots...)
	}
	return o
}

// Names returns the names of presets, sorted.
func Names(presets map[string]Preset) []string {
	names := make([]string, 0, len(presets))
	for n := range presets {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// fromConfig is the preset of a decoded [presets.NAME] table.
func fromConfig(p config.Preset, scope Scope) Preset {
	return Preset{
		Name: p.Name, Description: p.Description, Scope: scope,
		Files:       p.FileItems(), // a preset's missing files are left out: no At
		Screenshots: append([]string(nil), p.Screenshots...), ScreenshotsSet: p.ScreenshotsSet,
		Line: p.Line,
	}
}

// List returns every preset of c and of the user's presets file in
// userConfigDir, sorted by name, the project's before the user's of the
// same name (which it overrides: Overridden is set on the user's). File
// and Line say where each is defined.
func List(c *config.Config, userConfigDir string) ([]Preset, error) {
	user, file, err := userPresets(userConfigDir)
	if err != nil {
		return nil, err
	}
	project := map[string]bool{}
	var out []Preset
	for _, p := range c.Aggregate.Presets {
		ap := fromConfig(p, ScopeProject)
		ap.File = c.File
		project[p.Name] = true
		out = append(out, ap)
	}
	for _, p := range user {
		ap := fromConfig(p, ScopeUser)
		ap.File, ap.Overridden = file, project[p.Name]
		out = append(out, ap)
	}
	slices.SortStableFunc(out, func(a, b Preset) int {
		if a.Name != b.Name {
			return strings.Compare(a.Name, b.Name)
		}
		if a.Scope == b.Scope {
			return 0
		}
		if a.Scope == ScopeProject {
			return -1
		}
		return 1
	})
	return out, nil
}

// ByName returns the presets by name: the user's from
// config.PresetsFile(userConfigDir) (when userConfigDir is not "" and the
// file exists), overridden by same-named presets of c ([presets.NAME]).
// See [List] for all of them.
func ByName(c *config.Config, userConfigDir string) (map[string]Preset, error) {
	list, err := List(c, userConfigDir)
	if err != nil {
		return nil, err
	}
	out := map[string]Preset{}
	for _, p := range list {
		if !p.Overridden {
			out[p.Name] = p
		}
	}
	return out, nil
}

// userPresets reads the user's presets file: none when userConfigDir is
// "" or the file does not exist.
func userPresets(userConfigDir string) ([]config.Preset, string, error) {
	if userConfigDir == "" {
		return nil, "", nil
	}
	file := config.PresetsFile(userConfigDir)
	data, _, err := fileio.Read(file, config.MaxFileSize)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, file, nil
	case err != nil:
		return nil, file, readError(file, err)
	}
	ps, err := config.DecodePresets(file, data)
	return ps, file, err
}

// readPresetsFile reads the user's presets file (named shown in errors);
// a missing file is empty.
func readPresetsFile(file, shown string) ([]byte, error) {
	data, _, err := fileio.Read(file, config.MaxFileSize)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, nil
	case err != nil:
		return nil, readError(shown, err)
	}
	return data, nil
}

// readError is the error of a failed fileio.Read of a presets file, as
// config words it for its files.
func readError(path string, err error) error {
	return &config.Error{File: path, Msg: fileio.Describe(err)}
}
