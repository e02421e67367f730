package audit_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ctxaudit/ctx/aggregate"
	"github.com/ctxaudit/ctx/aggregate/codeview"
	"github.com/ctxaudit/ctx/audit"
	"github.com/ctxaudit/ctx/discover"
	"github.com/ctxaudit/ctx/internal/testfs"
	"github.com/ctxaudit/ctx/manifest"
	"github.com/ctxaudit/ctx/secrets"
	"github.com/ctxaudit/ctx/secrets/gitleaks"
)

// fake credentials (random, never valid)
const (
	awsKey   = "AKIAJPJOMKEFOIUC5LGT"
	ghToken  = "ghp_Yk3IMJ9PvMJ11Uqz6DNLLgGxJCbUUrt93l4B"
	slackBot = "xoxb-412931703619-1557975292311-seIFtcCXS8I7ICIHEcBmBppX"
)

func secretProject(t *testing.T) string {
	t.Helper()
	history := map[string]any{"messages": []map[string]any{
		{"id": "m1", "role": "user", "contentParts": []map[string]any{{"type": "text", "text": "hello"}}},
		{"id": "m2", "role": "assistant", "contentParts": []map[string]any{{"type": "text", "text": "use\nSLACK=" + slackBot}}},
	}}
	h, err := json.Marshal(history)
	if err != nil {
		t.Fatal(err)
	}
	return testfs.Tree(t, map[string]string{
		".git/HEAD":    "ref: refs/heads/main\n",
		"AGENTS.md":    "# Rules\n\nDeploy with\nexport AWS_ACCESS_KEY_ID=" + awsKey + "\n",
		"app/conf.py":  "import os\n\nTOKEN = \"" + ghToken + "\"\n",
		"app/deep.py":  "KEY = \"" + ghToken + "\"\n\n\ndef f():\n    return KEY\n",
		"history.json": string(h),
	})
}

func secretManifest(t *testing.T, dir string) *manifest.Manifest {
	t.Helper()
	m, err := manifest.Build(context.Background(), manifest.Options{
		Discover: discover.Options{Agent: "codex", ProjectDir: dir, Home: t.TempDir(), Getenv: func(string) string { return "" }},
		Files: &aggregate.Options{Engine: codeview.Engine(), Files: []aggregate.FileItem{
			{Path: "app/conf.py"},
			{Path: "app/deep.py", ViewMode: aggregate.ViewSkeleton},
		}},
		History: &manifest.HistoryOptions{Path: "history.json"},
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestSecretFindings: a credential in a source, in a file's full view, in
// another view and in the history is an error finding with the rule and
// the line, and no output of the audit holds the secret.
func TestSecretFindings(t *testing.T) {
	dir := secretProject(t)
	m := secretManifest(t, dir)
	rep, err := audit.RunContext(context.Background(), m, audit.Options{Thresholds: audit.DefaultThresholds(), Secrets: scanner(t)})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range rep.Findings {
		if f.Code != audit.CodeSecret {
			continue
		}
		if f.Severity != audit.Error {
			t.Errorf("%+v: severity %s", f, f.Severity)
		}
		got = append(got, strings.Join([]string{f.SourceID, f.RelatedID, itoa(f.Line), f.Message}, " | "))
	}
	want := []string{
		"project_agents | aws-access-token | 4 | credential (aws-access-token) at line 4 would be sent; --redact replaces it",
		"file:app/conf.py | github-pat | 3 | credential (github-pat) at line 3 would be sent; --redact replaces it",
		"file:app/deep.py | github-pat | 0 | credential (github-pat) at line 1 of the skeleton view would be sent; --redact replaces it",
		"history | slack-bot-token | 0 | credential (slack-bot-token) in discussion excerpt 2 (at line 12 of the history) would be sent; --redact replaces it",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("secret findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for _, level := range []audit.Severity{audit.Info, audit.Warning, audit.Error} {
		if !rep.Fails(level) {
			t.Errorf("Fails(%s) = false with secrets", level)
		}
	}
	if n := rep.Count(audit.Error); n != 4 {
		t.Errorf("Count(error) = %d", n)
	}
	for _, format := range audit.Formats() {
		var b bytes.Buffer
		if err := audit.Write(&b, rep, format, audit.WriteOptions{Width: 100}); err != nil {
			t.Fatal(err)
		}
		for _, s := range []string{awsKey, ghToken, slackBot, "AKIAJPJO", "Yk3IMJ9P"} {
			if strings.Contains(b.String(), s) {
				t.Errorf("%s output holds the secret %q", format, s)
			}
		}
	}
	// the line points into the file for the annotations
	var gh bytes.Buffer
	if err := audit.Write(&gh, rep, audit.FormatGitHub, audit.WriteOptions{Root: dir}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"::error file=AGENTS.md,line=4,title=secret::", "::error file=app/conf.py,line=3,title=secret::"} {
		if !strings.Contains(gh.String(), want) {
			t.Errorf("github output lacks %q:\n%s", want, gh.String())
		}
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

func TestSecretScanOptions(t *testing.T) {
	dir := secretProject(t)
	m := secretManifest(t, dir)
	secretsOf := func(o audit.Options) int {
		o.Thresholds = audit.DefaultThresholds()
		rep, err := audit.RunContext(context.Background(), m, o)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, f := range rep.Findings {
			if f.Code == audit.CodeSecret {
				n++
			}
		}
		return n
	}
	if n := secretsOf(audit.Options{NoSecrets: true}); n != 0 {
		t.Errorf("NoSecrets: %d findings", n)
	}
	sc, err := gitleaks.New(secrets.Options{Allow: []secrets.Allow{{Rules: []string{"github-pat"}, Paths: []string{"app/**"}}}})
	if err != nil {
		t.Fatal(err)
	}
	if n := secretsOf(audit.Options{Secrets: sc}); n != 2 {
		t.Errorf("with app/** allowed for github-pat: %d findings, want 2", n)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := audit.RunContext(ctx, m, audit.Options{Thresholds: audit.DefaultThresholds(), Secrets: scanner(t)}); err == nil {
		t.Error("a cancelled audit succeeded")
	}
}

// TestNoSecretsNoFinding: an ordinary project has no secret finding.
func TestNoSecretsNoFinding(t *testing.T) {
	dir := testfs.Tree(t, map[string]string{"AGENTS.md": "# Rules\n\nRun go test ./... before committing.\n"})
	if err := os.MkdirAll(filepath.Join(dir, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	m, err := manifest.Build(context.Background(), manifest.Options{
		Discover: discover.Options{Agent: "codex", ProjectDir: dir, Home: t.TempDir(), Getenv: func(string) string { return "" }},
	})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := audit.RunContext(context.Background(), m, audit.Options{Thresholds: audit.DefaultThresholds(), Secrets: scanner(t)})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Fails(audit.Warning) {
		t.Errorf("findings on an ordinary project: %+v", rep.Findings)
	}
}

// scanner is the default scanner of secrets/gitleaks.
func scanner(t *testing.T) secrets.Scanner {
	t.Helper()
	sc, err := gitleaks.Default()
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// A credential in a file the agent loads by itself is an error finding
// too: the agent sends it, whatever ctx renders, and no --redact can
// replace it. A file that no longer holds the recorded bytes is not read.
func TestSecretsInNatives(t *testing.T) {
	t.Parallel()
	dir, err := filepath.EvalSymlinks(testfs.Tree(t, map[string]string{
		".git/HEAD": "",
		"AGENTS.md": "# Rules\n\ntoken: " + ghToken + "\n",
	}))
	if err != nil {
		t.Fatal(err)
	}
	m, err := manifest.Build(context.Background(), manifest.Options{Profile: "codex", Discover: discover.Options{
		ProjectDir: dir, Home: t.TempDir(), Getenv: func(string) string { return "" }, SharedMode: discover.SharedDisabled}})
	if err != nil {
		t.Fatal(err)
	}
	found, err := audit.Secrets(context.Background(), m, scanner(t))
	if err != nil {
		t.Fatal(err)
	}
	if len(found) != 1 || !strings.HasSuffix(found[0].SourceID, "/AGENTS.md") || found[0].Line != 3 || found[0].Severity != audit.Error ||
		!strings.Contains(found[0].Message, "loads by itself") || strings.Contains(found[0].Message, "--redact replaces") {
		t.Fatalf("found %+v, want AGENTS.md's credential at line 3, said to be the agent's", found)
	}
	testfs.Write(t, dir, map[string]string{"AGENTS.md": "# Rules\n\ntoken: " + ghToken + "\nchanged\n"})
	if found, err := audit.Secrets(context.Background(), m, scanner(t)); err != nil || len(found) != 0 {
		t.Errorf("a changed file was scanned: %+v, %v", found, err)
	}
}
