package audit

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/ctxaudit/ctx/internal/display"
	"github.com/ctxaudit/ctx/manifest"
)

// GroupAbove is how many findings of one code and severity the table and
// markdown formats list one by one: more than that are one row with their
// count, what they have in common and a few examples ("560 files sent in a
// cheaper view by the token budget; largest: ..."), in the place of the
// first of them. [WriteOptions.Details] lists every finding; the JSON,
// github and sarif formats always do.
const GroupAbove = 3

// findingRow is a row of the findings of the table and markdown formats:
// one finding (n 1), or a group of n.
type findingRow struct {
	f       Finding // the finding, or the first of the group
	n       int
	subject string // what the row is about, as people see it
	message string
}

// findingRows are the rows of the findings fs of rep for people: with
// group, more than GroupAbove findings of one code and severity are folded
// into one row; else each finding is a row.
func findingRows(rep *Report, fs []Finding, nm names, group bool) []findingRow {
	var rows []findingRow
	if !group {
		for _, f := range fs {
			rows = append(rows, findingRow{f: f, n: 1, subject: subjectOf(f, nm), message: f.Message})
		}
		return rows
	}
	ix := newIndex(rep)
	type key struct {
		code Code
		sev  Severity
	}
	groups := map[key][]Finding{}
	for _, f := range fs {
		k := key{f.Code, f.Severity}
		groups[k] = append(groups[k], f)
	}
	done := map[key]bool{}
	for _, f := range fs {
		k := key{f.Code, f.Severity}
		g := groups[k]
		if len(g) <= GroupAbove {
			rows = append(rows, findingRow{f: f, n: 1, subject: subjectOf(f, nm), message: f.Message})
			continue
		}
		if done[k] {
			continue
		}
		done[k] = true
		rows = append(rows, findingRow{f: f, n: len(g), subject: "×" + display.Int(len(g)), message: groupMessage(rep, ix, g, nm)})
	}
	return rows
}

// quiet reports whether f is about a file that nobody named and that does
// not exist (the shared file, AGENTS.md or CLAUDE.md at their default
// locations): a normal state, which only the JSON document and --details
// list (and --fail-on info counts). The sources table shows its row as
// missing all the same.
//
// So is the size of a source that is not sent because it is another
// source that is (same_path, same_content): the size is reported once, for
// the source that is sent.
func quiet(rep *Report, ix *index, f Finding) bool {
	if rep.Manifest == nil {
		return false
	}
	src, _ := ix.rowOf(f)
	switch {
	case src == nil:
		return false
	case f.Code == CodeOversizedSource:
		return src.DuplicateOf != "" && (src.Reason == manifest.ReasonSamePath || src.Reason == manifest.ReasonSameContent)
	}
	return f.Code == CodeMissing && f.Severity == Info && implicit(rep.Manifest, src)
}

// subjectOf shows what f is about: its source's id, "file:" and a file's
// path, or "(total)".
func subjectOf(f Finding, nm names) string {
	if f.SourceID == "" {
		return "(total)"
	}
	return nm.id(f.SourceID)
}

// groupMessage says what the findings g (one code, more than GroupAbove)
// have in common, with their count, and names a few of them: the largest
// files, else the first subjects.
func groupMessage(rep *Report, ix *index, g []Finding, nm names) string {
	noun := "finding"
	var files []*manifest.FileRow
	sources := 0
	for _, f := range g {
		src, file := ix.rowOf(f)
		switch {
		case file != nil:
			files = append(files, file)
		case src != nil:
			sources++
		}
	}
	switch {
	case len(files) == len(g):
		noun = "file"
	case sources == len(g):
		noun = "source"
	}
	what := groupPhrase(g[0].Code, len(g), noun, rep)
	var examples []string
	seen := map[string]bool{}
	if len(files) == len(g) {
		byTokens := slices.Clone(files)
		slices.SortStableFunc(byTokens, func(a, b *manifest.FileRow) int { return cmp.Compare(deref(b.SourceTokens), deref(a.SourceTokens)) })
		for _, r := range byTokens {
			if len(examples) == GroupAbove {
				break
			}
			if name := nm.id(fileID(*r)); !seen[name] {
				seen[name] = true
				examples = append(examples, strings.TrimPrefix(name, "file:")+" ("+tokensOf(r)+")")
			}
		}
		return what + "; largest: " + strings.Join(examples, ", ") + "; --details lists each"
	}
	for _, f := range g {
		if len(examples) == GroupAbove {
			break
		}
		if name := subjectOf(f, nm); !seen[name] {
			seen[name] = true
			examples = append(examples, name)
		}
	}
	return what + "; e.g. " + strings.Join(examples, ", ") + "; --details lists each"
}

// tokensOf is a file's tokens for people: "6,289 tokens", or "no tokens"
// when the manifest does not know them.
func tokensOf(r *manifest.FileRow) string {
	if r.SourceTokens == nil {
		return "no tokens"
	}
	return display.Plural(*r.SourceTokens, "token")
}

// groupPhrase says what n findings of code have in common, starting with
// their count: "560 files sent in a cheaper view by the token budget".
// noun is what they are about (file, source or finding).
func groupPhrase(code Code, n int, noun string, rep *Report) string {
	many := display.Plural(n, noun)
	switch code {
	case CodeMissing:
		return many + " that do not exist"
	case CodeUnreadable:
		return many + " that cannot be read as text"
	case CodeNativeOverlap:
		return many + " that the agent already loads by itself, so not sent again"
	case CodeSamePath:
		return many + " that are the same file as another source"
	case CodeSameContent:
		return many + " with the same bytes as another source"
	case CodeShadowedByNative:
		return many + " that the agent skips for another file of their folder, so not sent"
	case CodeAudienceExcluded:
		return many + " meant for other agents, so not sent"
	case CodeNativeAudienceMismatch:
		return many + " declared native but meant for other agents"
	case CodeOversizedSource:
		return many + " over " + number(rep.Thresholds.LayerTokens) + " tokens per source"
	case CodeTruncated:
		return many + " cut by a budget"
	case CodeNativeEvidenceMissing:
		return many + " declared native without evidence"
	case CodeOutsideProject:
		return many + " read from outside the project"
	case CodeNULBytes:
		return many + " with NUL bytes, at which many agents stop reading"
	case CodeAgentTruncation:
		return many + " that the agent cuts by its own size limit"
	case CodeImportCycle:
		return display.Plural(n, "import cycle")
	case CodeImportMissing:
		return display.Plural(n, "import") + " of files that cannot be read"
	case CodeImportTooDeep:
		return display.Plural(n, "import") + " beyond the agent's import depth, not loaded"
	case CodeOverAgentLimit:
		return many + " over the agent's documented limit or advice"
	case CodeFileError:
		return many + " that could not be aggregated"
	case CodeFileOmitted:
		return many + " left out by the token budget"
	case CodeFileDegraded:
		return many + " sent in a cheaper view by the token budget"
	case CodeFileFallback:
		return many + " shown as a summary: their view is not supported for them"
	case CodeFileTruncated:
		return many + " cut by a limit of their view"
	case CodeSliceOrphaned:
		return display.Plural(n, "custom slice") + " not found in their file, so not shown"
	case CodeFocusUnmatched:
		return fmt.Sprintf("%s Tier 3 focuses that matched no file", display.Int(n))
	case CodeSecret:
		return display.Plural(n, "credential") + " in the text sent (never shown here)"
	case CodeAttachmentUnread:
		return display.Plural(n, "attachment") + " not read"
	case CodeRedacted:
		return display.Plural(n, "redaction") + " of credentials, replaced by [REDACTED:rule]"
	case CodePredictionDiffers:
		return display.Plural(n, "file") + " the observed agent sent otherwise than predicted"
	}
	return display.Plural(n, "finding") + " of " + string(code)
}

// peopleFindings are the findings the table lists: with details all of
// them, else all but the [quiet] ones.
// The wide table (wide) keeps ctx 0.1's rows: the size of a source that
// is another is listed there too.
func peopleFindings(rep *Report, details, wide bool) []Finding {
	if details {
		return rep.Findings
	}
	ix := newIndex(rep)
	return slices.DeleteFunc(slices.Clone(rep.Findings), func(f Finding) bool {
		return quiet(rep, ix, f) && !(wide && f.Code == CodeOversizedSource)
	})
}

// FilesShown is how many aggregated files the table and markdown formats
// list when there are more: those that send the most tokens, in their
// order, and a line that counts the others by status.
// [WriteOptions.Details] lists every file.
const FilesShown = 20

// shownFiles returns the file rows of m the table lists (all of them with
// details or when there are at most FilesShown) and, when some are left
// out, the line that says what they are; "" otherwise.
func shownFiles(m *manifest.Manifest, details bool) ([]manifest.FileRow, string) {
	if details || len(m.Files) <= FilesShown {
		return m.Files, ""
	}
	order := make([]int, len(m.Files))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(m.Files[b].EmittedTokens, m.Files[a].EmittedTokens) })
	keep := order[:FilesShown]
	slices.Sort(keep)
	rows := make([]manifest.FileRow, 0, FilesShown)
	for _, i := range keep {
		rows = append(rows, m.Files[i])
	}
	statuses := map[string]int{}
	var names []string
	for _, r := range m.Files {
		st := string(r.Status)
		if statuses[st] == 0 {
			names = append(names, st)
		}
		statuses[st]++
	}
	slices.SortStableFunc(names, func(a, b string) int { return cmp.Compare(statuses[b], statuses[a]) })
	parts := make([]string, len(names))
	for i, st := range names {
		parts[i] = display.Int(statuses[st]) + " " + st
	}
	return rows, fmt.Sprintf("The %d files that send the most tokens, of %s: %s (--details lists every file)",
		FilesShown, display.Int(len(m.Files)), strings.Join(parts, ", "))
}
