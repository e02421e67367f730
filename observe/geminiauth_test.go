package observe

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestGeminiInteractiveArgs(t *testing.T) {
	tests := []struct {
		args []string
		want bool
	}{
		{[]string{"gemini"}, true},
		{[]string{"gemini", "-p", "hi"}, false},
		{[]string{"gemini", "--prompt=hi"}, false},
		{[]string{"gemini", "hi"}, false},
		{[]string{"gemini", "-m", "gemini-2.5-flash"}, true},
		{[]string{"gemini", "-m", "gemini-2.5-flash", "hi"}, false},
		{[]string{"gemini", "-i", "hi"}, true},
		{[]string{"gemini", "--prompt-interactive=hi"}, true},
		{[]string{"gemini", "--yolo", "--"}, true},
		{[]string{"gemini", "--", "hi"}, false},
	}
	for _, tt := range tests {
		if got := geminiInteractiveArgs(tt.args); got != tt.want {
			t.Errorf("geminiInteractiveArgs(%q) = %v, want %v", tt.args, got, tt.want)
		}
	}
	if geminiInteractive([]string{"gemini"}, strings.NewReader("")) {
		t.Error("interactive without a terminal")
	}
}

func writeSettings(t *testing.T, p, s string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestGeminiAuth(t *testing.T) {
	root := t.TempDir()
	home, dir := filepath.Join(root, "home"), filepath.Join(root, "proj")
	env := map[string]string{geminiSystemSettings: filepath.Join(root, "system.json")}
	getenv := func(k string) string { return env[k] }
	user := filepath.Join(home, ".gemini", "settings.json")
	if typ, file := GeminiAuth(dir, home, getenv); typ != "" || file != "" {
		t.Fatalf("no settings: %q %q", typ, file)
	}
	writeSettings(t, user, "{\n  // signed in with Google\n  \"security\": {\"auth\": {\"selectedType\": \"oauth-personal\"}}\n}\n")
	if typ, file := GeminiAuth(dir, home, getenv); typ != "oauth-personal" || file != user {
		t.Fatalf("user settings with a comment: %q %q", typ, file)
	}
	proj := filepath.Join(dir, ".gemini", "settings.json")
	writeSettings(t, proj, `{"security": {"auth": {"selectedType": "gemini-api-key"}}}`)
	if typ, file := GeminiAuth(dir, home, getenv); typ != geminiAPIKey || file != proj {
		t.Fatalf("the project's over the user's: %q %q", typ, file)
	}
	writeSettings(t, proj, `{"context": {"fileName": "AGENTS.md"}}`)
	if typ, _ := GeminiAuth(dir, home, getenv); typ != "oauth-personal" {
		t.Fatalf("a project file without a selection keeps the user's: %q", typ)
	}
	// a system file below /tmp (others may write it) is skipped, as
	// Gemini CLI skips it
	writeSettings(t, env[geminiSystemSettings], `{"security": {"auth": {"selectedType": "vertex-ai"}}}`)
	if typ, _ := GeminiAuth(dir, home, getenv); typ != "oauth-personal" && !secureSystemFile(env[geminiSystemSettings]) {
		t.Fatalf("insecure system settings read: %q", typ)
	}
	env["GEMINI_CLI_HOME"] = filepath.Join(root, "other")
	if typ, _ := GeminiAuth(dir, home, getenv); typ != "" && !secureSystemFile(env[geminiSystemSettings]) {
		t.Fatalf("GEMINI_CLI_HOME not honoured: %q", typ)
	}
}

func TestGeminiMockAuth(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", filepath.Join(t.TempDir(), "cache"))
	if d, ok := privateSystemDir(); ok {
		os.RemoveAll(d)
		t.Skip("system settings would be honoured here (root, private cache directory)")
	}
	root := t.TempDir()
	home := filepath.Join(root, "home")
	env := map[string]string{geminiSystemSettings: filepath.Join(root, "none.json")}
	getenv := func(k string) string { return env[k] }
	// no selection, no terminal: the environment selects gateway auth
	var notes bytes.Buffer
	set, cleanup, err := geminiMockAuth(root, home, []string{"gemini"}, nil, getenv, &notes)
	if err != nil || set != "" || notes.Len() != 0 {
		t.Fatalf("no selection: %q %v %q", set, err, notes.String())
	}
	cleanup()
	writeSettings(t, filepath.Join(home, ".gemini", "settings.json"), `{"security": {"auth": {"selectedType": "oauth-personal"}}}`)
	_, _, err = geminiMockAuth(root, home, []string{"gemini", "-p", "hi"}, nil, getenv, &notes)
	if err == nil || !strings.Contains(err.Error(), `"oauth-personal"`) || !strings.Contains(err.Error(), filepath.Join(home, ".gemini", "settings.json")) {
		t.Fatalf("oauth selected: %v", err)
	}
	writeSettings(t, filepath.Join(home, ".gemini", "settings.json"), `{"security": {"auth": {"selectedType": "gemini-api-key"}}}`)
	if set, _, err := geminiMockAuth(root, home, []string{"gemini"}, nil, getenv, &notes); err != nil || set != "" {
		t.Fatalf("API-key auth selected: %q %v", set, err)
	}
}
