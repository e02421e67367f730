package audit

import (
	"path/filepath"
	"strings"

	"github.com/ctxaudit/ctx/discover"
	"github.com/ctxaudit/ctx/manifest"

	"github.com/ctxaudit/ctx/internal/display"
	"github.com/ctxaudit/ctx/internal/mdtext"
)

// names shows the rows of a report to people: every path through one
// function (relative to the project in the table, to the repository in the
// markdown, github and sarif formats), and every source by an id that is
// unique and readable. A file the agent loads by itself has the id
// "native:" and its path in the manifest (absolute, or relative in a
// relative manifest); it is shown by its path alone
// ("packages/api/CLAUDE.md"), or with "native:" in front when that path is
// also the id of another source.
type names struct {
	path func(p string) string
	// literal shows every id as it is (escaped), "native:" and the
	// absolute path too: the wide table, as ctx 0.1 printed it
	literal bool
	ids     map[string]string // source id → the id shown
	// native marks the ids shown as a path: their path cell would repeat
	// them
	native map[string]bool
}

func newNames(rep *Report, path func(string) string) names {
	n := names{path: path, ids: map[string]string{}, native: map[string]bool{}}
	// a native's id: "native:" and its path, absolute, or as a relative
	// manifest records it
	native := func(s manifest.Source) (string, bool) {
		p, ok := strings.CutPrefix(s.ID, "native:")
		return p, ok && p != "" && (filepath.IsAbs(p) || s.Delivery == discover.DeliveryNative)
	}
	taken := map[string]bool{}
	for _, s := range rep.Sources {
		if _, ok := native(s); !ok {
			taken[s.ID] = true
		}
	}
	for _, s := range rep.Sources {
		if _, done := n.ids[s.ID]; done {
			continue
		}
		p, ok := native(s)
		if !ok {
			n.ids[s.ID] = mdtext.Escape(s.ID)
			continue
		}
		shown := mdtext.Escape(p)
		if filepath.IsAbs(p) {
			shown = path(p)
		}
		if taken[shown] {
			shown = "native:" + shown
		} else {
			n.native[s.ID] = true
		}
		taken[shown] = true
		n.ids[s.ID] = shown
	}
	return n
}

// isNativeID reports whether id is the id discover gives a native: "native:"
// and an absolute path.
func isNativeID(id string) bool {
	p, ok := strings.CutPrefix(id, "native:")
	return ok && filepath.IsAbs(p)
}

// id shows the id of a finding's subject: a source as [newNames] shows it,
// a file row by "file:" and its path label, anything else as it is.
func (n names) id(id string) string {
	if n.literal {
		return mdtext.Escape(id)
	}
	if s, ok := n.ids[id]; ok {
		return s
	}
	if isNativeID(id) {
		return n.path(strings.TrimPrefix(id, "native:"))
	}
	return mdtext.Escape(id)
}

// related shows the related id of a finding: a source's id or a path as
// the other cells show them, anything else (a rule, a count) as it is.
func (n names) related(rel string) string {
	if !n.literal && strings.HasPrefix(rel, "/") {
		return n.path(rel)
	}
	return n.id(rel)
}

// literalNames shows ids as they are and paths with home as ~.
func literalNames(home string) names {
	return names{path: func(p string) string { return display.Path(p, home) }, literal: true}
}

// tableNames shows paths relative to the project directory, home as ~.
func tableNames(rep *Report, home string) names {
	return newNames(rep, func(p string) string { return display.Rel(p, projectOf(rep), home) })
}

// repoNames shows paths relative to the repository root of l, else with
// home as ~: what a pull request or a code-scanning alert names.
func repoNames(rep *Report, l locator, home string) names {
	return newNames(rep, func(p string) string {
		if r := l.rel(p); r != "" {
			return mdtext.Escape(r)
		}
		return display.Path(p, home)
	})
}
