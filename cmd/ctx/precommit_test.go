package main

import (
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ctxaudit/ctx/internal/testlane"
)

// TestPreCommitHooks runs the hooks of .pre-commit-hooks.yaml for real,
// with the pre-commit program, in a scratch repository: ctx-audit passes on
// a healthy repository with no ctx.toml and ctx-verify on its committed
// manifest; both fail once an instruction file grows past its budget
// (ctx-verify because the file no longer matches the manifest). pre-commit installs ctx from
// this repository's last commit (language golang), so the test checks the
// committed hook definition, as a user's pre-commit would.
//
// It is skipped when pre-commit or git is not installed (.ci/run installs
// Debian's pre-commit), or with -short: the first run builds ctx.
func TestPreCommitHooks(t *testing.T) {
	testlane.Program(t, "runs pre-commit, which builds ctx from the repository")
	for _, tool := range []string{"pre-commit", "git", "go"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed (Debian: apt-get install pre-commit); the pre-commit hooks are not tested", tool)
		}
	}
	repo, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	rev := strings.TrimSpace(sh(t, repo, nil, "git", "rev-parse", "HEAD"))
	if _, err := os.Stat(filepath.Join(repo, ".pre-commit-hooks.yaml")); err != nil {
		t.Fatal(err)
	}
	modcache := strings.TrimSpace(sh(t, repo, nil, "go", "env", "GOMODCACHE"))
	gocache := strings.TrimSpace(sh(t, repo, nil, "go", "env", "GOCACHE"))

	dir := t.TempDir()
	env := []string{
		"PRE_COMMIT_HOME=" + filepath.Join(dir, "cache"),
		// reuse the module and build caches: pre-commit gives golang hooks
		// their own GOPATH
		"GOMODCACHE=" + modcache, "GOCACHE=" + gocache, "GOFLAGS=-mod=mod",
		"HOME=" + filepath.Join(dir, "home"), "AGENTS_GLOBAL_MD=",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com",
	}
	work := filepath.Join(dir, "work")
	if err := os.MkdirAll(filepath.Join(dir, "home"), 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(name, text string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(filepath.Join(work, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(work, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("AGENTS.md", "# Agents\nRun the tests before you commit.\n")
	write("main.go", "package main\n")
	write(".pre-commit-config.yaml", "repos:\n  - repo: "+repo+"\n    rev: "+rev+"\n    hooks:\n      - id: ctx-audit\n      - id: ctx-verify\n")
	manifestOf := func() {
		t.Helper()
		var stderr strings.Builder
		args := []string{"ctx", "manifest", "--relative", "-C", work, "-o", filepath.Join(work, "ctx.manifest.json")}
		if code := run(context.Background(), args, nil, io.Discard, &stderr); code != 0 {
			t.Fatalf("ctx manifest: %d %s", code, stderr.String())
		}
	}
	t.Setenv("HOME", filepath.Join(dir, "home"))
	t.Setenv("AGENTS_GLOBAL_MD", "")
	manifestOf()
	sh(t, work, env, "git", "init", "-q")
	sh(t, work, env, "git", "add", "-A")

	// a healthy repository: only AGENTS.md, no ctx.toml, no GLOBAL.md
	out, err := runErr(work, env, "pre-commit", "run", "--all-files")
	if err != nil {
		t.Fatalf("ctx-audit failed on a healthy repository: %v\n%s", err, out)
	}
	if !strings.Contains(out, "ctx audit --check") || !strings.Contains(out, "ctx verify") || strings.Count(out, "Passed") != 2 {
		t.Errorf("the hooks did not run and pass:\n%s", out)
	}

	// AGENTS.md grows past the per-source budget (8,192 tokens by default)
	write("AGENTS.md", "# Agents\n"+strings.Repeat("Run the tests before you commit, and explain why.\n", 800))
	sh(t, work, env, "git", "add", "-A")
	out, err = runErr(work, env, "pre-commit", "run", "--all-files")
	if err == nil {
		t.Fatalf("ctx-audit passed with an oversized AGENTS.md:\n%s", out)
	}
	if strings.Count(out, "Failed") != 2 || !strings.Contains(out, "oversized_source") || !strings.Contains(out, "check failed") ||
		!strings.Contains(out, "changed") {
		t.Errorf("the failures do not say why:\n%s", out)
	}
}

func sh(t *testing.T, dir string, env []string, name string, args ...string) string {
	t.Helper()
	out, err := runErr(dir, env, name, args...)
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return out
}

func runErr(dir string, env []string, name string, args ...string) (string, error) {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// TestPreCommitFiles checks the files pattern of the ctx-audit hook: it
// runs when any instruction file of any profile, or ctx.toml, changes, and
// not for other files.
func TestPreCommitFiles(t *testing.T) {
	data, err := os.ReadFile("../../.pre-commit-hooks.yaml")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^- id: ctx-audit\n(?:  .*\n)*?  files: '([^']*)'`).FindSubmatch(data)
	if m == nil {
		t.Fatal("no files pattern for ctx-audit")
	}
	files := regexp.MustCompile(string(m[1]))
	for _, p := range []string{
		"AGENTS.md", "svc/AGENTS.md", "AGENTS.override.md", "AGENTS.local.md",
		"CLAUDE.md", "CLAUDE.local.md", ".claude/CLAUDE.md", ".claude/rules/style.md", "svc/.claude/rules/go/errors.md",
		"GEMINI.md", "packages/cli/GEMINI.md", ".gemini/settings.json",
		".github/copilot-instructions.md", ".github/instructions/go.instructions.md",
		".cursor/rules/style.mdc", ".cursorrules", "ctx.toml",
	} {
		if !files.MatchString(p) {
			t.Errorf("ctx-audit does not run when %s changes", p)
		}
	}
	for _, p := range []string{"README.md", "main.go", "docs/AGENTS.md.bak", ".claude/settings.json", "rules/style.md"} {
		if files.MatchString(p) {
			t.Errorf("ctx-audit runs when %s changes", p)
		}
	}
}
