package display

import (
	"os"
	"path/filepath"
	"testing"
)

func TestPath(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "real-home")
	link := filepath.Join(dir, "home")
	if err := os.Mkdir(real, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ p, home, want string }{
		{"/h/u/a.md", "/h/u", "~/a.md"},
		{"/h/u", "/h/u/", "~"},
		{"/h/user2/a.md", "/h/u", "/h/user2/a.md"},
		{"/a.md", "/", "/a.md"},
		{"/a.md", "", "/a.md"},
		{link + "/p/AGENTS.md", link, "~/p/AGENTS.md"},
		{real + "/p/AGENTS.md", link, "~/p/AGENTS.md"},
	} {
		if got := Path(tc.p, tc.home); got != tc.want {
			t.Errorf("Path(%q, %q) = %q, want %q", tc.p, tc.home, got, tc.want)
		}
	}
}

func TestRel(t *testing.T) {
	for _, tc := range []struct{ p, want string }{
		{"/h/u/repo/svc/AGENTS.md", "AGENTS.md"},
		{"/h/u/repo/svc", "."},
		{"/h/u/repo/AGENTS.md", "../AGENTS.md"},
		{"/h/u/x.md", "~/x.md"},
		{"/h/u/repo/README.md", "../README.md"},
		{"/h/x.md", "/h/x.md"},
		{"/h/u/repo/svc/../svc/a.md", "a.md"},
		{"/other/a.md", "/other/a.md"},
		{"/h/u/.config/agents/GLOBAL.md", "~/.config/agents/GLOBAL.md"},
	} {
		if got := Rel(tc.p, "/h/u/repo/svc", "/h/u"); got != tc.want {
			t.Errorf("Rel(%q) = %q, want %q", tc.p, got, tc.want)
		}
	}
	if got := ID("native:/h/u/repo/svc/AGENTS.md", "/h/u/repo/svc", "/h/u"); got != "native:AGENTS.md" {
		t.Errorf("ID = %q", got)
	}
}
