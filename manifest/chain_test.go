package manifest_test

import (
	"os"
	"reflect"
	"testing"

	"github.com/ctxaudit/ctx/discover"
)

// TestDiscoveredChain builds the whole discovered chain: the shared file
// found under HOME, the project files and the workspace files.
func TestDiscoveredChain(t *testing.T) {
	dir := project(t, map[string]string{
		"home/.config/agents/GLOBAL.md": "global prefs\n",
		"proj/AGENTS.md":                "agents\n",
		"proj/CLAUDE.md":                "claude\n",
		"ws/USER.md":                    "global prefs\n", // same bytes as the shared file
		"ws/SOUL.md":                    "soul\n",
		"env.md":                        "from env\n",
	})
	t.Setenv("HOME", dir+"/home")
	t.Setenv("AGENTS_GLOBAL_MD", "")
	o := opts(dir + "/proj")
	o.Discover.NoDiscover = false
	o.Discover.SharedMode = discover.SharedUnset
	o.Discover.Home = os.Getenv("HOME")
	o.Discover.Getenv = os.Getenv
	o.Discover.WorkspaceDir = "../ws"
	m := build(t, o)
	want := []decision{
		inc("shared"), inc("project_agents"),
		{ID: "project_claude", Status: "available", Reason: "fallback_not_selected", Audience: true},
		{ID: "workspace_user", Status: "available", Reason: "same_content", Dup: "shared", Equiv: "shared", How: "same_content", Audience: true},
		inc("workspace_soul"),
	}
	if got := decisions(m); !reflect.DeepEqual(got, want) {
		t.Errorf("decisions =\n%+v\nwant\n%+v", got, want)
	}
	s := row(t, m, "shared")
	if s.RequestedPath != "~/.config/agents/GLOBAL.md" || s.Path != dir+"/home/.config/agents/GLOBAL.md" ||
		s.CanonicalPath != s.Path || s.Scope != "global" || s.Kind != "shared" {
		t.Errorf("shared row = %+v", s)
	}
	if u := row(t, m, "workspace_user"); u.Path != dir+"/proj/../ws/USER.md" || u.CanonicalPath != dir+"/ws/USER.md" || u.Kind != "shared" {
		t.Errorf("workspace_user row = %+v", u)
	}
	if s := row(t, m, "workspace_soul"); s.Kind != "identity" || s.Scope != dir+"/ws" {
		t.Errorf("workspace_soul row = %+v", s)
	}

	// AGENTS_GLOBAL_MD, relative to the project directory
	t.Setenv("AGENTS_GLOBAL_MD", "../env.md")
	m = build(t, o)
	if s := row(t, m, "shared"); s.RequestedPath != "../env.md" || s.CanonicalPath != dir+"/env.md" || !s.Included {
		t.Errorf("shared from AGENTS_GLOBAL_MD = %+v", s)
	}
}
