package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// ctx report on this repository writes a small page; a bad stored manifest
// is an input error (exit 2, ctx: error:) and writes nothing.
func TestReportExitCodes(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "own.html")
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"ctx", "report", "-C", "../..", "-o", out}, nil, &stdout, &stderr); code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(data) > 200_000 || !bytes.Contains(data, []byte(`data-id="project_agents"`)) {
		t.Errorf("the page of this repository: %d bytes", len(data))
	}

	// a name with control characters is written as it is, and said escaped
	stdout.Reset()
	odd := filepath.Join(dir, "odd\x1b[31m.html")
	if code := run(context.Background(), []string{"ctx", "report", "-C", "../..", "-o", odd}, nil, &stdout, &stderr); code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if _, err := os.Stat(odd); err != nil || !strings.HasPrefix(stdout.String(), "wrote "+filepath.Dir(odd)+"/odd\\x1b[31m.html (") {
		t.Errorf("%v; stdout %q", err, stdout.String())
	}

	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte(`{"schema_version": 2}`), 0o644); err != nil {
		t.Fatal(err)
	}
	stdout.Reset()
	stderr.Reset()
	page := filepath.Join(dir, "bad.html")
	if code := run(context.Background(), []string{"ctx", "report", "--manifest", bad, "-o", page}, nil, &stdout, &stderr); code != exitUsage {
		t.Errorf("a bad manifest: exit %d, want %d", code, exitUsage)
	}
	if !strings.HasPrefix(stderr.String(), "ctx: error: "+bad+": expected a version 1 manifest") || stdout.Len() > 0 {
		t.Errorf("stdout %q, stderr %q", stdout.String(), stderr.String())
	}
	if _, err := os.Stat(page); !os.IsNotExist(err) {
		t.Errorf("a failed run wrote %s: %v", page, err)
	}
}
