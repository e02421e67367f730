package manifest_test

import (
	"reflect"
	"testing"

	"github.com/ctxaudit/ctx/discover"
	"github.com/ctxaudit/ctx/manifest"
)

// decision is what the reference decides about one row.
type decision struct {
	ID       string
	Status   manifest.Status
	Included bool
	Reason   manifest.Reason
	Dup      string          // duplicate_of
	Equiv    string          // equivalent_to
	How      manifest.Reason // equivalence
	Audience bool            // audience_matches
}

func decisions(m *manifest.Manifest) []decision {
	var out []decision
	for _, s := range m.Sources {
		out = append(out, decision{s.ID, s.Status, s.Included, s.Reason, s.DuplicateOf, s.EquivalentTo, s.Equivalence, s.AudienceMatches})
	}
	return out
}

func inc(id string) decision {
	return decision{ID: id, Status: "available", Included: true, Reason: "included", Audience: true}
}

// projectOpts discovers AGENTS.md and CLAUDE.md in dir (no shared file).
func projectOpts(dir string) manifest.Options {
	o := opts(dir)
	o.Discover.NoDiscover = false
	return o
}

// TestFallback covers project_claude against every state of AGENTS.md.
func TestFallback(t *testing.T) {
	t.Parallel()
	const claude = "claude rules\n"
	tests := []struct {
		name    string
		agents  *string // nil: no AGENTS.md file
		setup   func(t *testing.T, dir string)
		natives []string
		want    []decision
	}{
		{
			name: "available AGENTS.md wins", agents: str("agents rules\n"),
			want: []decision{inc("project_agents"), {ID: "project_claude", Status: "available", Reason: "fallback_not_selected", Audience: true}},
		},
		{
			name: "empty", agents: str(""),
			want: []decision{{ID: "project_agents", Status: "empty", Reason: "empty", Audience: true}, inc("project_claude")},
		},
		{
			name: "whitespace only", agents: str(" \t\r\n\n  "),
			want: []decision{{ID: "project_agents", Status: "empty", Reason: "empty", Audience: true}, inc("project_claude")},
		},
		{
			name: "form feed is content", agents: str("\f"),
			want: []decision{inc("project_agents"), {ID: "project_claude", Status: "available", Reason: "fallback_not_selected", Audience: true}},
		},
		{
			name: "no-break space is content", agents: str("\u00a0\n"),
			want: []decision{inc("project_agents"), {ID: "project_claude", Status: "available", Reason: "fallback_not_selected", Audience: true}},
		},
		{
			name: "missing",
			want: []decision{{ID: "project_agents", Status: "missing", Reason: "missing", Audience: true}, inc("project_claude")},
		},
		{
			name: "not UTF-8", agents: str("caf\xe9\n"),
			want: []decision{{ID: "project_agents", Status: "unreadable", Reason: "unreadable", Audience: true}, inc("project_claude")},
		},
		{
			name: "a directory",
			setup: func(t *testing.T, dir string) {
				if err := osMkdir(dir + "/AGENTS.md"); err != nil {
					t.Fatal(err)
				}
			},
			want: []decision{{ID: "project_agents", Status: "unreadable", Reason: "unreadable", Audience: true}, inc("project_claude")},
		},
		{
			name: "a symlink to CLAUDE.md",
			setup: func(t *testing.T, dir string) {
				symlink(t, "CLAUDE.md", dir+"/AGENTS.md")
			},
			want: []decision{inc("project_agents"),
				{ID: "project_claude", Status: "available", Reason: "same_path", Dup: "project_agents", Equiv: "project_agents", How: "same_path", Audience: true}},
		},
		{
			name: "a copy of CLAUDE.md", agents: str(claude),
			want: []decision{inc("project_agents"),
				{ID: "project_claude", Status: "available", Reason: "same_content", Dup: "project_agents", Equiv: "project_agents", How: "same_content", Audience: true}},
		},
		{
			// AGENTS.md is suppressed, yet it still blocks the fallback
			name: "declared native", agents: str("agents rules\n"), natives: []string{"AGENTS.md"},
			want: []decision{
				{ID: "native:AGENTS", Status: "available", Reason: "native_autoload", Audience: true},
				{ID: "project_agents", Status: "available", Reason: "native_autoload", Dup: "native:AGENTS", Equiv: "native:AGENTS", How: "same_path", Audience: true},
				{ID: "project_claude", Status: "available", Reason: "fallback_not_selected", Audience: true},
			},
		},
		{
			name: "declared native and empty", agents: str(""), natives: []string{"AGENTS.md"},
			want: []decision{
				{ID: "native:AGENTS", Status: "empty", Reason: "native_autoload", Audience: true},
				{ID: "project_agents", Status: "empty", Reason: "native_autoload", Dup: "native:AGENTS", Equiv: "native:AGENTS", How: "same_path", Audience: true},
				inc("project_claude"),
			},
		},
		{
			name: "declared native and missing", natives: []string{"AGENTS.md"},
			want: []decision{
				{ID: "native:AGENTS", Status: "missing", Reason: "native_autoload", Audience: true},
				{ID: "project_agents", Status: "missing", Reason: "native_autoload", Dup: "native:AGENTS", Equiv: "native:AGENTS", How: "same_path", Audience: true},
				inc("project_claude"),
			},
		},
		{
			name: "CLAUDE.md declared native", agents: str("agents rules\n"), natives: []string{"CLAUDE.md"},
			want: []decision{
				{ID: "native:CLAUDE", Status: "available", Reason: "native_autoload", Audience: true},
				inc("project_agents"),
				{ID: "project_claude", Status: "available", Reason: "native_autoload", Dup: "native:CLAUDE", Equiv: "native:CLAUDE", How: "same_path", Audience: true},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			files := map[string]string{"CLAUDE.md": claude}
			if tt.agents != nil {
				files["AGENTS.md"] = *tt.agents
			}
			dir := project(t, files)
			if tt.setup != nil {
				tt.setup(t, dir)
			}
			o := projectOpts(dir)
			o.Discover.NativePaths = tt.natives
			m := build(t, o)
			got := decisions(m)
			for i := range got {
				got[i].ID = shortNative(got[i].ID, dir)
				got[i].Dup = shortNative(got[i].Dup, dir)
				got[i].Equiv = shortNative(got[i].Equiv, dir)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("decisions =\n%+v\nwant\n%+v", got, tt.want)
			}
		})
	}
}

// shortNative turns "native:<dir>/AGENTS.md" into "native:AGENTS".
func shortNative(id, dir string) string {
	switch id {
	case "native:" + dir + "/AGENTS.md":
		return "native:AGENTS"
	case "native:" + dir + "/CLAUDE.md":
		return "native:CLAUDE"
	}
	return id
}

// TestDecisions covers natives, audiences, duplicates and equivalence.
func TestDecisions(t *testing.T) {
	t.Parallel()
	native := func(id, p string, order float64, aud ...string) discover.Extra {
		e := discover.Extra{ID: id, Kind: "native", Path: str(p), Delivery: "native", Order: num(order), Audience: aud, NativeEvidence: "test"}
		return e
	}
	withAud := func(e discover.Extra, aud ...string) discover.Extra { e.Audience = aud; return e }
	withDelivery := func(e discover.Extra, d discover.Delivery) discover.Extra { e.Delivery = d; return e }
	tests := []struct {
		name    string
		files   map[string]string
		setup   func(t *testing.T, dir string)
		natives []string
		extras  []discover.Extra
		want    []decision
	}{
		{
			name:   "a native later in the order suppresses an earlier duplicate",
			files:  map[string]string{"a.md": "A"},
			extras: []discover.Extra{file("early", "note", "a.md"), native("late", "./a.md", 10)},
			want: []decision{
				{ID: "early", Status: "available", Reason: "native_autoload", Dup: "late", Audience: true},
				{ID: "late", Status: "available", Reason: "native_autoload", Equiv: "early", How: "same_path", Audience: true},
			},
		},
		{
			name:   "a native suppresses the same bytes at another path",
			files:  map[string]string{"n.md": "same\n", "copy.md": "same\n"},
			extras: []discover.Extra{native("n", "n.md", 1), file("copy", "note", "copy.md"), text("t", "note", "same\n")},
			want: []decision{
				{ID: "n", Status: "available", Reason: "native_autoload", Audience: true},
				{ID: "copy", Status: "available", Reason: "native_autoload", Dup: "n", Equiv: "n", How: "same_content", Audience: true},
				{ID: "t", Status: "available", Reason: "native_autoload", Dup: "n", Equiv: "n", How: "same_content", Audience: true},
			},
		},
		{
			name:   "a missing native suppresses its path, before the source's own status",
			extras: []discover.Extra{native("n", "gone.md", 1), file("same", "note", "gone.md"), file("other", "note", "./gone.md")},
			want: []decision{
				{ID: "n", Status: "missing", Reason: "native_autoload", Audience: true},
				{ID: "same", Status: "missing", Reason: "native_autoload", Dup: "n", Equiv: "n", How: "same_path", Audience: true},
				// a missing file is not canonicalised: another spelling is another path
				{ID: "other", Status: "missing", Reason: "missing", Audience: true},
			},
		},
		{
			name:   "a missing native cannot establish content equality",
			files:  map[string]string{"empty.md": ""},
			extras: []discover.Extra{native("n", "gone.md", 1), text("t", "note", ""), file("e", "note", "empty.md"), text("x", "note", "x")},
			want: []decision{
				{ID: "n", Status: "missing", Reason: "native_autoload", Audience: true},
				{ID: "t", Status: "empty", Reason: "empty", Audience: true},
				{ID: "e", Status: "empty", Reason: "empty", Equiv: "t", How: "same_content", Audience: true},
				inc("x"),
			},
		},
		{
			name:   "an unreadable native suppresses its path but not equal bytes",
			files:  map[string]string{"bad.md": "\xff\xfe", "bad2.md": "\xff\xfe"},
			setup:  func(t *testing.T, dir string) { symlink(t, "bad.md", dir+"/link.md") },
			extras: []discover.Extra{native("n", "bad.md", 1), file("link", "note", "link.md"), file("bad2", "note", "bad2.md")},
			want: []decision{
				{ID: "n", Status: "unreadable", Reason: "native_autoload", Audience: true},
				{ID: "link", Status: "unreadable", Reason: "native_autoload", Dup: "n", Equiv: "n", How: "same_path", Audience: true},
				{ID: "bad2", Status: "unreadable", Reason: "unreadable", Audience: true},
			},
		},
		{
			name:   "an empty native establishes content equality",
			extras: []discover.Extra{discover.Extra{ID: "n", Kind: "native", Text: str(" \n"), Delivery: "native"}, text("t", "note", " \n")},
			want: []decision{
				{ID: "n", Status: "empty", Reason: "native_autoload", Audience: true},
				{ID: "t", Status: "empty", Reason: "native_autoload", Dup: "n", Equiv: "n", How: "same_content", Audience: true},
			},
		},
		{
			// path is checked first over all natives: the later native wins
			name:  "native same path beats an earlier native with the same content",
			files: map[string]string{"p.md": "x"},
			extras: []discover.Extra{
				{ID: "n1", Kind: "native", Text: str("x"), Delivery: "native"},
				native("n2", "p.md", 2),
				file("c", "note", "p.md"),
			},
			want: []decision{
				{ID: "n1", Status: "available", Reason: "native_autoload", Audience: true},
				{ID: "n2", Status: "available", Reason: "native_autoload", Equiv: "n1", How: "same_content", Audience: true},
				{ID: "c", Status: "available", Reason: "native_autoload", Dup: "n2", Equiv: "n2", How: "same_path", Audience: true},
			},
		},
		{
			name:  "audience: star, agent name, other agents; natives too",
			files: map[string]string{"a.md": "A"},
			extras: []discover.Extra{
				withAud(text("star", "note", "1"), "*"),
				withAud(text("named", "note", "2"), "codex", "corteza"),
				withAud(text("other", "note", "3"), "codex"),
				native("n-other", "a.md", 4, "codex"),
				file("a", "note", "a.md"),
				native("n-named", "nn.md", 6, "corteza"),
			},
			want: []decision{
				inc("star"), inc("named"),
				{ID: "other", Status: "available", Reason: "audience_excluded"},
				{ID: "n-other", Status: "available", Reason: "audience_excluded"},
				// the excluded native suppresses nothing
				{ID: "a", Status: "available", Included: true, Reason: "included", Equiv: "n-other", How: "same_path", Audience: true},
				{ID: "n-named", Status: "missing", Reason: "native_autoload", Audience: true},
			},
		},
		{
			name:   "an excluded source is excluded before its status",
			extras: []discover.Extra{withAud(file("gone", "note", "gone.md"), "codex")},
			want:   []decision{{ID: "gone", Status: "missing", Reason: "audience_excluded"}},
		},
		{
			name:   "hook delivery behaves as consumer",
			extras: []discover.Extra{withDelivery(text("h", "note", "x"), "hook"), withDelivery(text("c", "note", "x"), "consumer")},
			want: []decision{inc("h"),
				{ID: "c", Status: "available", Reason: "same_content", Dup: "h", Equiv: "h", How: "same_content", Audience: true}},
		},
		{
			name:   "same_path and same_content among accepted sources",
			files:  map[string]string{"a.md": "A\n", "b.md": "A\n"},
			extras: []discover.Extra{file("a", "note", "a.md"), file("b", "note", "b.md"), file("a2", "note", "./a.md"), text("t", "note", "A\n")},
			want: []decision{
				inc("a"),
				{ID: "b", Status: "available", Reason: "same_content", Dup: "a", Equiv: "a", How: "same_content", Audience: true},
				{ID: "a2", Status: "available", Reason: "same_path", Dup: "a", Equiv: "a", How: "same_path", Audience: true},
				{ID: "t", Status: "available", Reason: "same_content", Dup: "a", Equiv: "a", How: "same_content", Audience: true},
			},
		},
		{
			// duplicate_of looks at accepted rows only; equivalent_to at every
			// earlier row, path first
			name:   "equivalence against all earlier rows whatever their decision",
			files:  map[string]string{"f.md": "x"},
			extras: []discover.Extra{text("a", "note", "x"), file("b", "note", "f.md"), file("c", "note", "./f.md")},
			want: []decision{
				inc("a"),
				{ID: "b", Status: "available", Reason: "same_content", Dup: "a", Equiv: "a", How: "same_content", Audience: true},
				{ID: "c", Status: "available", Reason: "same_content", Dup: "a", Equiv: "b", How: "same_path", Audience: true},
			},
		},
		{
			name:   "equivalence of missing files by path",
			extras: []discover.Extra{file("m1", "note", "m.md"), file("m2", "note", "m.md"), file("m3", "note", "./m.md")},
			want: []decision{
				{ID: "m1", Status: "missing", Reason: "missing", Audience: true},
				{ID: "m2", Status: "missing", Reason: "missing", Equiv: "m1", How: "same_path", Audience: true},
				// a missing file is not canonicalised: ./m.md is another path
				{ID: "m3", Status: "missing", Reason: "missing", Audience: true},
			},
		},
		{
			name:   "text sources never share a path",
			extras: []discover.Extra{text("a", "note", "x"), text("b", "note", "y")},
			want:   []decision{inc("a"), inc("b")},
		},
		{
			name:    "a native from native_paths suppresses a discovered-like extra",
			files:   map[string]string{"N.md": "n"},
			natives: []string{"N.md"},
			extras:  []discover.Extra{file("n", "note", "N.md")},
			want: []decision{
				{ID: "native:N", Status: "available", Reason: "native_autoload", Audience: true},
				{ID: "n", Status: "available", Reason: "native_autoload", Dup: "native:N", Equiv: "native:N", How: "same_path", Audience: true},
			},
		},
		{
			name:   "fallback by id with discovery off",
			extras: []discover.Extra{text("project_agents", "project", "a"), text("project_claude", "project", "c")},
			want:   []decision{inc("project_agents"), {ID: "project_claude", Status: "available", Reason: "fallback_not_selected", Audience: true}},
		},
		{
			name:   "fallback checks status only: an excluded AGENTS still blocks",
			extras: []discover.Extra{withAud(text("project_agents", "project", "a"), "codex"), text("project_claude", "project", "c")},
			want: []decision{{ID: "project_agents", Status: "available", Reason: "audience_excluded"},
				{ID: "project_claude", Status: "available", Reason: "fallback_not_selected", Audience: true}},
		},
		{
			name:   "an empty text source",
			extras: []discover.Extra{text("e", "note", ""), text("w", "note", "\r\n\t ")},
			want: []decision{{ID: "e", Status: "empty", Reason: "empty", Audience: true},
				{ID: "w", Status: "empty", Reason: "empty", Audience: true}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := project(t, tt.files)
			if tt.setup != nil {
				tt.setup(t, dir)
			}
			o := opts(dir, tt.extras...)
			o.Discover.NativePaths = tt.natives
			m := build(t, o)
			got := decisions(m)
			for i := range got {
				for _, p := range []*string{&got[i].ID, &got[i].Dup, &got[i].Equiv} {
					if *p == "native:"+dir+"/N.md" {
						*p = "native:N"
					}
				}
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("decisions =\n%+v\nwant\n%+v", got, tt.want)
			}
		})
	}
}
