// Package tomlenc writes TOML values: the strings and lists of strings
// that ctx prints for people to paste into ctx.toml and writes into the
// user's presets file.
package tomlenc

import (
	"fmt"
	"strings"
)

// String quotes s as a TOML basic string.
func String(s string) string {
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

// Strings is l as a one-line TOML array of basic strings.
func Strings(l []string) string {
	q := make([]string, len(l))
	for i, s := range l {
		q[i] = String(s)
	}
	return "[" + strings.Join(q, ", ") + "]"
}
