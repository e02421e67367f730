package audit

import (
	"bytes"
	"strconv"
	"strings"

	"github.com/ctxaudit/ctx/internal/mdtext"
)

// writeGitHub writes one GitHub Actions workflow command per problem
// ([locator.ciFindings]: each problem once, nothing about a file that
// nobody named and that does not exist):
//
//	::warning file=AGENTS.md,line=201,title=truncated::project_agents: cut at 200 lines by budget project, 3,486 chars omitted
//
// ::error for errors, ::warning for warnings, ::notice for info; file (relative to the root)
// and line only where known. Nothing is written without findings.
func writeGitHub(b *bytes.Buffer, rep *Report, o WriteOptions) {
	l := newLocator(rep, o)
	nm := repoNames(rep, l, o.home())
	for _, lf := range l.ciFindings() {
		f, loc := lf.f, lf.loc
		cmd := map[Severity]string{Error: "error", Warning: "warning"}[f.Severity]
		if cmd == "" {
			cmd = "notice"
		}
		var props []string
		if loc.path != "" {
			props = append(props, "file="+ghProperty(loc.path))
			if loc.line > 0 {
				props = append(props, "line="+strconv.Itoa(loc.line))
			}
		}
		props = append(props, "title="+ghProperty(string(f.Code)))
		b.WriteString("::" + cmd + " " + strings.Join(props, ",") + "::" + ghData(findingText(f, nm)) + "\n")
	}
}

// located is a finding and where it points.
type located struct {
	f   Finding
	loc location
}

// ciFindings are the findings of the report for the markdown, github and
// sarif formats, each with its location: every finding but the [quiet]
// ones, and each problem once. Findings of one code with the same message
// at the same file and line (a file the agent loads by itself that is
// also a source ctx discovered, both over the per-source limit) are one,
// the first, at the highest severity among them.
func (l locator) ciFindings() []located {
	type key struct {
		path string
		line int
		code Code
		msg  string
	}
	var out []located
	at := map[key]int{}
	for _, f := range l.rep.Findings {
		if quiet(l.rep, l.ix, f) {
			continue
		}
		loc := l.locate(f)
		if loc.path == "" {
			out = append(out, located{f, loc})
			continue
		}
		k := key{loc.path, loc.line, f.Code, f.Message}
		if i, ok := at[k]; ok {
			if f.Severity.rank() > out[i].f.Severity.rank() {
				out[i].f.Severity = f.Severity
			}
			continue
		}
		at[k] = len(out)
		out = append(out, located{f, loc})
	}
	return out
}

// ciFindings are the findings of [locator.ciFindings] without their
// locations.
func ciFindings(l locator) []Finding {
	var out []Finding
	for _, lf := range l.ciFindings() {
		out = append(out, lf.f)
	}
	return out
}

// findingText is a finding's message for readers who see it alone: the
// source as nm shows it, then the message.
func findingText(f Finding, nm names) string {
	msg := f.Message
	if msg == "" {
		msg = string(f.Code)
	}
	if f.SourceID == "" {
		return msg
	}
	return nm.id(f.SourceID) + ": " + msg
}

// ghData escapes the message of a workflow command: %, CR and LF.
func ghData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(ghControls(s))
}

// ghControls escapes the control characters of s other than line breaks
// (mdtext.Escape): a name in a message never sends an escape sequence to
// the log.
func ghControls(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = mdtext.Escape(strings.TrimSuffix(l, "\r"))
		if strings.HasSuffix(l, "\r") {
			lines[i] += "\r"
		}
	}
	return strings.Join(lines, "\n")
}

// ghProperty escapes a property value of a workflow command: as ghData,
// and also ":" and ",".
func ghProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(ghControls(s))
}
