package aggregate

import (
	"strings"

	"github.com/ctxaudit/ctx/internal/mdtext"
)

// sep joins blocks and sections.
const sep = "\n\n---\n\n"

// Separator joins the blocks of the files and the sections of the output:
// a blank line, a thematic break and a blank line.
const Separator = sep

func codeSpan(label string) string { return mdtext.CodeSpan(label) }

// OmittedHeading heads the list of the files that the token budget left
// out, the files section's last block.
const OmittedHeading = "### Omitted by the token budget"

// FilesSection renders "## {title}\n\n" and the blocks of the aggregated
// items joined by "\n\n---\n\n", then, when the token budget omitted
// files, the block [OmittedHeading] with one line per omitted file,
// "- `{label}` ({tokens} tokens)" (the file's tokens), and, when
// max_tokens had no room for all their names, the count of the others,
// "- … and 12 more files left out"; "" when no item is aggregated or
// omitted.
func FilesSection(title string, items []Item) string {
	var blocks []string
	for i := range items {
		if b := items[i].Block(); b != "" {
			blocks = append(blocks, b)
		}
	}
	if b := omittedBlock(items); b != "" {
		blocks = append(blocks, b)
	}
	if len(blocks) == 0 {
		return ""
	}
	return "## " + title + "\n\n" + strings.Join(blocks, sep)
}

// ScreenshotsSection renders "## Screenshots" with one block per
// screenshot, or "" when there are none.
func ScreenshotsSection(shots []Screenshot) string {
	if len(shots) == 0 {
		return ""
	}
	blocks := make([]string, len(shots))
	for i := range shots {
		blocks[i] = shots[i].Block()
	}
	return "## Screenshots\n\n" + strings.Join(blocks, sep)
}

// HistorySection renders "## Discussion History\n\n" + history, or "" when
// history is blank. A history that already starts with that heading is used
// as it is.
func HistorySection(history string) string {
	h := strings.TrimRight(history, "\n")
	if strings.TrimSpace(h) == "" {
		return ""
	}
	if strings.HasPrefix(h, mdtext.HistoryHeading+"\n") || h == mdtext.HistoryHeading {
		return h
	}
	return mdtext.HistoryHeading + "\n\n" + h
}

// Markdown composes the document: the files section titled title, the
// screenshots, and the chat history last (so that everything before
// it is a stable prefix), joined by "\n\n---\n\n". Empty sections are left
// out. With history "" it is the static prefix alone. [Run] adds the Beads
// section before the history ([Compose]).
func Markdown(title string, items []Item, shots []Screenshot, history string) string {
	return Compose(FilesSection(title, items), ScreenshotsSection(shots), HistorySection(history))
}

// Compose joins the sections that are not empty by "\n\n---\n\n", in
// order: files, screenshots, Beads, chat history.
func Compose(sections ...string) string {
	var parts []string
	for _, s := range sections {
		if s != "" {
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, sep)
}
