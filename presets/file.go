package presets

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/pelletier/go-toml/v2/unstable"

	"github.com/ctxaudit/ctx/config"
	"github.com/ctxaudit/ctx/internal/atomicfile"
)

// ErrExists is returned (wrapped) by [Save] for a name
// the user's presets file already holds, when it may not replace it.
var ErrExists = errors.New("a user preset of that name exists")

// ErrNotFound is returned (wrapped) by [Delete] for a
// name the user's presets file does not hold.
var ErrNotFound = errors.New("no user preset of that name")

// CheckName checks a name that [Save] may write: 1 to 64
// ASCII letters, digits, '-' and '_' (a bare TOML key, which needs no
// quoting in ctx.toml either).
func CheckName(name string) error {
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

// Save writes p (Name, Description, Files, and Screenshots when
// ScreenshotsSet) as a [presets.NAME] table of the user's presets file in
// userConfigDir ([config.PresetsFile]), creating it when needed. A new preset is
// appended; a preset the file holds is an error wrapping
// [ErrExists], unless replace, which replaces its table. The rest
// of the file, comments included, stays as it is. The file is written
// atomically and only once the new content decodes to the same preset:
// a failure writes nothing. It returns the file.
func Save(userConfigDir string, p Preset, replace bool) (string, error) {
	file := config.PresetsFile(userConfigDir)
	return file, save(userConfigDir, file, p, replace)
}

// save is Save, with the file named shown in errors.
func save(userConfigDir, shown string, p Preset, replace bool) error {
	if err := CheckName(p.Name); err != nil {
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
	file, data, ps, err := loadFile(userConfigDir, shown)
	if err != nil {
		return err
	}
	toml := TOML(p)
	var out []byte
	if slices.ContainsFunc(ps, func(q config.Preset) bool { return q.Name == p.Name }) {
		if !replace {
			return fmt.Errorf("%s: %w: %s", shown, ErrExists, p.Name)
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
	got, err := config.DecodePresets(shown, out)
	if err != nil {
		return fmt.Errorf("the preset would make the file invalid: %w", err)
	}
	i := slices.IndexFunc(got, func(q config.Preset) bool { return q.Name == p.Name })
	if i < 0 || !samePreset(fromConfig(got[i], p.Scope), p) {
		return fmt.Errorf("%s: preset %s: the file would not hold it as given", shown, p.Name)
	}
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return err
	}
	return atomicfile.WriteFile(context.Background(), file, out, 0o644) // small: never cut off midway
}

// Delete removes the [presets.NAME] table of the user's presets
// file in userConfigDir, with the comment lines just above it, and leaves
// the rest as it is; a name the file does not hold is an error wrapping
// [ErrNotFound]. The file is written atomically. It returns the
// file.
func Delete(userConfigDir, name string) (string, error) {
	file := config.PresetsFile(userConfigDir)
	return file, remove(userConfigDir, file, name)
}

// loadFile reads and decodes the user's presets file in userConfigDir
// (named shown in errors): its path, its bytes and its presets.
func loadFile(userConfigDir, shown string) (string, []byte, []config.Preset, error) {
	file := config.PresetsFile(userConfigDir)
	data, err := readPresetsFile(file, shown)
	if err != nil {
		return "", nil, nil, err
	}
	ps, err := config.DecodePresets(shown, data)
	if err != nil {
		return "", nil, nil, err
	}
	return file, data, ps, nil
}

// remove is Delete, with the file named shown in
// errors.
func remove(userConfigDir, shown, name string) error {
	if userConfigDir == "" {
		return fmt.Errorf("%w: %s (no user configuration directory)", ErrNotFound, name)
	}
	file, data, ps, err := loadFile(userConfigDir, shown)
	if err != nil {
		return err
	}
	if !slices.ContainsFunc(ps, func(q config.Preset) bool { return q.Name == name }) {
		return fmt.Errorf("%s: %w: %s", shown, ErrNotFound, name)
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
	got, err := config.DecodePresets(shown, []byte(rest))
	if err != nil || len(got) != len(ps)-1 {
		return fmt.Errorf("%s: cannot remove preset %s without breaking the file; edit it by hand", shown, name)
	}
	return atomicfile.WriteFile(context.Background(), file, []byte(rest), 0o644) // small: never cut off midway
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
		return 0, 0, &config.Error{File: file, Msg: "invalid TOML: " + err.Error()}
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
	return 0, 0, &config.Error{File: file, Field: "presets." + tomlKey(name),
		Msg: "not a [presets." + tomlKey(name) + "] table of its own; edit it by hand"}
}

func isComment(line string) bool {
	return strings.HasPrefix(strings.TrimSpace(line), "#")
}

// samePreset reports whether a and b have the same name, description,
// files and screenshots.
func samePreset(a, b Preset) bool {
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

// isBlank reports whether s is only spaces, tabs and line breaks (as
// config checks the paths it decodes).
func isBlank(s string) bool {
	for _, c := range s {
		if c != ' ' && c != '\t' && c != '\r' && c != '\n' {
			return false
		}
	}
	return true
}
