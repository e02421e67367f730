package aggregate_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/ctxaudit/ctx/aggregate"
	"github.com/ctxaudit/ctx/aggregate/codeview"
	"github.com/ctxaudit/ctx/internal/testfs"
	"github.com/ctxaudit/ctx/measure"
	"github.com/ctxaudit/ctx/secrets"
	"github.com/ctxaudit/ctx/secrets/gitleaks"
)

const fakePAT = "ghp_Yk3IMJ9PvMJ11Uqz6DNLLgGxJCbUUrt93l4B" // fake

func TestRedactFiles(t *testing.T) {
	conf := "KEY = \"" + fakePAT + "\"\n\n\ndef f():\n    return KEY\n"
	dir := testfs.Tree(t, map[string]string{
		"conf.py": conf,
		"skel.py": conf,
		"bin.dat": "\x00" + fakePAT,
		"ok.py":   "x = 1\n",
	})
	sc, err := gitleaks.New(secrets.Options{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := aggregate.Run(context.Background(), aggregate.Options{Engine: codeview.Engine(), BaseDir: dir, Redact: sc, Files: []aggregate.FileItem{
		{Path: "conf.py"}, {Path: "skel.py", ViewMode: aggregate.ViewSkeleton}, {Path: "bin.dat"}, {Path: "ok.py"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(res.Markdown, fakePAT) {
		t.Fatalf("the key was aggregated:\n%s", res.Markdown)
	}
	by := map[string]aggregate.Item{}
	for _, it := range res.Items {
		by[it.Path] = it
	}
	red := strings.Replace(conf, fakePAT, "[REDACTED:github-pat]", 1)
	c := by["conf.py"]
	if c.Redacted == nil || c.Redacted.HashAfter != measure.Hash([]byte(red)) || c.Source.Hash != measure.Hash([]byte(conf)) ||
		len(c.Redacted.Secrets) != 1 || c.Redacted.Secrets[0].Line != 1 {
		t.Errorf("conf.py: %+v", c.Redacted)
	}
	if !strings.Contains(by["skel.py"].Content, "[REDACTED:github-pat]") {
		t.Errorf("skeleton: %q", by["skel.py"].Content)
	}
	if by["bin.dat"].Redacted != nil || by["ok.py"].Redacted != nil {
		t.Error("a binary or clean file was redacted")
	}
	if got := res.RedactionSummary(); got != "2 credentials redacted (github-pat ×2) in conf.py, skel.py" {
		t.Errorf("summary %q", got)
	}
	plain, err := aggregate.Run(context.Background(), aggregate.Options{Engine: codeview.Engine(), BaseDir: dir, Files: []aggregate.FileItem{{Path: "conf.py"}}})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(plain.Markdown, fakePAT) || plain.RedactionSummary() != "" {
		t.Error("redacted without Options.Redact")
	}
}

// With Scan and no Redact, every text file packed is scanned and its
// credentials are left in and listed (never the value), in the document's
// order; a binary file, one that is not aggregated and one excluded by its
// view hold none; with Redact, Scan adds nothing.
func TestScanFiles(t *testing.T) {
	conf := "KEY = \"" + fakePAT + "\"\n"
	dir := testfs.Tree(t, map[string]string{
		"b.py":    "x = 1\n\nTOKEN = \"" + fakePAT + "\"\n",
		"a.py":    conf,
		"bin.dat": "\x00" + fakePAT,
		"off.py":  conf,
		"none.py": conf,
		"ok.py":   "PRICING_PHASE_1_FLAG_KEY = \"pricing-phase-1-limits\"\n",
	})
	sc, err := gitleaks.New(secrets.Options{})
	if err != nil {
		t.Fatal(err)
	}
	files := []aggregate.FileItem{{Path: "b.py"}, {Path: "a.py"}, {Path: "bin.dat"}, {Path: "ok.py"},
		{Path: "off.py", NoAutoAggregate: true}, {Path: "none.py", ViewMode: aggregate.ViewNone}}
	res, err := aggregate.Run(context.Background(), aggregate.Options{Engine: codeview.Engine(), BaseDir: dir, Scan: sc, Files: files})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.Markdown, fakePAT) {
		t.Fatal("scanning changed the pack")
	}
	var got []string
	for _, f := range res.UnredactedSecrets() {
		got = append(got, fmt.Sprintf("%s:%d:%d %s", f.Path, f.Finding.Line, f.Finding.Column, f.Finding.Rule))
	}
	if want := []string{"b.py:3:10 github-pat", "a.py:1:8 github-pat"}; !slices.Equal(got, want) {
		t.Errorf("found %q, want %q", got, want)
	}
	js, err := json.Marshal(res.Items)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(js), `"secrets":[{"rule":"github-pat"`); n < 2 {
		t.Errorf("%d items list their secrets in JSON: %s", n, js)
	}
	red, err := aggregate.Run(context.Background(), aggregate.Options{Engine: codeview.Engine(), BaseDir: dir, Scan: sc, Redact: sc, Files: files[:2]})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(red.UnredactedSecrets()); n != 0 || strings.Contains(red.Markdown, fakePAT) {
		t.Errorf("redacted: %d left in", n)
	}
}

// SecretWarnings names the first SecretsShown credentials with their file
// and line, and counts the rest.
func TestSecretWarnings(t *testing.T) {
	var b strings.Builder
	for i := range aggregate.SecretsShown + 2 {
		fmt.Fprintf(&b, "KEY_%d = \"%s\"\n", i, fakePAT)
	}
	dir := testfs.Tree(t, map[string]string{"keys.py": b.String()})
	sc, err := gitleaks.New(secrets.Options{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := aggregate.Run(context.Background(), aggregate.Options{Engine: codeview.Engine(), BaseDir: dir, Scan: sc, Files: []aggregate.FileItem{{Path: "keys.py"}}})
	if err != nil {
		t.Fatal(err)
	}
	w := res.SecretWarnings()
	if len(w) != aggregate.SecretsShown+1 ||
		w[0] != "keys.py:1: github-pat: a credential is in the pack (--redact, or redact = true in [secrets] of ctx.toml, replaces it)" ||
		w[len(w)-1] != `2 more credentials are in the pack (--format json lists each under "secrets")` {
		t.Errorf("warnings:\n%s", strings.Join(w, "\n"))
	}
}

// A nil Engine is TextEngine: aggregate alone links no parser, so a
// skeleton falls back to the text summary; codeview.Engine renders it.
func TestNilEngineIsText(t *testing.T) {
	dir := testfs.Tree(t, map[string]string{"a.py": "def f():\n    return 1\n"})
	files := []aggregate.FileItem{{Path: "a.py", ViewMode: aggregate.ViewSkeleton}}
	plain, err := aggregate.Run(context.Background(), aggregate.Options{BaseDir: dir, Files: files})
	if err != nil {
		t.Fatal(err)
	}
	if it := plain.Items[0]; it.ViewMode != aggregate.ViewSummary || !strings.Contains(it.Content, "**PY** — 2 lines") {
		t.Errorf("nil engine: %s view %q", it.ViewMode, it.Content)
	}
	tree, err := aggregate.Run(context.Background(), aggregate.Options{BaseDir: dir, Files: files, Engine: codeview.Engine()})
	if err != nil {
		t.Fatal(err)
	}
	if it := tree.Items[0]; it.ViewMode != aggregate.ViewSkeleton || !strings.Contains(it.Content, "def f():") {
		t.Errorf("codeview: %s view %q", it.ViewMode, it.Content)
	}
}

// A file's credentials are reported when its view holds them, and only
// then: a skeleton or summary that leaves out the line of a secret does
// not send it, whether the view was asked for or the token budget chose
// it; a secret the view keeps is reported.
func TestScanViews(t *testing.T) {
	body := "def f():\n    key = \"" + fakePAT + "\"\n    return key\n"
	top := "KEY = \"" + fakePAT + "\"\n\n\ndef g():\n    return KEY\n"
	var big strings.Builder
	big.WriteString(body)
	for i := range 300 {
		fmt.Fprintf(&big, "\n\ndef h%d(x):\n    y = x * %d\n    return y + %d\n", i, i, i)
	}
	dir := testfs.Tree(t, map[string]string{
		"body.py": body, "top.py": top, "sum.py": top, "full.py": body, "big.py": big.String(),
	})
	sc, err := gitleaks.New(secrets.Options{})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name  string
		opts  aggregate.Options
		found []string // the files whose credential is reported
	}{
		{"views asked for", aggregate.Options{Files: []aggregate.FileItem{
			{Path: "body.py", ViewMode: aggregate.ViewSkeleton}, {Path: "top.py", ViewMode: aggregate.ViewSkeleton},
			{Path: "sum.py", ViewMode: aggregate.ViewSummary}, {Path: "full.py"},
		}}, []string{"top.py", "full.py"}},
		{"degraded by max_file_tokens", aggregate.Options{MaxFileTokens: measure.Max(600), Files: []aggregate.FileItem{{Path: "big.py"}, {Path: "full.py"}}},
			[]string{"full.py"}},
		{"not degraded", aggregate.Options{Files: []aggregate.FileItem{{Path: "big.py"}}}, []string{"big.py"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o := tc.opts
			o.Engine, o.BaseDir, o.Scan = codeview.Engine(), dir, sc
			res, err := aggregate.Run(context.Background(), o)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, f := range res.UnredactedSecrets() {
				got = append(got, f.Path)
			}
			if !slices.Equal(got, tc.found) {
				t.Errorf("reported %q, want %q", got, tc.found)
			}
			// the report and the document agree, file by file
			for _, it := range res.Items {
				holds := strings.Contains(it.Block(), fakePAT)
				if holds != (len(it.Secrets) > 0) {
					t.Errorf("%s (%s, %s): block holds the key %v, %d reported", it.Path, it.ViewMode, it.Degraded, holds, len(it.Secrets))
				}
			}
		})
	}
}

// The Beads and Discussion History sections a pack ends with are scanned
// as its files are, named by section and line.
func TestScanSections(t *testing.T) {
	dir := testfs.Tree(t, map[string]string{"ok.py": "x = 1\n"})
	sc, err := gitleaks.New(secrets.Options{})
	if err != nil {
		t.Fatal(err)
	}
	history := "### Discussion Excerpt 1\n\nuser: my token is " + fakePAT + "\n"
	res, err := aggregate.Run(context.Background(), aggregate.Options{Engine: codeview.Engine(), BaseDir: dir, Scan: sc,
		Files: []aggregate.FileItem{{Path: "ok.py"}}, History: history})
	if err != nil {
		t.Fatal(err)
	}
	got := res.SecretWarnings()
	want := []string{"the Discussion History section, line 5: github-pat: a credential is in the pack (--redact, or redact = true in [secrets] of ctx.toml, replaces it)"}
	if !slices.Equal(got, want) {
		t.Errorf("warnings %q, want %q", got, want)
	}
	var js strings.Builder
	if err := res.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(js.String(), `"section_secrets": [`) || !strings.Contains(js.String(), `"section": "Discussion History",`) || strings.Contains(js.String(), fakePAT) {
		t.Errorf("the JSON document does not list the section's credential (or holds it):\n%s", js.String())
	}
	res, err = aggregate.Run(context.Background(), aggregate.Options{Engine: codeview.Engine(), BaseDir: dir,
		Files: []aggregate.FileItem{{Path: "ok.py"}}, History: history})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.SectionSecrets) != 0 {
		t.Error("scanned without Options.Scan")
	}
}
