package presets

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ctxaudit/ctx/aggregate"
	"github.com/ctxaudit/ctx/internal/tomlenc"
)

// TOML renders p as a [presets.NAME] table: its description, its
// files one entry a line (a path, or an inline table with the entry's
// settings, [FileItemTOML]) and its screenshots when set. Decoded again,
// it gives the same preset.
func TOML(p Preset) string {
	var b strings.Builder
	fmt.Fprintf(&b, "[presets.%s]\n", tomlKey(p.Name))
	if p.Description != "" {
		b.WriteString("description = " + tomlenc.String(p.Description) + "\n")
	}
	b.WriteString("files = [\n")
	for _, f := range p.Files {
		b.WriteString("  " + FileItemTOML(f) + ",\n")
	}
	b.WriteString("]\n")
	if p.ScreenshotsSet {
		b.WriteString("screenshots = " + tomlenc.Strings(p.Screenshots) + "\n")
	}
	return b.String()
}

// FileItemTOML renders f as an element of a files or paths array: its
// path as a string when it has no other setting, else a one-line inline
// table with the settings ([FileItemSettings]).
func FileItemTOML(f aggregate.FileItem) string {
	settings := FileItemSettings(f)
	if len(settings) == 0 {
		return tomlenc.String(f.Path)
	}
	return "{ path = " + tomlenc.String(f.Path) + ", " + strings.Join(settings, ", ") + " }"
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
		out = append(out, "view_mode = "+tomlenc.String(string(f.ViewMode)))
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
			parts[i] = tomlKey(k) + " = " + tomlenc.String(string(f.ASTMask[k]))
		}
		out = append(out, "ast_mask = { "+strings.Join(parts, ", ")+" }")
	}
	if len(f.CustomSlices) > 0 {
		parts := make([]string, len(f.CustomSlices))
		for i, s := range f.CustomSlices {
			parts[i] = s.TOML()
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
	if k != "" && CheckName(k) == nil {
		return k
	}
	return tomlenc.String(k)
}
