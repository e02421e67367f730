package slice

import (
	"fmt"
	"strings"

	"github.com/ctxaudit/ctx/internal/tomlenc"
)

// TOML renders s, for the custom_slices array of a [files] entry, as a
// one-line TOML inline table (TOML 1.0 inline tables cannot span lines), as
// `ctx slice add` prints it and ctx preset writes it.
func (s Slice) TOML() string {
	parts := []string{
		fmt.Sprintf("start_line = %d", s.StartLine),
		fmt.Sprintf("end_line = %d", s.EndLine),
	}
	if s.Tag != "" {
		parts = append(parts, "tag = "+tomlenc.String(s.Tag))
	}
	if s.Comment != "" {
		parts = append(parts, "comment = "+tomlenc.String(s.Comment))
	}
	parts = append(parts, "content_hash = "+tomlenc.String(s.ContentHash))
	parts = append(parts, fmt.Sprintf("anchor_lines = { before = %s, after = %s }",
		tomlenc.Strings(s.AnchorLines.Before), tomlenc.Strings(s.AnchorLines.After)))
	parts = append(parts, "fingerprint = "+tomlenc.String(s.Fingerprint))
	return "{ " + strings.Join(parts, ", ") + " }"
}
