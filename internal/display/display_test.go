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
