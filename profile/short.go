package profile

import (
	"path/filepath"
	"strings"
)

// ShortCondition says in a few words when the agent of the chain loads f,
// for a cell of a narrow table; "" for a file loaded in every session:
//
//   - "in its folder" (or "in DIR/" for a file imported from elsewhere):
//     a subfolder's file, loaded when the agent works there (Claude Code's
//     subtree, Gemini CLI's just-in-time files, the nested AGENTS.md of
//     Codex, Copilot and Cursor);
//   - "applyTo GLOBS", "globs GLOBS", "paths GLOBS": the files the
//     frontmatter names (Copilot, Cursor, Claude Code's rules);
//   - "on request" (a Cursor rule with a description that the agent
//     chooses to read), "manual" (only when mentioned).
//
// f.Condition says the same in full.
func (c *Chain) ShortCondition(f File) string {
	cond := f.Condition
	if cond == "" {
		return ""
	}
	for _, prefix := range []string{"applyTo: ", "globs: ", "paths: "} {
		if v, ok := strings.CutPrefix(cond, prefix); ok {
			return strings.TrimSuffix(prefix, ": ") + " " + v
		}
	}
	switch {
	case strings.HasPrefix(cond, "agent-requested"):
		return "on request"
	case strings.HasPrefix(cond, "manual"):
		return "manual"
	}
	for _, r := range rulesOf(c.Profile, Options{}) {
		if !r.lazy {
			continue
		}
		when := r.lazyWhen
		if when == "" {
			when = "a tool touches %s"
		}
		before, after, _ := strings.Cut(when, "%s")
		dir, ok := strings.CutPrefix(cond, before)
		dir, ok2 := strings.CutSuffix(dir, after)
		if !ok || !ok2 || !strings.HasSuffix(dir, "/") {
			continue
		}
		if strings.HasSuffix(filepath.ToSlash(filepath.Dir(f.Path))+"/", "/"+dir) {
			return "in its folder"
		}
		return "in " + dir
	}
	return cond
}
