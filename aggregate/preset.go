package aggregate

import "sort"

// DefaultOutputDir is where numbered outputs go when no output directory is
// configured, relative to the project directory.
const DefaultOutputDir = ".ctx/out"

// PresetScope says where a preset is defined.
type PresetScope string

// Preset scopes.
const (
	// ScopeUser: the user's presets.toml, for every project.
	ScopeUser PresetScope = "user"
	// ScopeProject: [presets.NAME] in the project's ctx.toml.
	ScopeProject PresetScope = "project"
)

// Preset is a named, reusable file set.
type Preset struct {
	Name        string      `json:"name"`
	Description string      `json:"description,omitempty"`
	Scope       PresetScope `json:"scope"`
	Files       []FileItem  `json:"files"`
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
// branches, and [CheckFiles] says what it names that a project lacks.
func (p Preset) Apply(o Options) Options {
	o.Files = append([]FileItem(nil), p.Files...)
	for i := range o.Files {
		o.Files[i].Optional = true
	}
	if p.ScreenshotsSet {
		o.Screenshots = append([]string(nil), p.Screenshots...)
	}
	return o
}

// PresetNames returns the names of presets, sorted.
func PresetNames(presets map[string]Preset) []string {
	names := make([]string, 0, len(presets))
	for n := range presets {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
