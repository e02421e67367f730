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

func TestRelInDir(t *testing.T) {
	for _, tc := range []struct{ p, dir, home, want string }{
		{"/h/u/p/AGENTS.md", "/h/u/p", "/h/u", "AGENTS.md"},
		{"/h/u/p/docs/a.md", "/h/u/p/", "/h/u", "docs/a.md"},
		{"/h/u/p", "/h/u/p", "/h/u", "."},
		{"/h/u/px/a.md", "/h/u/p", "/h/u", "~/px/a.md"},
		{"/h/u/.config/agents/GLOBAL.md", "/h/u/p", "/h/u", "~/.config/agents/GLOBAL.md"},
		{"/etc/agents.md", "/h/u/p", "/h/u", "/etc/agents.md"},
		{"rel.md", "/h/u/p", "/h/u", "rel.md"},
		{"/h/u/p/a.md", "", "/h/u", "~/p/a.md"},
	} {
		if got := Rel(tc.p, tc.dir, tc.home); got != tc.want {
			t.Errorf("Rel(%q, %q, %q) = %q, want %q", tc.p, tc.dir, tc.home, got, tc.want)
		}
	}
}

func TestInt(t *testing.T) {
	for n, want := range map[int]string{0: "0", 7: "7", 999: "999", 1000: "1,000", 8639: "8,639", 123456: "123,456",
		1234567: "1,234,567", -1: "-1", -1234: "-1,234", -123456: "-123,456"} {
		if got := Int(n); got != want {
			t.Errorf("Int(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestPlural(t *testing.T) {
	for _, tc := range []struct {
		n    int
		noun string
		want string
	}{
		{0, "file", "0 files"},
		{1, "file", "1 file"},
		{2, "file", "2 files"},
		{1234, "token", "1,234 tokens"},
		{1, "entry", "1 entry"},
		{2, "entry", "2 entries"},
		{2, "more entry", "2 more entries"},
		{2, "key", "2 keys"},
		{2, "day", "2 days"},
		{-1, "byte", "-1 bytes"},
	} {
		if got := Plural(tc.n, tc.noun); got != tc.want {
			t.Errorf("Plural(%d, %q) = %q, want %q", tc.n, tc.noun, got, tc.want)
		}
	}
	if got := Count(3, "file not read", "files not read"); got != "3 files not read" {
		t.Errorf("Count = %q", got)
	}
}
