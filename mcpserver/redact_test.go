package mcpserver_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ctxaudit/ctx/mcpserver"
)

// fakeKey is an AWS access key id that the scanner finds (not a real one).
const fakeKey = "AKIAJPJOMKEFOIUC5LGT"

// secretProject is the test project with fakeKey planted at line 3 of
// AGENTS.md and line 2 of src/conf.py, which [files] packs, and without
// its profile, so that AGENTS.md is rendered (Claude Code would load it
// by itself).
func secretProject(t *testing.T) string {
	t.Helper()
	dir := project(t)
	toml, err := os.ReadFile(filepath.Join(dir, "ctx.toml"))
	if err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{
		"ctx.toml":    strings.Replace(string(toml), `profile = "claude"`, "", 1),
		"AGENTS.md":   "# Rules\nUse the deploy key below.\naws_access_key_id = " + fakeKey + "\n",
		"src/conf.py": "REGION = 'eu-west-1'\nKEY = '" + fakeKey + "'\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// resultText is every text block and the structured output of res.
func resultText(t *testing.T, res *mcp.CallToolResult) string {
	t.Helper()
	all := strings.Join(texts(t, res), "\n")
	if res.StructuredContent != nil {
		all += "\n" + string(structuredJSON(t, res))
	}
	return all
}

// notesOf returns the notes of a render or pack result.
func notesOf(t *testing.T, res *mcp.CallToolResult) string {
	t.Helper()
	var out struct {
		Notes []string `json:"notes"`
	}
	if err := json.Unmarshal(structuredJSON(t, res), &out); err != nil {
		t.Fatal(err)
	}
	return strings.Join(out.Notes, "\n")
}

// Every tool that returns the content of files or instructions redacts
// it by default, and its notes say how many credentials were replaced and
// where (file:line and rule, never the value); the manifest resource is
// redacted too.
func TestRedactByDefault(t *testing.T) {
	dir := secretProject(t)
	runCtx(t, "manifest", "--relative", "-o", filepath.Join(dir, "ctx.manifest.json"), "-C", dir)
	cs := connect(t, dir, nil)
	for _, tc := range []struct {
		tool  string
		args  map[string]any
		notes []string
	}{
		{"render", map[string]any{"max_tokens": 0}, []string{"2 credentials redacted (aws-access-token ×2)", "AGENTS.md:3: aws-access-token", "src/conf.py:2: aws-access-token"}},
		{"render", map[string]any{"manifest": "ctx.manifest.json", "max_tokens": 0}, []string{"2 credentials redacted (aws-access-token ×2)", "AGENTS.md:3: aws-access-token", "src/conf.py:2: aws-access-token"}},
		{"pack", map[string]any{"paths": []string{"src/conf.py"}}, []string{"1 credential redacted (aws-access-token)", "src/conf.py:2: aws-access-token"}},
		{"pack", nil, []string{"1 credential redacted (aws-access-token)", "src/conf.py:2: aws-access-token"}},
	} {
		res := call(t, cs, tc.tool, tc.args)
		ok(t, tc.tool, res)
		all := resultText(t, res)
		if strings.Contains(all, fakeKey) {
			t.Errorf("%s %v sends the credential", tc.tool, tc.args)
		}
		if !strings.Contains(all, "[REDACTED:aws-access-token]") {
			t.Errorf("%s %v: no [REDACTED:aws-access-token] in the result", tc.tool, tc.args)
		}
		notes := notesOf(t, res)
		for _, want := range tc.notes {
			if !strings.Contains(notes, want) {
				t.Errorf("%s %v: notes %q lack %q", tc.tool, tc.args, notes, want)
			}
		}
		if !strings.Contains(strings.Join(texts(t, res), "\n"), tc.notes[0]) {
			t.Errorf("%s %v: the note is not in the text for the model", tc.tool, tc.args)
		}
	}
	// without a credential, the note says the text was redacted all the same
	if err := os.WriteFile(filepath.Join(dir, "src", "conf.py"), []byte("REGION = 'eu-west-1'\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	res := call(t, cs, "pack", map[string]any{"paths": []string{"src/conf.py"}})
	if notes := notesOf(t, res); !strings.Contains(notes, "credentials are redacted") || !strings.Contains(notes, "none was found") {
		t.Errorf("pack of a file without credentials: notes %q", notes)
	}
	rr, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: mcpserver.ManifestURI})
	if err != nil {
		t.Fatal(err)
	}
	if text := rr.Contents[0].Text; strings.Contains(text, fakeKey) || !strings.Contains(text, `"redactions"`) {
		t.Errorf("ctx://manifest is not redacted:\n%.2000s", text)
	}
}

// redact: false is refused with a tool error unless the server was
// started with Options.AllowUnredacted; with it, the text holds the
// credential and the notes say where each one is.
func TestUnredacted(t *testing.T) {
	dir := secretProject(t)
	cs := connect(t, dir, nil)
	for _, tool := range []string{"render", "pack"} {
		res := call(t, cs, tool, map[string]any{"redact": false})
		got := strings.Join(texts(t, res), "\n")
		if !res.IsError || !strings.Contains(got, "redact: false") || !strings.Contains(got, "--allow-unredacted") {
			t.Errorf("%s redact false: error %v, %q", tool, res.IsError, got)
		}
		if strings.Contains(got, fakeKey) {
			t.Errorf("%s redact false: the refusal sends the credential", tool)
		}
	}
	allowed := connectWith(t, mcpserver.Options{Dir: dir, AllowUnredacted: true}, nil)
	for _, tc := range []struct {
		tool  string
		notes []string
	}{
		{"render", []string{"not redacted (redact: false)", "AGENTS.md:3: aws-access-token", "src/conf.py:2: aws-access-token"}},
		{"pack", []string{"not redacted (redact: false)", "src/conf.py:2: aws-access-token"}},
	} {
		res := call(t, allowed, tc.tool, map[string]any{"redact": false})
		ok(t, tc.tool, res)
		if !strings.Contains(texts(t, res)[0], fakeKey) {
			t.Errorf("%s redact false with AllowUnredacted: the credential is not in the text", tc.tool)
		}
		notes := notesOf(t, res)
		for _, want := range tc.notes {
			if !strings.Contains(notes, want) {
				t.Errorf("%s redact false: notes %q lack %q", tc.tool, notes, want)
			}
		}
		if strings.Contains(notes, fakeKey) {
			t.Errorf("%s: a note holds the credential", tc.tool)
		}
		// redaction stays the default
		if res := call(t, allowed, tc.tool, nil); strings.Contains(resultText(t, res), fakeKey) {
			t.Errorf("%s with AllowUnredacted sends the credential by default", tc.tool)
		}
	}
}

// The notes of render name the content from outside the project
// directory that the text holds: here the shared file of the user's home.
func TestOutsideContentNoted(t *testing.T) {
	dir := project(t)
	shared := filepath.Join(filepath.Dir(dir), ".config", "agents", "GLOBAL.md")
	if err := os.MkdirAll(filepath.Dir(shared), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(shared, []byte("# Everywhere\nBe brief.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cs := connect(t, dir, nil)
	res := call(t, cs, "render", map[string]any{"max_tokens": 0})
	if !strings.Contains(texts(t, res)[0], "Be brief.") {
		t.Fatal("the shared file is not rendered")
	}
	if notes := notesOf(t, res); !strings.Contains(notes, "outside the project directory") || !strings.Contains(notes, shared) {
		t.Errorf("notes %q do not name the shared file %s", notes, shared)
	}
	// nothing from outside: no such note
	if err := os.Remove(shared); err != nil {
		t.Fatal(err)
	}
	if notes := notesOf(t, call(t, cs, "render", map[string]any{"max_tokens": 0})); strings.Contains(notes, "outside the project") {
		t.Errorf("notes %q speak of content from outside", notes)
	}
}

// A tool error that quotes a credential (a key pasted into the wrong
// field of ctx.toml) has it redacted, as the command's stderr does.
func TestErrorsRedacted(t *testing.T) {
	dir := project(t)
	cs := connect(t, dir, nil)
	if err := os.WriteFile(filepath.Join(dir, "ctx.toml"), []byte(`profile = "aws_key `+fakeKey+`"`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tool := range []string{"audit", "render", "pack", "stats"} {
		res := call(t, cs, tool, nil)
		got := strings.Join(texts(t, res), "\n")
		if !res.IsError || !strings.Contains(got, "unknown profile") {
			t.Fatalf("%s with a bad ctx.toml: error %v, %q", tool, res.IsError, got)
		}
		if strings.Contains(got, fakeKey) || !strings.Contains(got, "[REDACTED:aws-access-token]") {
			t.Errorf("%s: the error sends the credential: %q", tool, got)
		}
	}
	_, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: mcpserver.ManifestURI})
	if err == nil || strings.Contains(err.Error(), fakeKey) {
		t.Errorf("ctx://manifest with a bad ctx.toml: %v", err)
	}
}

// A repository's allowlist cannot switch the tools' redaction off: with
// [[secrets.allow]] paths = ["**"] in its ctx.toml, render, pack and the
// manifest resource still send no credential.
func TestRepositoryAllowlistDoesNotUnredact(t *testing.T) {
	dir := secretProject(t)
	f, err := os.OpenFile(filepath.Join(dir, "ctx.toml"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString("\n[[secrets.allow]]\npaths = [\"**\"]\nreason = \"nothing here is a secret\"\n"); err != nil {
		t.Fatal(err)
	}
	f.Close()
	cs := connect(t, dir, nil)
	for _, tc := range []struct {
		tool string
		args map[string]any
	}{
		{"render", map[string]any{"max_tokens": 0}},
		{"render", map[string]any{"max_tokens": 0, "redact": true}},
		{"pack", map[string]any{"paths": []string{"src/conf.py"}}},
	} {
		res := call(t, cs, tc.tool, tc.args)
		ok(t, tc.tool, res)
		if all := resultText(t, res); strings.Contains(all, fakeKey) || !strings.Contains(all, "[REDACTED:aws-access-token]") {
			t.Errorf("%s %v: the allowlist switched redaction off", tc.tool, tc.args)
		}
	}
	rr, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: mcpserver.ManifestURI})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(rr.Contents[0].Text, fakeKey) {
		t.Error("the manifest resource sends the credential")
	}
}
