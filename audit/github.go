package audit

import (
	"bytes"
	"github.com/ctxaudit/ctx/internal/mdtext"
	"strconv"
	"strings"
)

// writeGitHub writes one GitHub Actions workflow command per finding:
//
//	::warning file=AGENTS.md,line=201,title=truncated::project_agents: cut at 200 lines by budget project, 3,486 chars omitted
//
// ::error for errors, ::warning for warnings, ::notice for info; file (relative to the root)
// and line only where known. Nothing is written without findings.
func writeGitHub(b *bytes.Buffer, rep *Report, o WriteOptions) {
	l := newLocator(rep, o)
	for _, f := range rep.Findings {
		cmd := map[Severity]string{Error: "error", Warning: "warning"}[f.Severity]
		if cmd == "" {
			cmd = "notice"
		}
		var props []string
		if loc := l.locate(f); loc.path != "" {
			props = append(props, "file="+ghProperty(loc.path))
			if loc.line > 0 {
				props = append(props, "line="+strconv.Itoa(loc.line))
			}
		}
		props = append(props, "title="+ghProperty(string(f.Code)))
		b.WriteString("::" + cmd + " " + strings.Join(props, ",") + "::" + ghData(findingText(f)) + "\n")
	}
}

// findingText is a finding's message for readers who see it alone: the
// source id, then the message.
func findingText(f Finding) string {
	msg := f.Message
	if msg == "" {
		msg = string(f.Code)
	}
	if f.SourceID == "" {
		return msg
	}
	return f.SourceID + ": " + msg
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
