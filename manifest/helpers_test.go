package manifest_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/ctxaudit/ctx/discover"
	"github.com/ctxaudit/ctx/internal/testfs"
	"github.com/ctxaudit/ctx/manifest"
	"github.com/ctxaudit/ctx/measure"
	"github.com/ctxaudit/ctx/schemas/schematest"
)

func str(s string) *string      { return &s }
func num(f float64) *float64    { return &f }
func lim(n int64) measure.Limit { return measure.Max(n) }
func intp(n int) *int           { return &n }
func budget(name string, chars, lines measure.Limit) manifest.NamedBudget {
	return manifest.NamedBudget{Name: name, Budget: manifest.Budget{MaxChars: chars, MaxLines: lines}}
}

// project makes a symlink-free temporary project directory holding files
// (name → content; a name ending in "/" is a directory).
func project(t *testing.T, files map[string]string) string {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	testfs.Write(t, dir, files)
	return dir
}

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}

// build runs manifest.Build and checks what every manifest must satisfy: it
// validates against the schema, building again gives byte-identical JSON,
// and decoding the JSON gives back the same bytes.
func build(t *testing.T, opts manifest.Options) *manifest.Manifest {
	t.Helper()
	m, err := manifest.Build(context.Background(), opts)
	if err != nil {
		t.Fatalf("Build: %v", err)
	}
	b := encode(t, m)
	m2, err := manifest.Build(context.Background(), opts)
	if err != nil {
		t.Fatalf("second Build: %v", err)
	}
	if b2 := encode(t, m2); !bytes.Equal(b, b2) {
		t.Fatalf("building twice gives different JSON:\n%s\n%s", b, b2)
	}
	d, err := manifest.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("Decode(Marshal(m)): %v", err)
	}
	if b3 := encode(t, d); !bytes.Equal(b, b3) {
		t.Fatalf("decode round trip changes the JSON:\n%s\n%s", b, b3)
	}
	return m
}

// encode marshals m and validates it against the schema.
func encode(t *testing.T, m *manifest.Manifest) []byte {
	t.Helper()
	b, err := manifest.Marshal(m)
	if err != nil {
		t.Fatalf("Marshal: %v", err)
	}
	schematest.Manifest(t, b)
	return b
}

// opts returns options for agent "corteza" in dir with a hermetic home and
// environment, no shared file and no discovery unless changed.
func opts(dir string, extras ...discover.Extra) manifest.Options {
	return manifest.Options{Discover: discover.Options{
		Agent: "corteza", ProjectDir: dir, Home: dir + "/home", SharedMode: discover.SharedDisabled,
		NoDiscover: true, Extras: extras,
	}}
}

func text(id, kind, s string) discover.Extra {
	return discover.Extra{ID: id, Kind: kind, Text: str(s)}
}

func file(id, kind, p string) discover.Extra {
	return discover.Extra{ID: id, Kind: kind, Path: str(p)}
}

func row(t *testing.T, m *manifest.Manifest, id string) manifest.Source {
	t.Helper()
	for _, s := range m.Sources {
		if s.ID == id {
			return s
		}
	}
	t.Fatalf("no source %q in the manifest", id)
	return manifest.Source{}
}

func fragment(t *testing.T, m *manifest.Manifest, id string) string {
	t.Helper()
	f, ok := m.Fragments.Get(id)
	if !ok {
		t.Fatalf("no fragment %q", id)
	}
	return f
}

func osMkdir(p string) error { return os.Mkdir(p, 0o755) }

var noLimit measure.Limit
