package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/rogpeppe/go-internal/testscript"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"go.uber.org/goleak"

	"github.com/ctxaudit/ctx/audit"
	"github.com/ctxaudit/ctx/observe"
	"github.com/ctxaudit/ctx/schemas/schematest"

	"github.com/ctxaudit/ctx/internal/goldenfile"
	"github.com/ctxaudit/ctx/internal/testlane"
)

// sarifSchema is the SARIF schema the audit package vendors for its tests.
var sarifSchema, _ = filepath.Abs(filepath.Join("..", "..", "audit", "testdata", "sarif-schema-2.1.0.json"))

// TestMain registers the ctx command for the scripts: `exec ctx ...` runs
// execute() in a subprocess of this test binary. The tests fail when a
// goroutine outlives them.
func TestMain(m *testing.M) {
	testscript.Main(leakCheck{m}, map[string]func(){
		"ctx": func() {
			// the progress test shortens the wait before the bar shows
			if d, err := time.ParseDuration(os.Getenv("CTX_TEST_PROGRESS_AFTER")); err == nil {
				progressAfter = d
			}
			os.Exit(execute(os.Args, os.Stdin, os.Stdout, os.Stderr))
		},
		// stand-ins for the agents, for ctx observe
		"claude": fakeAgent("claude"),
		"codex":  fakeAgent("codex"),
		"gemini": fakeAgent("gemini"),
	})
}

// leakCheck runs the tests, then fails them when goroutines are left.
type leakCheck struct{ m *testing.M }

func (l leakCheck) Run() int {
	// the tests that run ctx with this process's environment keep their
	// cache of views to themselves, not in the user's cache directory
	dir, err := os.MkdirTemp("", "ctx-test-cache-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	os.Setenv("CTX_CACHE_DIR", dir)
	code := l.m.Run()
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintf(os.Stderr, "goleak: goroutines outlive the tests: %v\n", err)
			return 1
		}
	}
	return code
}

// TestScripts runs cmd/ctx/testdata/script/*.txtar. Set CTX_UPDATE=1 to
// rewrite the golden files in the scripts from the actual output.
func TestScripts(t *testing.T) {
	testlane.Heavy(t, "runs ctx as a process hundreds of times")
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		UpdateScripts:       goldenfile.Update(),
		RequireExplicitExec: true,
		RequireUniqueNames:  true,
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"unwork":           cmdUnwork,
			"validmanifest":    cmdValidManifest,
			"maxwidth":         cmdMaxWidth,
			"validsarif":       cmdValidSARIF,
			"mkfifo":           cmdMkfifo,
			"exits":            cmdExits,
			"filemode":         cmdFileMode,
			"validobservation": cmdValidObservation,
			"repeat":           cmdRepeat,
			"mkrepo":           cmdMkrepo,
			"maxtokens":        cmdMaxTokens,
		},
		Setup: func(e *testscript.Env) error {
			// a hermetic home, and no shared file from the developer's machine
			e.Setenv("HOME", e.WorkDir+"/home")
			e.Setenv("XDG_CONFIG_HOME", e.WorkDir+"/home/.config")
			e.Setenv("AGENTS_GLOBAL_MD", "")
			// the cache lives beside the work directory, not in the project
			// that most scripts make of it (the test's root removes it)
			e.Setenv("XDG_CACHE_HOME", e.WorkDir+".cache")
			// a ctx built with -race sleeps a second before it exits
			// (GORACE atexit_sleep_ms): a second for every ctx a script runs
			e.Setenv("GORACE", strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0"))
			return os.MkdirAll(e.WorkDir+"/home", 0o755)
		},
	})
}

// cmdUnwork rewrites files in place, replacing the script's work directory
// with the literal text $WORK so that goldens do not depend on it:
// unwork FILE...
func cmdUnwork(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) == 0 {
		ts.Fatalf("usage: unwork FILE...")
	}
	work := ts.Getenv("WORK")
	real, err := filepath.EvalSymlinks(work)
	ts.Check(err)
	for _, f := range args {
		p := ts.MkAbs(f)
		data, err := os.ReadFile(p)
		ts.Check(err)
		s := strings.ReplaceAll(string(data), real, "$WORK")
		s = strings.ReplaceAll(s, work, "$WORK")
		ts.Check(os.WriteFile(p, []byte(s), 0o644))
	}
}

// cmdRepeat writes a file made of another repeated, for inputs too large
// to keep in a script: repeat N SRC DST.
func cmdRepeat(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: repeat N SRC DST")
	}
	n, err := strconv.Atoi(args[0])
	ts.Check(err)
	b, err := os.ReadFile(ts.MkAbs(args[1]))
	ts.Check(err)
	ts.Check(os.WriteFile(ts.MkAbs(args[2]), bytes.Repeat(b, n), 0o644))
}

// cmdFileMode checks the permission bits of a file: filemode FILE MODE
// (octal).
func cmdFileMode(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: filemode FILE MODE")
	}
	st, err := os.Stat(ts.MkAbs(args[0]))
	ts.Check(err)
	want, err := strconv.ParseUint(args[1], 8, 32)
	ts.Check(err)
	if got := st.Mode().Perm(); got != os.FileMode(want) {
		ts.Fatalf("%s has mode %#o, want %#o", args[0], got, want)
	}
}

// cmdValidObservation checks observation records against their JSON
// Schema, and that the segments of each request add up to its bytes:
// validobservation FILE...
func cmdValidObservation(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) == 0 {
		ts.Fatalf("usage: validobservation FILE...")
	}
	for _, f := range args {
		data := []byte(ts.ReadFile(f))
		ts.Check(schematest.CheckObservation(data))
		rec, err := observe.Decode(data)
		ts.Check(err)
		for _, q := range rec.Requests {
			sum := 0
			for _, s := range q.Segments {
				sum += s.Bytes
			}
			if sum != q.Bytes {
				ts.Fatalf("%s: request %d: the segments add up to %d bytes, the request is %d", f, q.Seq, sum, q.Bytes)
			}
		}
	}
}

// cmdMkfifo makes named pipes (FIFOs), which a script on a system without
// them skips: mkfifo PATH...
func cmdMkfifo(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) == 0 {
		ts.Fatalf("usage: mkfifo PATH...")
	}
	for _, p := range args {
		ts.Check(mkfifo(ts.MkAbs(p)))
	}
}

// cmdValidManifest checks files against the manifest JSON Schema:
// validmanifest FILE...
func cmdValidManifest(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) == 0 {
		ts.Fatalf("usage: validmanifest FILE...")
	}
	for _, f := range args {
		err := schematest.CheckManifest([]byte(ts.ReadFile(f)))
		if neg && err == nil {
			ts.Fatalf("%s is a valid manifest", f)
		}
		if !neg && err != nil {
			ts.Fatalf("%s: %v", f, err)
		}
	}
}

// cmdMaxWidth checks that no line of the files is wider than N terminal
// columns (runes: the outputs checked hold no wide characters):
// maxwidth N FILE...
func cmdMaxWidth(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: maxwidth N FILE...")
	}
	n, err := strconv.Atoi(args[0])
	ts.Check(err)
	for _, f := range args[1:] {
		for i, line := range strings.Split(ts.ReadFile(f), "\n") {
			if w := utf8.RuneCountInString(line); w > n {
				ts.Fatalf("%s:%d is %d columns wide, over %d: %q", f, i+1, w, n, line)
			}
		}
	}
}

// cmdValidSARIF checks files against the official SARIF 2.1.0 schema
// (audit/testdata/sarif-schema-2.1.0.json): validsarif FILE...
func cmdValidSARIF(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) == 0 {
		ts.Fatalf("usage: validsarif FILE...")
	}
	f, err := os.Open(sarifSchema)
	ts.Check(err)
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	ts.Check(err)
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	ts.Check(c.AddResource(audit.SARIFSchema, doc))
	schema, err := c.Compile(audit.SARIFSchema)
	ts.Check(err)
	for _, name := range args {
		inst, err := jsonschema.UnmarshalJSON(strings.NewReader(ts.ReadFile(name)))
		ts.Check(err)
		if err := schema.Validate(inst); err != nil {
			ts.Fatalf("%s is not valid SARIF 2.1.0: %v", name, err)
		}
	}
}
