package aggregate

import "strings"

// sep joins blocks and sections.
const sep = "\n\n---\n\n"

// codeSpan renders label as one inline code span: in single backticks,
// or, when it holds backticks, in a longer run (padded with spaces when
// the label starts or ends with one), so that the heading stays intact.
func codeSpan(label string) string {
	longest, run := 0, 0
	for i := 0; i < len(label); i++ {
		if label[i] == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	if longest == 0 {
		return "`" + label + "`"
	}
	ticks := strings.Repeat("`", longest+1)
	if strings.HasPrefix(label, "`") || strings.HasSuffix(label, "`") {
		label = " " + label + " "
	}
	return ticks + label + ticks
}

// historyHeading starts the discussion history section.
const historyHeading = "## Discussion History"

// FilesSection renders "## {title}\n\n" and the blocks of the aggregated
// items joined by "\n\n---\n\n", or "" when no item is aggregated.
func FilesSection(title string, items []Item) string {
	var blocks []string
	for i := range items {
		if b := items[i].Block(); b != "" {
			blocks = append(blocks, b)
		}
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
	if strings.HasPrefix(h, historyHeading+"\n") || h == historyHeading {
		return h
	}
	return historyHeading + "\n\n" + h
}

// Markdown composes the document: the files section titled title, the
// screenshots, and the discussion history last (so that everything before
// it is a stable prefix), joined by "\n\n---\n\n". Empty sections are left
// out. With history "" it is the static prefix alone.
func Markdown(title string, items []Item, shots []Screenshot, history string) string {
	var parts []string
	for _, s := range []string{FilesSection(title, items), ScreenshotsSection(shots), HistorySection(history)} {
		if s != "" {
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, sep)
}
