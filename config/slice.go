package config

import (
	"fmt"
	"strings"

	"github.com/ctxaudit/ctx/aggregate"
)

// SliceTOML renders s, for the custom_slices array of a [files] entry, as a one-line TOML inline table (TOML 1.0 inline
// tables cannot span lines).
func SliceTOML(s aggregate.Slice) string {
	parts := []string{
		fmt.Sprintf("start_line = %d", s.StartLine),
		fmt.Sprintf("end_line = %d", s.EndLine),
	}
	if s.Tag != "" {
		parts = append(parts, "tag = "+tomlString(s.Tag))
	}
	if s.Comment != "" {
		parts = append(parts, "comment = "+tomlString(s.Comment))
	}
	parts = append(parts, "content_hash = "+tomlString(s.ContentHash))
	parts = append(parts, fmt.Sprintf("anchor_lines = { before = %s, after = %s }",
		tomlStrings(s.AnchorLines.Before), tomlStrings(s.AnchorLines.After)))
	parts = append(parts, "fingerprint = "+tomlString(s.Fingerprint))
	return "{ " + strings.Join(parts, ", ") + " }"
}

// tomlString quotes s as a TOML basic string.
func tomlString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\u%04X`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

func tomlStrings(l []string) string {
	q := make([]string, len(l))
	for i, s := range l {
		q[i] = tomlString(s)
	}
	return "[" + strings.Join(q, ", ") + "]"
}
