// Package render turns a manifest into the text an agent is given.
package render

import (
	"strings"

	"github.com/ctxaudit/ctx/manifest"
)

// Separator joins the fragments of included sources.
const Separator = "\n\n"

// Text returns the fragments of the included sources, in order, then the
// text of the manifest's sections (aggregated files, chat history),
// joined by a blank line; "" when there is nothing. Fragments are emitted exactly as
// recorded, so a fragment ending in "\n" followed by the separator gives
// "\n\n\n".
func Text(m *manifest.Manifest) string {
	var parts []string
	for i, s := range m.Sources {
		if !s.Included {
			continue
		}
		if i < len(m.Fragments) {
			parts = append(parts, m.Fragments[i].Text)
		}
	}
	for _, sec := range m.Sections {
		if sec.Text != "" {
			parts = append(parts, sec.Text)
		}
	}
	return strings.Join(parts, Separator)
}
