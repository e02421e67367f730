package atomicfile

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
)

// bg is the context of writes that are not stopped.
var bg = context.Background()

func TestWriteFileReplaces(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "out.json")
	for _, content := range []string{"first", "second, longer"} {
		if err := WriteFile(bg, p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(p)
		if err != nil || string(got) != content {
			t.Fatalf("got %q, %v; want %q", got, err, content)
		}
	}
	assertOnly(t, dir, "out.json")
}

func TestWriteFileFailureLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	// the target is a directory: the rename fails and the temp file is removed
	target := filepath.Join(dir, "taken")
	if err := os.Mkdir(target, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(target, "x"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(bg, target, []byte("data"), 0o644); err == nil {
		t.Fatal("writing over a non-empty directory succeeded")
	}
	assertOnly(t, dir, "taken")
	if err := WriteFile(bg, filepath.Join(dir, "no", "such", "dir.txt"), []byte("x"), 0o644); err == nil {
		t.Fatal("writing into a missing directory succeeded")
	}
}

func TestCreateExclusive(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "a.md")
	if err := CreateExclusive(bg, p, []byte("one"), 0o644); err != nil {
		t.Fatal(err)
	}
	err := CreateExclusive(bg, p, []byte("two"), 0o644)
	if !errors.Is(err, os.ErrExist) {
		t.Fatalf("second create: %v, want ErrExist", err)
	}
	got, _ := os.ReadFile(p)
	if string(got) != "one" {
		t.Fatalf("content %q changed", got)
	}
	assertOnly(t, dir, "a.md")
}

func TestCreateExclusiveConcurrent(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "race.md")
	var wg sync.WaitGroup
	wins := make(chan int, 16)
	for i := 0; i < 16; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			if err := CreateExclusive(bg, p, []byte(fmt.Sprintf("writer %d", i)), 0o644); err == nil {
				wins <- i
			} else if !errors.Is(err, os.ErrExist) {
				t.Error(err)
			}
		}(i)
	}
	wg.Wait()
	close(wins)
	var winners []int
	for w := range wins {
		winners = append(winners, w)
	}
	if len(winners) != 1 {
		t.Fatalf("%d writers won, want exactly 1", len(winners))
	}
	got, _ := os.ReadFile(p)
	if string(got) != fmt.Sprintf("writer %d", winners[0]) {
		t.Fatalf("content %q is not the winner's", got)
	}
	assertOnly(t, dir, "race.md")
}

func assertOnly(t *testing.T, dir string, names ...string) {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range ents {
		got = append(got, e.Name())
	}
	if fmt.Sprint(got) != fmt.Sprint(names) {
		t.Fatalf("directory holds %v, want %v", got, names)
	}
}

// -o follows a symbolic link to the file it names, keeps the mode of an
// existing file, writes devices and pipes in place, and refuses what it
// cannot replace safely.
func TestWriteFileTargets(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "real.md")
	if err := os.WriteFile(real, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.md")
	if err := os.Symlink("real.md", link); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(bg, link, []byte("new"), 0o644); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Lstat(link); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced: %v %v", st.Mode(), err)
	}
	if b, _ := os.ReadFile(real); string(b) != "new" {
		t.Errorf("the link's target holds %q", b)
	}
	if st, _ := os.Stat(real); st.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want the file's 0600 kept", st.Mode().Perm())
	}
	// a dangling link creates its target
	dangling := filepath.Join(dir, "dangling.md")
	if err := os.Symlink("made.md", dangling); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(bg, dangling, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "made.md")); string(b) != "x" {
		t.Errorf("made.md = %q", b)
	}
	// /dev/null is written in place, never replaced
	if err := WriteFile(bg, os.DevNull, []byte("discarded"), 0o644); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(os.DevNull); err != nil || st.Mode()&os.ModeCharDevice == 0 {
		t.Fatalf("/dev/null is no longer a device: %v %v", st.Mode(), err)
	}
	// a directory is refused, and nothing is left behind
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(bg, sub, []byte("x"), 0o644); err == nil {
		t.Error("a directory was written")
	}
	assertOnly(t, dir, "dangling.md", "link.md", "made.md", "real.md", "sub")
}

// A relative link is resolved from the real directory it lies in: with
// A -> real/sub and real/sub/link.md -> ../x.md, A/link.md is real/x.md.
func TestWriteFileLinkInLinkedDirectory(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "real", "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join("real", "sub"), filepath.Join(dir, "A")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../x.md", filepath.Join(dir, "real", "sub", "link.md")); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(bg, filepath.Join(dir, "A", "link.md"), []byte("through"), 0o644); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "real", "x.md")); err != nil || string(b) != "through" {
		t.Errorf("real/x.md = %q, %v", b, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "x.md")); err == nil {
		t.Error("x.md was written beside A")
	}
}

// /dev/stdout leads through /proc/self/fd/1 to whatever stdout is: a pipe
// is written in place.
func TestWriteFileDevStdoutPipe(t *testing.T) {
	if _, err := os.Stat("/dev/stdout"); err != nil {
		t.Skip("no /dev/stdout")
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	path := "/proc/self/fd/" + strconv.Itoa(int(w.Fd()))
	if _, err := os.Stat(path); err != nil {
		w.Close()
		t.Skip("no /proc/self/fd")
	}
	done := make(chan []byte)
	go func() { b, _ := io.ReadAll(r); done <- b }()
	err = WriteFile(bg, path, []byte("to the pipe"), 0o644)
	w.Close()
	if err != nil {
		t.Fatal(err)
	}
	if b := <-done; string(b) != "to the pipe" {
		t.Errorf("the pipe got %q", b)
	}
}
