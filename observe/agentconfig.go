package observe

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"

	"github.com/pelletier/go-toml/v2"

	"github.com/ctxaudit/ctx/internal/fileio"
)

// maxAgentConfig bounds an agent's own configuration file.
const maxAgentConfig = 1 << 20

// ClaudeGateway returns the base URL Claude Code's own settings point it
// at (env.ANTHROPIC_BASE_URL), and the file that sets it: the managed
// settings first, then the project's local and shared settings (of the
// git root of dir, else dir), then the user's; "" when none does. Claude
// Code applies these over its environment.
func ClaudeGateway(dir, home string) (url, file string, managed bool) {
	root := dir
	for d := dir; ; {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			root = d
			break
		}
		parent := filepath.Dir(d)
		if parent == d {
			break
		}
		d = parent
	}
	var files []string
	managedFile := "/etc/claude-code/managed-settings.json"
	if runtime.GOOS == "darwin" {
		managedFile = "/Library/Application Support/ClaudeCode/managed-settings.json"
	}
	files = append(files, managedFile)
	if root != "" {
		files = append(files, filepath.Join(root, ".claude", "settings.local.json"), filepath.Join(root, ".claude", "settings.json"))
	}
	if home != "" {
		files = append(files, filepath.Join(home, ".claude", "settings.json"))
	}
	for i, f := range files {
		if u := settingsBaseURL(f); u != "" {
			return u, f, i == 0
		}
	}
	return "", "", false
}

// settingsBaseURL reads env.ANTHROPIC_BASE_URL of a Claude Code settings
// file, "" when it has none or cannot be read.
func settingsBaseURL(file string) string {
	b, _, err := fileio.Read(file, maxAgentConfig)
	if err != nil {
		return ""
	}
	var s struct {
		Env map[string]string `json:"env"`
	}
	if json.Unmarshal(b, &s) != nil {
		return ""
	}
	return s.Env["ANTHROPIC_BASE_URL"]
}

// claudeSettings points Claude Code at base through its --settings flag,
// which comes after the user's and project's settings files (whose env
// would otherwise take the agent elsewhere): the last --settings of args
// (the one Claude Code keeps) gets env.ANTHROPIC_BASE_URL merged into it,
// or one is added after the program's name.
func claudeSettings(args []string, base string) ([]string, error) {
	last, value, inline := -1, "", false
	for i := 1; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			break
		}
		switch {
		case a == "--settings" && i+1 < len(args):
			last, value, inline = i, args[i+1], false
			i++
		case strings.HasPrefix(a, "--settings="):
			last, value, inline = i, strings.TrimPrefix(a, "--settings="), true
		}
	}
	settings := map[string]any{}
	if last >= 0 {
		raw := []byte(value)
		if t := strings.TrimSpace(value); !strings.HasPrefix(t, "{") {
			b, _, err := fileio.Read(value, maxAgentConfig)
			if err != nil {
				return nil, fmt.Errorf("--settings %s: %w", value, err)
			}
			raw = b
		}
		if err := json.Unmarshal(raw, &settings); err != nil {
			return nil, fmt.Errorf("--settings %s: not JSON: %w", value, err)
		}
	}
	env, _ := settings["env"].(map[string]any)
	if env == nil {
		env = map[string]any{}
	}
	env["ANTHROPIC_BASE_URL"] = base
	settings["env"] = env
	b, err := json.Marshal(settings)
	if err != nil {
		return nil, err
	}
	out := append([]string(nil), args...)
	switch {
	case last < 0:
		out = append([]string{args[0], "--settings", string(b)}, args[1:]...)
	case inline:
		out[last] = "--settings=" + string(b)
	default:
		out[last+1] = string(b)
	}
	return out, nil
}

// CodexProvider is the model provider Codex uses, as its configuration
// resolves it.
type CodexProvider struct {
	// ID is the provider's key ("openai" for the built-in one).
	ID string
	// BaseURL is where it sends requests; WireAPI "responses" or "chat".
	BaseURL string
	WireAPI string
	// EnvKey names the variable of the API key; ChatGPT is set when the
	// user is signed in to ChatGPT (the built-in provider then sends the
	// session's tokens, not a key).
	EnvKey  string
	ChatGPT bool
	// QueryParams, HTTPHeaders and EnvHTTPHeaders are sent with every
	// request, as the provider's table sets them.
	QueryParams    map[string]string
	HTTPHeaders    map[string]string
	EnvHTTPHeaders map[string]string
}

// ResolveCodexProvider returns the provider Codex would use with args,
// from its config.toml in codexHome ($CODEX_HOME, else ~/.codex): a -c
// model_provider=ID among args, else the model_provider of the --profile
// (or -p) given or of the config's profile, else the config's
// model_provider, else the built-in openai (signed in to ChatGPT when
// auth.json holds its tokens and preferred_auth_method is not apikey). An
// error names what cannot be resolved.
func ResolveCodexProvider(args []string, codexHome string, getenv func(string) string) (*CodexProvider, error) {
	var cfg struct {
		ModelProvider  string `toml:"model_provider"`
		Profile        string `toml:"profile"`
		PreferredAuth  string `toml:"preferred_auth_method"`
		ModelProviders map[string]struct {
			BaseURL            string            `toml:"base_url"`
			WireAPI            string            `toml:"wire_api"`
			EnvKey             string            `toml:"env_key"`
			QueryParams        map[string]string `toml:"query_params"`
			HTTPHeaders        map[string]string `toml:"http_headers"`
			EnvHTTPHeaders     map[string]string `toml:"env_http_headers"`
			RequiresOpenAIAuth bool              `toml:"requires_openai_auth"`
		} `toml:"model_providers"`
		Profiles map[string]struct {
			ModelProvider string `toml:"model_provider"`
		} `toml:"profiles"`
	}
	if codexHome != "" {
		if b, _, err := fileio.Read(filepath.Join(codexHome, "config.toml"), maxAgentConfig); err == nil {
			if err := toml.Unmarshal(b, &cfg); err != nil {
				return nil, fmt.Errorf("%s: %w", filepath.Join(codexHome, "config.toml"), err)
			}
		}
	}
	id, profile := "", cfg.Profile
	for i := 1; i < len(args); i++ {
		a := args[i]
		next := ""
		if i+1 < len(args) {
			next = args[i+1]
		}
		switch {
		case a == "-c" || a == "--config":
			if v, ok := strings.CutPrefix(next, "model_provider="); ok {
				id = strings.Trim(v, `"'`)
			}
			i++
		case a == "--profile" || a == "-p":
			profile = next
			i++
		case a == "--oss":
			id = "oss"
		case strings.HasPrefix(a, "--profile="):
			profile = strings.TrimPrefix(a, "--profile=")
		}
	}
	if id == "" && profile != "" {
		id = cfg.Profiles[profile].ModelProvider
	}
	if id == "" {
		id = cfg.ModelProvider
	}
	if id == "" || id == "openai" {
		p := &CodexProvider{ID: "openai", BaseURL: "https://api.openai.com/v1", WireAPI: "responses", EnvKey: "OPENAI_API_KEY"}
		if codexHome != "" && cfg.PreferredAuth != "apikey" && chatGPTSignedIn(filepath.Join(codexHome, "auth.json")) {
			p.BaseURL, p.ChatGPT, p.EnvKey = "https://chatgpt.com/backend-api/codex", true, ""
		}
		return p, nil
	}
	if id == "oss" {
		return &CodexProvider{ID: "oss", BaseURL: "http://localhost:11434/v1", WireAPI: "chat"}, nil
	}
	t, ok := cfg.ModelProviders[id]
	if !ok {
		var known []string
		for k := range cfg.ModelProviders {
			known = append(known, k)
		}
		sort.Strings(known)
		return nil, fmt.Errorf("codex: model provider %q has no [model_providers.%s] in %s (known: %s)", id, id, filepath.Join(codexHome, "config.toml"), strings.Join(known, ", "))
	}
	if t.BaseURL == "" {
		return nil, fmt.Errorf("codex: model provider %q has no base_url", id)
	}
	if t.RequiresOpenAIAuth {
		return nil, errors.New("Codex's model provider " + id + " signs in with OpenAI's tokens, which ctx observe cannot pass on to it: give --upstream and a provider of your own")
	}
	wire := t.WireAPI
	if wire == "" {
		wire = "chat"
	}
	return &CodexProvider{ID: id, BaseURL: t.BaseURL, WireAPI: wire, EnvKey: t.EnvKey, QueryParams: t.QueryParams,
		HTTPHeaders: t.HTTPHeaders, EnvHTTPHeaders: t.EnvHTTPHeaders}, nil
}

// chatGPTSignedIn reports whether Codex's auth.json holds the tokens of a
// ChatGPT sign-in.
func chatGPTSignedIn(file string) bool {
	b, _, err := fileio.Read(file, maxAgentConfig)
	if err != nil {
		return false
	}
	var a struct {
		Tokens json.RawMessage `json:"tokens"`
	}
	return json.Unmarshal(b, &a) == nil && len(a.Tokens) > 0 && string(a.Tokens) != "null"
}

// codexHome is $CODEX_HOME, else ~/.codex.
func codexHome(getenv func(string) string, home string) string {
	if h := getenv("CODEX_HOME"); h != "" {
		return h
	}
	if home == "" {
		return ""
	}
	return filepath.Join(home, ".codex")
}

// tomlString quotes s as a TOML basic string.
func tomlString(s string) string {
	b, _ := json.Marshal(s) // JSON's escapes are TOML's
	return string(b)
}

// tomlTable writes a map as an inline TOML table, its keys sorted.
func tomlTable(m map[string]string) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, tomlString(k)+"="+tomlString(m[k]))
	}
	return "{" + strings.Join(parts, ",") + "}"
}
