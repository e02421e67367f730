package config

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/pelletier/go-toml/v2/unstable"

	"github.com/ctxaudit/ctx/aggregate"
	"github.com/ctxaudit/ctx/internal/atomicfile"
	"github.com/ctxaudit/ctx/internal/fileio"
)

// Presets are named file sets: [presets.NAME] tables of the project's
// ctx.toml, and of the user's presets.toml ([PresetsFile]), which holds
// those tables only. ctx writes the user's file (SaveUserPreset,
// DeleteUserPreset) and never ctx.toml, whose comments and layout are the
// user's: PresetTOML prints a table to paste into it.

// ErrPresetExists is returned (wrapped) by [SaveUserPreset] for a name
// the user's presets file already holds, when it may not replace it.
var ErrPresetExists = errors.New("a user preset of that name exists")

// ErrPresetNotFound is returned (wrapped) by [DeleteUserPreset] for a
// name the user's presets file does not hold.
var ErrPresetNotFound = errors.New("no user preset of that name")

// CheckPresetName checks a name that [SaveUserPreset] may write: 1 to 64
// ASCII letters, digits, '-' and '_' (a bare TOML key, which needs no
// quoting in ctx.toml either).
func CheckPresetName(name string) error {
	if name == "" || len(name) > 64 {
		return fmt.Errorf("preset name %q: must be 1 to 64 letters, digits, - and _", name)
	}
	for _, c := range name {
		if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return fmt.Errorf("preset name %q: must be 1 to 64 letters, digits, - and _", name)
		}
	}
	return nil
}

// PresetList returns every preset, sorted by name, the project's before
// the user's of the same name (which it overrides: Overridden is set on
// the user's). File and Line say where each is defined.
func (c *Config) PresetList(userConfigDir string) ([]aggregate.Preset, error) {
	user, file, err := userPresets(userConfigDir)
	if err != nil {
		return nil, err
	}
	project := map[string]bool{}
	var out []aggregate.Preset
	for _, p := range c.Aggregate.Presets {
		ap := p.preset(aggregate.ScopeProject)
		ap.File = c.File
		project[p.Name] = true
		out = append(out, ap)
	}
	for _, p := range user {
		ap := p.preset(aggregate.ScopeUser)
		ap.File, ap.Overridden = file, project[p.Name]
		out = append(out, ap)
	}
	slices.SortStableFunc(out, func(a, b aggregate.Preset) int {
		if a.Name != b.Name {
			return strings.Compare(a.Name, b.Name)
		}
		if a.Scope == b.Scope {
			return 0
		}
		if a.Scope == aggregate.ScopeProject {
			return -1
		}
		return 1
	})
	return out, nil
}

// userPresets reads the user's presets file: none when userConfigDir is
// "" or the file does not exist.
func userPresets(userConfigDir string) ([]Preset, string, error) {
	if userConfigDir == "" {
		return nil, "", nil
	}
	file := PresetsFile(userConfigDir)
	data, _, err := fileio.Read(file, MaxFileSize)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, file, nil
	case err != nil:
		return nil, file, readError(file, err)
	}
	ps, err := DecodePresets(file, data)
	return ps, file, err
}

// PresetTOML renders p as a [presets.NAME] table: its description, its
// files one entry a line (a path, or an inline table with the entry's
// settings, [FileItemTOML]) and its screenshots when set. Decoded again,
// it gives the same preset.
func PresetTOML(p aggregate.Preset) string {
	var b strings.Builder
	fmt.Fprintf(&b, "[presets.%s]\n", tomlKey(p.Name))
	if p.Description != "" {
		b.WriteString("description = " + tomlString(p.Description) + "\n")
	}
	b.WriteString("files = [\n")
	for _, f := range p.Files {
		b.WriteString("  " + FileItemTOML(f) + ",\n")
	}
	b.WriteString("]\n")
	if p.ScreenshotsSet {
		b.WriteString("screenshots = " + tomlStrings(p.Screenshots) + "\n")
	}
	return b.String()
}

// FileItemTOML renders f as an element of a files or paths array: its
// path as a string when it has no other setting, else a one-line inline
// table with the settings ([FileItemSettings]).
func FileItemTOML(f aggregate.FileItem) string {
	settings := FileItemSettings(f)
	if len(settings) == 0 {
		return tomlString(f.Path)
	}
	return "{ path = " + tomlString(f.Path) + ", " + strings.Join(settings, ", ") + " }"
}

// FileItemSettings returns the settings of f other than its path, as
// TOML key = value pairs in the order of the per-file keys of ctx.toml.
func FileItemSettings(f aggregate.FileItem) []string {
	var out []string
	if f.NoAutoAggregate {
		out = append(out, "auto_aggregate = false")
	}
	if f.ForceFull {
		out = append(out, "force_full = true")
	}
	if f.ViewMode != "" {
		out = append(out, "view_mode = "+tomlString(string(f.ViewMode)))
	}
	if f.Tier != 0 {
		out = append(out, fmt.Sprintf("tier = %d", f.Tier))
	}
	if len(f.ASTMask) > 0 {
		keys := make([]string, 0, len(f.ASTMask))
		for k := range f.ASTMask {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = tomlKey(k) + " = " + tomlString(string(f.ASTMask[k]))
		}
		out = append(out, "ast_mask = { "+strings.Join(parts, ", ")+" }")
	}
	if len(f.CustomSlices) > 0 {
		parts := make([]string, len(f.CustomSlices))
		for i, s := range f.CustomSlices {
			parts[i] = SliceTOML(s)
		}
		out = append(out, "custom_slices = ["+strings.Join(parts, ", ")+"]")
	}
	if f.ASTSignatures {
		out = append(out, "ast_signatures = true")
	}
	if f.ASTDefinitions {
		out = append(out, "ast_definitions = true")
	}
	return out
}

// tomlKey is k as a TOML key: bare when it can be, else quoted.
func tomlKey(k string) string {
	if k != "" && CheckPresetName(k) == nil {
		return k
	}
	return tomlString(k)
}

// SaveUserPreset writes p (Name, Description, Files, and Screenshots when
// ScreenshotsSet) as a [presets.NAME] table of the user's presets file in
// userConfigDir ([PresetsFile]), creating it when needed. A new preset is
// appended; a preset the file holds is an error wrapping
// [ErrPresetExists], unless replace, which replaces its table. The rest
// of the file, comments included, stays as it is. The file is written
// atomically and only once the new content decodes to the same preset:
// a failure writes nothing. It returns the file.
func SaveUserPreset(userConfigDir string, p aggregate.Preset, replace bool) (string, error) {
	file := PresetsFile(userConfigDir)
	return file, saveUserPreset(userConfigDir, file, p, replace)
}

// saveUserPreset is SaveUserPreset, with the file named shown in errors.
func saveUserPreset(userConfigDir, shown string, p aggregate.Preset, replace bool) error {
	if err := CheckPresetName(p.Name); err != nil {
		return err
	}
	if len(p.Files) == 0 {
		return fmt.Errorf("preset %s: no files to save", p.Name)
	}
	for _, f := range p.Files {
		if isBlank(f.Path) {
			return fmt.Errorf("preset %s: a file path must not be empty", p.Name)
		}
	}
	if userConfigDir == "" {
		return errors.New("no user configuration directory to save presets in")
	}
	file := PresetsFile(userConfigDir)
	data, err := readPresetsFile(file, shown)
	if err != nil {
		return err
	}
	ps, err := DecodePresets(shown, data)
	if err != nil {
		return err
	}
	toml := PresetTOML(p)
	var out []byte
	if slices.ContainsFunc(ps, func(q Preset) bool { return q.Name == p.Name }) {
		if !replace {
			return fmt.Errorf("%s: %w: %s", shown, ErrPresetExists, p.Name)
		}
		start, end, err := presetBlock(shown, data, p.Name, false)
		if err != nil {
			return err
		}
		lines := splitLines(data)
		old := lines[start:end]
		blank := 0
		for blank < len(old) && strings.TrimSpace(old[len(old)-1-blank]) == "" {
			blank++
		}
		out = []byte(strings.Join(lines[:start], "") + toml + strings.Repeat("\n", blank) + strings.Join(lines[end:], ""))
	} else {
		out = append([]byte(nil), data...)
		if len(bytes.TrimSpace(out)) > 0 {
			if !bytes.HasSuffix(out, []byte("\n")) {
				out = append(out, '\n')
			}
			out = append(out, '\n')
		} else {
			out = nil
		}
		out = append(out, toml...)
	}
	// the new file must hold the preset exactly as given
	got, err := DecodePresets(shown, out)
	if err != nil {
		return fmt.Errorf("the preset would make the file invalid: %w", err)
	}
	i := slices.IndexFunc(got, func(q Preset) bool { return q.Name == p.Name })
	if i < 0 || !samePreset(got[i].preset(p.Scope), p) {
		return fmt.Errorf("%s: preset %s: the file would not hold it as given", shown, p.Name)
	}
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return err
	}
	return atomicfile.WriteFile(context.Background(), file, out, 0o644) // small: never cut off midway
}

// DeleteUserPreset removes the [presets.NAME] table of the user's presets
// file in userConfigDir, with the comment lines just above it, and leaves
// the rest as it is; a name the file does not hold is an error wrapping
// [ErrPresetNotFound]. The file is written atomically. It returns the
// file.
func DeleteUserPreset(userConfigDir, name string) (string, error) {
	file := PresetsFile(userConfigDir)
	return file, deleteUserPreset(userConfigDir, file, name)
}

// deleteUserPreset is DeleteUserPreset, with the file named shown in
// errors.
func deleteUserPreset(userConfigDir, shown, name string) error {
	if userConfigDir == "" {
		return fmt.Errorf("%w: %s (no user configuration directory)", ErrPresetNotFound, name)
	}
	file := PresetsFile(userConfigDir)
	data, err := readPresetsFile(file, shown)
	if err != nil {
		return err
	}
	ps, err := DecodePresets(shown, data)
	if err != nil {
		return err
	}
	if !slices.ContainsFunc(ps, func(q Preset) bool { return q.Name == name }) {
		return fmt.Errorf("%s: %w: %s", shown, ErrPresetNotFound, name)
	}
	start, end, err := presetBlock(shown, data, name, true)
	if err != nil {
		return err
	}
	lines := splitLines(data)
	rest := strings.Join(lines[:start], "") + strings.Join(lines[end:], "")
	rest = strings.TrimRight(rest, " \t\r\n")
	if rest != "" {
		rest += "\n"
	}
	got, err := DecodePresets(shown, []byte(rest))
	if err != nil || len(got) != len(ps)-1 {
		return fmt.Errorf("%s: cannot remove preset %s without breaking the file; edit it by hand", shown, name)
	}
	return atomicfile.WriteFile(context.Background(), file, []byte(rest), 0o644) // small: never cut off midway
}

// readPresetsFile reads the user's presets file (named shown in errors);
// a missing file is empty.
func readPresetsFile(file, shown string) ([]byte, error) {
	data, _, err := fileio.Read(file, MaxFileSize)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, nil
	case err != nil:
		return nil, readError(shown, err)
	}
	return data, nil
}

// splitLines splits data after each "\n", keeping it.
func splitLines(data []byte) []string {
	return strings.SplitAfter(string(data), "\n")
}

// presetBlock returns the lines [start, end) (0-based) of the table
// [presets.NAME] in data: from its header (or, with leading, from the
// comment lines just above it) to the next table that is not inside it,
// less the comment lines just above that table (they belong to it). A
// preset defined otherwise (dotted keys, an inline table under
// [presets]) has no block: an error.
func presetBlock(file string, data []byte, name string, leading bool) (int, int, error) {
	type header struct {
		line int // 0-based
		keys []string
	}
	var hs []header
	var p unstable.Parser
	p.Reset(data)
	for p.NextExpression() {
		e := p.Expression()
		if e.Kind != unstable.Table && e.Kind != unstable.ArrayTable {
			continue
		}
		it := e.Key()
		h := header{line: -1}
		for it.Next() {
			n := it.Node()
			if h.line < 0 {
				h.line = p.Shape(n.Raw).Start.Line - 1
			}
			h.keys = append(h.keys, string(n.Data))
		}
		hs = append(hs, h)
	}
	if err := p.Error(); err != nil {
		return 0, 0, &Error{File: file, Msg: "invalid TOML: " + err.Error()}
	}
	lines := splitLines(data)
	for i, h := range hs {
		if len(h.keys) != 2 || h.keys[0] != "presets" || h.keys[1] != name {
			continue
		}
		start, end := h.line, len(lines)
		for _, next := range hs[i+1:] {
			if len(next.keys) < 2 || next.keys[0] != "presets" || next.keys[1] != name {
				end = next.line
				for end > start+1 && isComment(lines[end-1]) {
					end--
				}
				break
			}
		}
		if leading {
			for start > 0 && isComment(lines[start-1]) {
				start--
			}
		}
		return start, end, nil
	}
	return 0, 0, &Error{File: file, Field: "presets." + tomlKey(name),
		Msg: "not a [presets." + tomlKey(name) + "] table of its own; edit it by hand"}
}

func isComment(line string) bool {
	return strings.HasPrefix(strings.TrimSpace(line), "#")
}

// samePreset reports whether a and b have the same name, description,
// files and screenshots.
func samePreset(a, b aggregate.Preset) bool {
	if a.Name != b.Name || a.Description != b.Description || a.ScreenshotsSet != b.ScreenshotsSet ||
		!slices.Equal(a.Screenshots, b.Screenshots) || len(a.Files) != len(b.Files) {
		return false
	}
	for i := range a.Files {
		if FileItemTOML(a.Files[i]) != FileItemTOML(b.Files[i]) {
			return false
		}
	}
	return true
}
