package aggregate_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctxaudit/ctx/aggregate"
	"github.com/ctxaudit/ctx/internal/testfs"
	"github.com/ctxaudit/ctx/internal/testlane"
)

// deepChain makes a chain of depth directories named "d" below dir,
// through os.Root (openat), so that no path the test uses is longer than
// the system allows, and writes name with text at its bottom and at
// level 10 (when depth reaches it).
func deepChain(t *testing.T, dir string, depth int, name, text string) {
	t.Helper()
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= depth; i++ {
		if err := root.Mkdir("d", 0o755); err != nil {
			t.Fatal(err)
		}
		sub, err := root.OpenRoot("d")
		root.Close()
		if err != nil {
			t.Fatal(err)
		}
		root = sub
		if i == 10 || i == depth {
			if err := root.WriteFile(name, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	root.Close()
}

// A walk stops at MaxWalkDepth: the directory where it stops is an error
// item that names it and says why, for ctx aggregate and ctx stats alike,
// and the files above it are read as usual. (Each run has a 30 s deadline:
// before, a tree too deep for the system to name spent longer on git's
// rules, and failed.)
func TestDeepTreeWalkStops(t *testing.T) { checkDeepWalk(t, aggregate.MaxWalkDepth+44) }

// The same with a directory 3,000 levels deep, deeper than the system lets
// a path name, below a .gitignore. Before, the walk spent 40 s of CPU on
// git's rules and then failed the run on a .gitignore whose name was too
// long.
func TestVeryDeepTreeWalkStops(t *testing.T) {
	testlane.Slow(t, "a tree 3,000 directories deep (most of the time goes to removing it)")
	checkDeepWalk(t, 3000)
}

func checkDeepWalk(t *testing.T, depth int) {
	dir := testfs.Tree(t, map[string]string{"a.py": "a = 1\n", ".gitignore": "*.log\n"})
	deepChain(t, dir, depth, "leaf.py", "leaf = 1\n")
	stop := strings.Repeat("d/", aggregate.MaxWalkDepth) + "d"
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	items, err := aggregate.BuildItems(ctx, aggregate.Options{BaseDir: dir}.OrProject())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	var stopped *aggregate.Item
	for i, it := range items {
		got = append(got, strings.ReplaceAll(it.Path, strings.Repeat("d/", 10), "d/…/"))
		if it.Path == stop {
			stopped = &items[i]
		}
	}
	if len(items) != 4 || stopped == nil {
		t.Fatalf("items %v, want .gitignore, a.py, d/…/leaf.py and the directory where the walk stopped", got)
	}
	want := "not walked: more than 256 directories deep"
	if stopped.Status != aggregate.StatusError || !strings.Contains(stopped.Error, want) {
		t.Errorf("the directory where the walk stopped: status %s, error %q, want %q", stopped.Status, stopped.Error, want)
	}
	if w := stopped.Warnings(); len(w) != 1 || !strings.HasPrefix(w[0], stop+": ") {
		t.Errorf("its warning %q does not name it", w)
	}

	files, _, err := aggregate.MeasureFiles(ctx, aggregate.Options{BaseDir: dir}.OrProject())
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, f := range files {
		if f.Path == stop && strings.Contains(f.Error, want) {
			found = true
		}
	}
	if len(files) != 4 || !found {
		t.Errorf("stats: %d files, the directory where the walk stopped found: %v", len(files), found)
	}
}

// A walk stops, too, at a directory whose path (or that of the .gitignore
// in it) would be longer than the system allows, at any depth: 20 levels
// of 250-byte names.
func TestLongPathWalkStops(t *testing.T) {
	dir := testfs.Tree(t, map[string]string{"a.py": "a = 1\n"})
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	name := strings.Repeat("n", 250)
	rel := ""
	for range 20 {
		rel = filepath.Join(rel, name)
		if err := root.Mkdir(rel, 0o755); err != nil {
			t.Skipf("%v", err) // a system whose root limits the length too
		}
	}
	root.Close()
	items, err := aggregate.BuildItems(context.Background(), aggregate.Options{BaseDir: dir, Files: []aggregate.FileItem{{Path: "**"}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(items) != 2 || items[0].Path != "a.py" || !strings.Contains(items[1].Error, "not walked: its path would be longer than") {
		for _, it := range items {
			t.Logf("%.60s…: %s", it.Path, it.Error)
		}
		t.Fatalf("%d items, want a.py and the directory where the walk stopped", len(items))
	}
}

// A directory that cannot be read (mode 000) below a glob or a walk is an
// error item, "cannot read directory X: permission denied", for ctx
// aggregate and ctx stats alike, never a silent gap; the rest is read.
func TestUnreadableDirectoryReported(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root reads every directory")
	}
	dir := testfs.Tree(t, map[string]string{"a.py": "a = 1\n", "locked/b.py": "b = 1\n", "open/c.py": "c = 1\n"})
	locked := filepath.Join(dir, "locked")
	if err := os.Chmod(locked, 0); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(locked, 0o755) })
	want := "cannot read directory locked: permission denied"
	for _, entry := range []string{".", "**/*.py", "locked"} {
		items, err := aggregate.BuildItems(context.Background(), aggregate.Options{BaseDir: dir, Files: []aggregate.FileItem{{Path: entry}}})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, it := range items {
			got = append(got, it.Path+" "+it.Error)
		}
		switch entry {
		case "locked":
			if len(items) != 1 || items[0].Error != want {
				t.Errorf("%s: got %q, want %q", entry, got, want)
			}
		default:
			if len(items) != 3 || items[0].Path != "a.py" || items[1].Path != "locked" || items[1].Error != want || items[2].Path != "open/c.py" {
				t.Errorf("%s: got %q, want a.py, locked (%s) and open/c.py", entry, got, want)
			}
		}
	}
	files, _, err := aggregate.MeasureFiles(context.Background(), aggregate.Options{BaseDir: dir}.OrProject())
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 3 || files[1].Path != "locked" || files[1].Error != want {
		t.Errorf("stats: %+v", files)
	}
}
