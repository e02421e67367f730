package observe

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxaudit/ctx/internal/testfs"
)

// Codex's provider is the user's own: from -c, --profile, the config's
// profile and model_provider, else the built-in one, signed in to ChatGPT
// or with a key.
func TestResolveCodexProvider(t *testing.T) {
	home := t.TempDir()
	testfs.Write(t, home, map[string]string{".codex/config.toml": `model_provider = "localllm"

[model_providers.localllm]
name = "local"
base_url = "http://127.0.0.1:9102/v1"
env_key = "LOCAL_KEY"
wire_api = "responses"
query_params = { api-version = "2025-01-01" }
http_headers = { "X-Team" = "ctx" }

[model_providers.azure]
base_url = "https://example.openai.azure.com/openai"
env_key = "AZURE_KEY"

[model_providers.chatgptish]
base_url = "https://example/v1"
requires_openai_auth = true

[profiles.work]
model_provider = "azure"
`})
	codexHome := filepath.Join(home, ".codex")
	for _, tc := range []struct {
		args    []string
		id, url string
		wire    string
		err     string
	}{
		{[]string{"codex", "exec", "hi"}, "localllm", "http://127.0.0.1:9102/v1", "responses", ""},
		{[]string{"codex", "--profile", "work", "exec", "hi"}, "azure", "https://example.openai.azure.com/openai", "chat", ""},
		{[]string{"codex", "-p", "work"}, "azure", "https://example.openai.azure.com/openai", "chat", ""},
		{[]string{"codex", "-c", "model_provider=openai"}, "openai", "https://api.openai.com/v1", "responses", ""},
		{[]string{"codex", "--oss"}, "oss", "http://localhost:11434/v1", "chat", ""},
		{[]string{"codex", "-c", "model_provider=nosuch"}, "", "", "", `"nosuch" has no [model_providers.nosuch]`},
		{[]string{"codex", "-c", "model_provider=chatgptish"}, "", "", "", "signs in with OpenAI's tokens"},
	} {
		p, err := ResolveCodexProvider(tc.args, codexHome, func(string) string { return "" })
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: %v, want an error with %q", tc.args, err, tc.err)
			}
			continue
		}
		if err != nil || p.ID != tc.id || p.BaseURL != tc.url || p.WireAPI != tc.wire {
			t.Errorf("%q: %+v %v, want %s at %s (%s)", tc.args, p, err, tc.id, tc.url, tc.wire)
		}
	}
	p, _ := ResolveCodexProvider([]string{"codex"}, codexHome, nil)
	if p.QueryParams["api-version"] != "2025-01-01" || p.HTTPHeaders["X-Team"] != "ctx" || p.EnvKey != "LOCAL_KEY" {
		t.Errorf("the provider's table: %+v", p)
	}
	args, _, err := LaunchWith(Codex, "http://127.0.0.1:4000", []string{"codex", "exec", "hi"}, nil, false, p)
	if err != nil || !strings.Contains(args[2], `env_key="LOCAL_KEY"`) || !strings.Contains(args[2], `query_params={"api-version"="2025-01-01"}`) ||
		!strings.Contains(args[2], `http_headers={"X-Team"="ctx"}`) {
		t.Errorf("launch with the user's provider: %q %v", args, err)
	}

	// the built-in provider: a ChatGPT sign-in, unless the key is preferred
	other := t.TempDir()
	testfs.Write(t, other, map[string]string{"auth.json": `{"OPENAI_API_KEY": null, "tokens": {"id_token": "x"}}`})
	if p, err := ResolveCodexProvider([]string{"codex"}, other, nil); err != nil || !p.ChatGPT || !strings.Contains(p.BaseURL, "chatgpt.com") {
		t.Errorf("signed in: %+v %v", p, err)
	}
	testfs.Write(t, other, map[string]string{"config.toml": `preferred_auth_method = "apikey"` + "\n"})
	if p, err := ResolveCodexProvider([]string{"codex"}, other, nil); err != nil || p.ChatGPT || p.EnvKey != "OPENAI_API_KEY" {
		t.Errorf("apikey preferred: %+v %v", p, err)
	}
}

// Claude Code's settings files point it at a gateway: the managed settings
// first, then the project's, then the user's.
func TestClaudeGateway(t *testing.T) {
	dir := t.TempDir()
	testfs.Write(t, dir, map[string]string{
		"repo/.git/HEAD":             "",
		"repo/sub/":                  "",
		"home/.claude/settings.json": `{"env": {"ANTHROPIC_BASE_URL": "https://user-gateway"}}`,
		"repo/.claude/settings.json": `{"env": {"ANTHROPIC_BASE_URL": "https://project-gateway"}}`,
		"other/":                     "",
	})
	if u, f, managed := ClaudeGateway(filepath.Join(dir, "repo/sub"), filepath.Join(dir, "home")); u != "https://project-gateway" || managed || !strings.HasSuffix(f, "repo/.claude/settings.json") {
		t.Errorf("in the repository: %q %q %v", u, f, managed)
	}
	if u, _, _ := ClaudeGateway(filepath.Join(dir, "other"), filepath.Join(dir, "home")); u != "https://user-gateway" {
		t.Errorf("elsewhere: %q", u)
	}
	if u, _, _ := ClaudeGateway(filepath.Join(dir, "other"), ""); u != "" {
		t.Errorf("no home: %q", u)
	}
}
