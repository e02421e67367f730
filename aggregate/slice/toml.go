package slice

import (
	"fmt"
	"strings"

	"github.com/ctxaudit/ctx/internal/tomlenc"
)

// TOML renders s, for the custom_slices array of a [files] entry, as a
// one-line TOML inline table (TOML 1.0 inline tables cannot span lines), as
// `ctx slice add` prints it and ctx preset writes it. What is empty is
// left out, so that the table decodes again to the same slice, in either
// shape of anchor_lines.
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
	if s.ContentHash != "" {
		parts = append(parts, "content_hash = "+tomlenc.String(s.ContentHash))
	}
	if s.HashAlgorithm != "" {
		parts = append(parts, "hash_algorithm = "+tomlenc.String(s.HashAlgorithm))
	}
	switch a := s.AnchorLines; {
	case a.Context != nil:
		// Manual Slop's shape, a list, kept as it was written
		parts = append(parts, "anchor_lines = "+tomlenc.Strings(a.Context))
	case a.Before != nil || a.After != nil:
		parts = append(parts, fmt.Sprintf("anchor_lines = { before = %s, after = %s }",
			tomlenc.Strings(a.Before), tomlenc.Strings(a.After)))
	}
	if s.Fingerprint != "" {
		parts = append(parts, "fingerprint = "+tomlenc.String(s.Fingerprint))
	}
	return "{ " + strings.Join(parts, ", ") + " }"
}
