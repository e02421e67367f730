package audit

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/ctxaudit/ctx/aggregate/slice"
	"github.com/ctxaudit/ctx/internal/display"
	"github.com/ctxaudit/ctx/internal/mdtext"
	"github.com/ctxaudit/ctx/manifest"
	"github.com/ctxaudit/ctx/measure"
)

// Rule describes a finding code: what it means, in one sentence. The SARIF
// output lists them as its rules.
type Rule struct {
	Code Code
	// Summary says what a finding of the code is about.
	Summary string
}

// Rules returns every finding code with its summary, in the order the
// audit checks them: the sources' codes, the files' codes, the total.
func Rules() []Rule {
	out := make([]Rule, len(rules))
	for i, r := range rules {
		out[i] = r.Rule
	}
	return out
}

// rules is the one place where findings are put into words. Each code has
// an entry: its [Rule], what its findings are about (a source row, a file
// row or the total), and the function that writes the message of a
// finding from that row (see [about]). Messages give the numbers
// (with thousands separators) and name other rows by id and paths with the
// home directory as ~; they are one line, without a final period.
//
// To add a finding code: declare it with the others, raise it in Run, and
// add its entry here (TestEveryCodeHasAMessage fails until it has one).
var rules = []struct {
	Rule
	of      subject
	message func(a about) string
}{
	{Rule{CodeMissing, "An instruction source names a file that does not exist."}, ofSource, func(a about) string {
		if a.rep.Manifest != nil && implicit(a.rep.Manifest, a.src) {
			return a.path(a.src.Path) + " does not exist (a default location that nobody named)"
		}
		return a.path(a.src.Path) + " does not exist (named explicitly)"
	}},
	{Rule{CodeUnreadable, "An instruction source cannot be read as text."}, ofSource, unreadableMessage},
	{Rule{CodeNativeOverlap, "A source repeats one that the agent already loads natively, so ctx does not send it."}, ofSource, func(a about) string {
		return "the agent already loads " + a.related(a.f.RelatedID) + " by itself, so it is not sent again"
	}},
	{Rule{CodeSamePath, "A source is the same file as another one."}, ofSource, func(a about) string {
		return sameMessage("same file as ", a)
	}},
	{Rule{CodeSameContent, "A source has the same bytes as another one."}, ofSource, func(a about) string {
		return sameMessage("same bytes as ", a)
	}},
	{Rule{CodeShadowedByNative, "The agent deliberately skips a source for another file of the same folder, so ctx does not send it either."}, ofSource, func(a about) string {
		return "the agent skips this file for " + a.related(a.f.RelatedID) + ", so ctx does not send it either"
	}},
	{Rule{CodeAudienceExcluded, "A source is meant for other agents, so it is not sent."}, ofSource, func(a about) string {
		return "its audience is " + strings.Join(a.src.Audience, ", ") + "; the agent is " + a.rep.Agent
	}},
	{Rule{CodeNativeAudienceMismatch, "A source declared native (loaded by the agent itself) is meant for other agents."}, ofSource, func(a about) string {
		return "declared native, but its audience " + strings.Join(a.src.Audience, ", ") + " does not include the agent " + a.rep.Agent
	}},
	{Rule{CodeOversizedSource, "A source has more tokens than the per-source limit."}, ofSource, func(a about) string {
		msg := display.Plural(deref(a.src.SourceTokens), "token") + ", over " + number(a.rep.Thresholds.LayerTokens) + " per source"
		if a.rep.Thresholds.LayerTokens == measure.Max(DefaultLayerTokens) {
			// say why the default is what it is
			msg += " (ctx's default: Codex reads the first 32 KiB of a file)"
		}
		return msg
	}},
	{Rule{CodeTruncated, "A budget cut a source, so the agent is given only its start."}, ofSource, func(a about) string {
		return truncatedMessage(a.src)
	}},
	{Rule{CodeNativeEvidenceMissing, "A source declared native does not say why the agent loads it."}, ofSource, func(a about) string {
		return "declared native without evidence: name the agent's rule that loads it and where it is documented"
	}},
	{Rule{CodeOutsideProject, "A source or file was read from outside the project directory."}, ofAny, func(a about) string {
		real := display.Path(a.f.RelatedID, a.home)
		switch {
		case a.file != nil:
			return "read from outside the project: " + a.file.Path + " is " + real
		case a.src != nil && a.src.Path != "" && a.src.Path != a.src.CanonicalPath:
			return "read from outside the project: " + a.path(a.src.Path) + " is " + real
		}
		return "read from outside the project: " + real
	}},
	{Rule{CodeNULBytes, "An included source holds NUL bytes, which agents mishandle."}, ofSource, func(a about) string {
		return a.f.RelatedID + " NUL bytes are sent as they are; many agents stop reading at the first"
	}},
	{Rule{CodeAgentTruncation, "The agent itself keeps only part of an instruction file, or none of it, by its own size limit."}, ofSource, func(a about) string {
		is, pf := a.ix.profileIssue(a.f)
		if is == nil {
			return "the agent cuts this file"
		}
		kept := "none of its " + display.Plural(is.Count, "byte")
		if pf != nil && pf.LoadedBytes > 0 {
			kept = display.Int(pf.LoadedBytes) + " of " + display.Plural(pf.LoadedBytes+pf.CutBytes, "byte")
		}
		return "the agent keeps " + kept + ", " + display.Int(is.Count) + " lost: " + is.Detail
	}},
	{Rule{CodeImportCycle, "Imports of an instruction file lead back to it."}, ofSource, func(a about) string {
		if is, _ := a.ix.profileIssue(a.f); is != nil {
			return "imports loop: " + a.cycle(is.Target) + "; " + is.Detail
		}
		return "imports loop back to this file"
	}},
	{Rule{CodeImportMissing, "An import of an instruction file names a file that cannot be read."}, ofSource, func(a about) string {
		if is, _ := a.ix.profileIssue(a.f); is != nil {
			return is.Target + " cannot be read: " + is.Detail
		}
		return a.f.RelatedID + " cannot be read"
	}},
	{Rule{CodeImportTooDeep, "An import lies beyond the agent's import depth, so the agent does not load it."}, ofSource, func(a about) string {
		if is, _ := a.ix.profileIssue(a.f); is != nil {
			return is.Target + " is not loaded: " + is.Detail
		}
		return a.f.RelatedID + " is not loaded"
	}},
	{Rule{CodeOverAgentLimit, "An instruction file is over the agent's documented limit or advice."}, ofSource, func(a about) string {
		if is, _ := a.ix.profileIssue(a.f); is != nil {
			return display.Plural(is.Count, strings.TrimSuffix(is.Unit, "s")) + ", over " + display.Int(is.Limit) + ": " + is.Detail
		}
		return "over the agent's limit"
	}},
	{Rule{CodeFileError, "An aggregated file is missing, unreadable, too large, matched nothing, or its view failed."}, ofFile, func(a about) string {
		if line, _, _ := strings.Cut(a.file.Error, "\n"); line != "" {
			return line
		}
		return "the file could not be aggregated"
	}},
	{Rule{CodeFileOmitted, "The token budget of the files left a file out."}, ofFile, func(a about) string {
		return budgetMessage(a.file)
	}},
	{Rule{CodeFileDegraded, "The token budget of the files chose a cheaper view of a file."}, ofFile, func(a about) string {
		return budgetMessage(a.file)
	}},
	{Rule{CodeFileFallback, "A file's view is not supported for it, so a summary is shown."}, ofFile, func(a about) string {
		if a.file.Fallback != "" {
			return a.file.Fallback
		}
		return string(a.file.RequestedViewMode) + " view not supported; " + string(a.file.ViewMode) + " shown"
	}},
	{Rule{CodeFileTruncated, "A limit of a file's view cut it (symbols nested too deep, a view too long), so the agent is given less of it."}, ofFile, func(a about) string {
		return string(a.file.ViewMode) + " view cut: " + a.file.Truncated
	}},
	{Rule{CodeSliceOrphaned, "A custom slice of a file was not found in its current text, so it is not shown."}, ofFile, func(a about) string {
		where := "at " + a.f.RelatedID
		if s := orphan(a.file, a.f); s != nil && s.Tag != "" {
			where = strconv.Quote(s.Tag) + " (" + lines(*s) + ")"
		}
		return "custom slice " + where + " not found in the file; not shown"
	}},
	{Rule{CodeFocusUnmatched, "A Tier 3 focus matched no file, so the files it meant are not sent in full."}, ofAny, func(a about) string {
		return a.f.Message
	}},
	{Rule{CodeSecret, "A credential is in the text sent to the agent."}, ofAny, func(a about) string {
		return a.f.Message
	}},
	{Rule{CodeAttachmentUnread, "An attachment of a message sent was not read: missing, empty, or refused."}, ofAny, func(a about) string {
		return a.f.Message
	}},
	{Rule{CodeRedacted, "Credentials were replaced by [REDACTED:rule] before the text was sent."}, ofAny, func(a about) string {
		return a.f.Message
	}},
	{Rule{CodePredictionDiffers, "The agent, observed with ctx observe, sent other instruction files than ctx predicts."}, ofAny, func(a about) string {
		return a.f.Message
	}},
	{Rule{CodeObservedOverTotal, "The agent, observed with ctx observe, sent more tokens in its turn than the total limit."}, ofAny, func(a about) string {
		return a.f.Message
	}},
	{Rule{CodeOversizedTotal, "The rendered context has more tokens than the total limit."}, ofTotal, func(a about) string {
		return display.Plural(a.rep.Total.Tokens, "token") + " in total, over " + number(a.rep.Thresholds.TotalTokens)
	}},
}

// subject is what a finding is about: a source row, a file row, or the
// total.
type subject int

const (
	ofSource subject = iota
	ofFile
	ofTotal
	// ofAny: a finding whose message is written when it is raised (a
	// secret, in a source, a file or the history)
	ofAny
)

// about is what a message is written from: the finding, the report (and
// its index), and the row the finding is about (src for a source's codes, file for a
// file's; both nil for the total). home is shown as ~ in paths.
type about struct {
	f    Finding
	rep  *Report
	ix   *index
	src  *manifest.Source
	file *manifest.FileRow
	home string
}

// path shows p relative to the project when inside it, else with home as ~.
func (a about) path(p string) string { return display.Rel(p, projectOf(a.rep), a.home) }

// related names the row of id: a source by its id, a file the agent loads
// by itself ("native:" and its path) by its path, as the table shows it.
func (a about) related(id string) string {
	if p, ok := strings.CutPrefix(id, "native:"); ok && p != "" {
		return a.path(p)
	}
	return id
}

// projectOf is the project directory of the report's manifest, or "".
func projectOf(rep *Report) string {
	if rep.Manifest == nil {
		return ""
	}
	return rep.Manifest.ProjectDir
}

// cycle shows an import cycle "a → b → a" with paths relative to the
// project.
func (a about) cycle(c string) string {
	project := ""
	if a.rep.Manifest != nil {
		project = a.rep.Manifest.ProjectDir
	}
	parts := strings.Split(c, " → ")
	for i, p := range parts {
		parts[i] = display.Rel(p, project, a.home)
	}
	return strings.Join(parts, " → ")
}

// message writes the message of f, or returns f.Message when its code
// is not in [rules] or the report lacks its row (a message the caller
// wrote). Names in a written message come from the repository (imports,
// paths, a stored manifest's details), so it is escaped (mdtext.Escape,
// which leaves a message already escaped as it is) before it reaches a
// table, an annotation or JSON.
func message(rep *Report, ix *index, f Finding, home string) string {
	src, file := ix.rowOf(f)
	for _, r := range rules {
		if r.Code != f.Code {
			continue
		}
		if r.of == ofSource && src == nil || r.of == ofFile && file == nil {
			return f.Message
		}
		return mdtext.Escape(r.message(about{f: f, rep: rep, ix: ix, src: src, file: file, home: home}))
	}
	return f.Message
}

// withMessages returns a copy of the findings of rep with their messages
// written for home.
func withMessages(rep *Report, home string) []Finding {
	out := make([]Finding, len(rep.Findings))
	ix := newIndex(rep)
	for i, f := range rep.Findings {
		f.Message = message(rep, ix, f, home)
		out[i] = f
	}
	return out
}

// processHome is the home directory shown as ~ in the messages of [Run].
func processHome() string {
	h, _ := os.UserHomeDir()
	return h
}

// unreadableMessage says that a source cannot be read and why, when the
// manifest was built here ([manifest.Manifest.ReadError]): "AGENTS.md
// cannot be read: permission denied".
func unreadableMessage(a about) string {
	if m := a.rep.Manifest; m != nil {
		if cause := m.ReadError(a.src.ID); cause != "" {
			return a.path(a.src.Path) + " cannot be read: " + cause
		}
	}
	return a.path(a.src.Path) + " cannot be read as text (a directory, a special file, a read error, over the size limit, or not UTF-8)"
}

// UnreadableWarnings returns what `ctx render`, `ctx manifest` and the
// other commands that build a context say on stderr about the
// instruction sources of m that could not be read, one message each: the
// message of their unreadable finding ("AGENTS.md cannot be read:
// permission denied"), with paths relative to the project and home as ~.
// Such a source is not sent; the run goes on, and ctx audit --check fails
// on the finding.
func UnreadableWarnings(m *manifest.Manifest, home string) []string {
	var out []string
	rep := &Report{Manifest: m}
	for i := range m.Sources {
		if s := &m.Sources[i]; s.Status == manifest.StatusUnreadable {
			out = append(out, mdtext.Escape(unreadableMessage(about{rep: rep, src: s, home: home})))
		}
	}
	return out
}

func sameMessage(prefix string, a about) string {
	s := a.src
	switch {
	case s.DuplicateOf != "":
		return prefix + a.related(s.DuplicateOf) + ", so not sent again"
	case a.f.Severity == Warning:
		return prefix + a.related(a.f.RelatedID) + "; the agent loads both"
	}
	return prefix + a.related(a.f.RelatedID)
}

// truncatedMessage says where a budget cut s, by which limit, and what it
// left out.
func truncatedMessage(s *manifest.Source) string {
	omitted := display.Plural(s.OmittedChars, "char") + " omitted"
	unit, limit := cutBy(s)
	if s.OmittedTokens != nil && (unit == "token" || *s.OmittedTokens > 0 && s.OmittedChars == 0) {
		omitted = display.Plural(*s.OmittedTokens, "token") + " (" + display.Plural(s.OmittedChars, "char") + ") omitted"
	}
	if deref(s.EmittedChars) == 0 {
		left := ""
		if unit != "" {
			left = " (" + display.Plural(limit, unit) + " left)"
		}
		return "left out: budget " + s.Budget + " was used up" + left + ", " + omitted
	}
	if unit == "" {
		return "cut by budget " + s.Budget + ", " + omitted
	}
	return "cut at " + display.Plural(limit, unit) + " by budget " + s.Budget + ", " + omitted
}

// cutBy names the limit that cut s: "line", "char" or "token" with its
// value (what was left of the budget's pool), or "" when the manifest does
// not tell. Lines are cut first, then characters, then tokens, so a row
// that has exactly the lines left was cut by lines unless it also has
// exactly the characters left; a token cut (at a token boundary) leaves
// fewer lines and characters than their limits.
func cutBy(s *manifest.Source) (string, int) {
	ml, lset := s.MaxLines.Value()
	mc, cset := s.MaxChars.Value()
	mt, tset := s.MaxTokens.Value()
	el, ec := deref(s.EmittedLines), deref(s.EmittedChars)
	switch {
	case lset && ml <= 0:
		return "line", int(ml)
	case cset && mc <= 0:
		return "char", int(mc)
	case tset && mt <= 0:
		return "token", int(mt)
	case lset && int64(el) == ml && !(cset && int64(ec) == mc):
		return "line", int(ml)
	case cset && int64(ec) == mc:
		return "char", int(mc)
	case tset:
		return "token", int(mt)
	case lset:
		return "line", int(ml)
	}
	return "", 0
}

func budgetMessage(r *manifest.FileRow) string {
	steps := r.Degraded
	if steps == "" {
		steps = string(r.Status)
	}
	return "token budget: " + steps + "; " + display.Int(r.EmittedTokens) + " of " + itoaSep(r.SourceTokens) + " tokens sent"
}

// orphan is the orphaned slice of r that f (slice_orphaned) is about: by
// tag, or by its recorded lines when untagged.
func orphan(r *manifest.FileRow, f Finding) *manifest.SliceRow {
	for i, s := range r.Slices {
		if s.Resolution == slice.ResolutionOrphaned && (s.Tag != "" && s.Tag == f.RelatedID || s.Tag == "" && lines(s) == f.RelatedID) {
			return &r.Slices[i]
		}
	}
	return nil
}

func lines(s manifest.SliceRow) string { return fmt.Sprintf("lines %d-%d", s.StartLine, s.EndLine) }

func deref(p *int) int {
	if p == nil {
		return 0
	}
	return *p
}

// number shows a threshold with thousands separators, or inf.
func number(l measure.Limit) string {
	n, ok := l.Value()
	if !ok {
		return "inf"
	}
	return display.Int(int(n))
}

// itoaSep is a size for people: thousands separators, "-" for none.
func itoaSep(p *int) string {
	if p == nil {
		return "-"
	}
	return display.Int(*p)
}
