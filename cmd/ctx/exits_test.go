package main

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/ctxaudit/ctx/internal/testwait"
)

// stepTimeout bounds one step run by exits: a command that takes longer
// hangs.
const stepTimeout = testwait.Limit

// exitsEnv are the variables of the script that exits passes on.
var exitsEnv = []string{"PATH", "HOME", "XDG_CONFIG_HOME", "AGENTS_GLOBAL_MD", "TMPDIR", "WORK", "SYSTEMROOT", "GORACE"}

// cmdExits runs a program found in the script's PATH (ctx) in the current
// directory, with no standard input and the variables of exitsEnv, and
// checks its exit code; it fails when the program runs longer than
// stepTimeout, so that a hang fails one step, not the whole test run.
// stdout and stderr then check its output, as after exec:
// exits CODE PROG [ARG...]
func cmdExits(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: exits CODE PROG [ARG...]")
	}
	want, err := strconv.Atoi(args[0])
	ts.Check(err)
	ctx, cancel := context.WithTimeout(context.Background(), stepTimeout)
	defer cancel()
	path, err := exec.LookPath(args[1])
	if p := ts.Getenv("PATH"); err != nil || p != os.Getenv("PATH") {
		path, err = lookIn(p, args[1])
	}
	ts.Check(err)
	cmd := exec.CommandContext(ctx, path, args[2:]...)
	cmd.Args[0] = args[1]
	cmd.Dir = ts.MkAbs(".")
	for _, k := range exitsEnv {
		if v := ts.Getenv(k); v != "" {
			cmd.Env = append(cmd.Env, k+"="+v)
		}
	}
	// the settings of the stand-in agents of ctx observe
	for _, k := range []string{"FAKE_EXIT", "FAKE_OMIT", "FAKE_CUT"} {
		if v := ts.Getenv(k); v != "" {
			cmd.Env = append(cmd.Env, k+"="+v)
		}
	}
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err = cmd.Run()
	ts.Stdout().Write([]byte(stdout.String()))
	ts.Stderr().Write([]byte(stderr.String()))
	if ctx.Err() != nil {
		ts.Fatalf("%s hangs: still running after %v", strings.Join(args[1:], " "), time.Since(start).Round(time.Second))
	}
	code := 0
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		code = ee.ExitCode()
	case err != nil:
		ts.Fatalf("%v", err)
	}
	if code != want {
		ts.Fatalf("%s exited %d, want %d\nstderr: %s", strings.Join(args[1:], " "), code, want, stderr.String())
	}
}

// lookIn finds name in the directories of path.
func lookIn(path, name string) (string, error) {
	for _, d := range strings.Split(path, string(os.PathListSeparator)) {
		p := d + string(os.PathSeparator) + name
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
			return p, nil
		}
	}
	return "", exec.ErrNotFound
}
