package atomicfile

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

func TestWriteFileReplaces(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "out.json")
	for _, content := range []string{"first", "second, longer"} {
		if err := WriteFile(p, []byte(content), 0o644); err != nil {
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
	if err := WriteFile(target, []byte("data"), 0o644); err == nil {
		t.Fatal("writing over a non-empty directory succeeded")
	}
	assertOnly(t, dir, "taken")
	if err := WriteFile(filepath.Join(dir, "no", "such", "dir.txt"), []byte("x"), 0o644); err == nil {
		t.Fatal("writing into a missing directory succeeded")
	}
}

func TestCreateExclusive(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "a.md")
	if err := CreateExclusive(p, []byte("one"), 0o644); err != nil {
		t.Fatal(err)
	}
	err := CreateExclusive(p, []byte("two"), 0o644)
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
			if err := CreateExclusive(p, []byte(fmt.Sprintf("writer %d", i)), 0o644); err == nil {
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
