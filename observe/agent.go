package observe

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
)

// Agent names an agent whose requests the proxy knows.
type Agent string

// The agents.
const (
	Claude Agent = "claude"
	Codex  Agent = "codex"
	Gemini Agent = "gemini"
)

// Agents returns the known agents.
func Agents() []Agent { return []Agent{Claude, Codex, Gemini} }

// ParseAgent checks s against [Agents].
func ParseAgent(s string) (Agent, error) {
	for _, a := range Agents() {
		if Agent(s) == a {
			return a, nil
		}
	}
	return "", fmt.Errorf("unknown agent %q (known: claude, codex, gemini)", s)
}

// Recognise returns the agent a command runs, from the name of its program
// (claude, codex, gemini, with or without a path, / or \, and with or
// without .exe or the .cmd and .bat shims npm installs on Windows), or "".
func Recognise(program string) Agent {
	name := strings.ToLower(filepath.Base(program))
	if i := strings.LastIndexAny(name, `/\`); i >= 0 {
		name = name[i+1:]
	}
	for _, ext := range []string{".exe", ".cmd", ".bat"} {
		if n, ok := strings.CutSuffix(name, ext); ok {
			name = n
			break
		}
	}
	for _, a := range Agents() {
		if name == string(a) {
			return a
		}
	}
	return ""
}

// BaseURLVar is the environment variable that points the agent at its
// model endpoint ("" for Codex, which takes a model provider in its
// configuration instead: see [Launch]).
func (a Agent) BaseURLVar() string {
	switch a {
	case Claude:
		return "ANTHROPIC_BASE_URL"
	case Gemini:
		return "GOOGLE_GEMINI_BASE_URL"
	}
	return ""
}

// KeyVar is the environment variable of the agent's API key, which mock
// mode sets to a dummy when it is empty.
func (a Agent) KeyVar() string {
	switch a {
	case Claude:
		return "ANTHROPIC_API_KEY"
	case Codex:
		return "OPENAI_API_KEY"
	case Gemini:
		return "GEMINI_API_KEY"
	}
	return ""
}

// DefaultUpstream is the endpoint requests go to when the user names
// none: the value of the agent's base-URL variable in env when it is set
// (a gateway the user already uses), else the provider's API.
func (a Agent) DefaultUpstream(getenv func(string) string) string {
	if v := a.BaseURLVar(); v != "" && getenv != nil {
		if u := getenv(v); u != "" {
			return u
		}
	}
	switch a {
	case Claude:
		return "https://api.anthropic.com"
	case Codex:
		if getenv != nil && getenv("OPENAI_API_KEY") == "" {
			return "https://chatgpt.com/backend-api/codex" // a ChatGPT sign-in
		}
		return "https://api.openai.com/v1"
	case Gemini:
		return "https://generativelanguage.googleapis.com"
	}
	return ""
}

// codexProvider is the name of the model provider Launch gives Codex.
const codexProvider = "ctx-observe"

// Launch returns the arguments and environment that point the command of
// agent a at the proxy's base URL: [LaunchWith] with Codex's built-in
// provider and no --settings of the user's read.
func Launch(a Agent, base string, args, env []string, mock bool) ([]string, []string) {
	out, env, err := LaunchWith(a, base, args, env, mock, nil)
	if err != nil {
		return args, env
	}
	return out, env
}

// LaunchWith returns the arguments and environment that point the command
// of agent a at the proxy's base URL:
//   - Claude Code: ANTHROPIC_BASE_URL, and the same in --settings right
//     after the program's name (or merged into the user's last --settings),
//     which Claude Code applies over the env of its settings files;
//   - Gemini CLI: GOOGLE_GEMINI_BASE_URL;
//   - Codex: a model provider given with -c right after the program's name,
//     with the wire API, key variable, query parameters and headers of cp
//     (the user's own provider; nil is the built-in one): the user's API
//     key, or their ChatGPT sign-in.
//
// In mock mode the agent's key is set to a dummy when it is empty, so that
// the agent starts without one.
func LaunchWith(a Agent, base string, args, env []string, mock bool, cp *CodexProvider) ([]string, []string, error) {
	get := func(k string) string {
		for i := len(env) - 1; i >= 0; i-- {
			if v, ok := strings.CutPrefix(env[i], k+"="); ok {
				return v
			}
		}
		return ""
	}
	env = append([]string(nil), env...)
	if cp == nil {
		cp = &CodexProvider{ID: "openai", WireAPI: "responses", EnvKey: "OPENAI_API_KEY", ChatGPT: !mock && get("OPENAI_API_KEY") == ""}
	}
	key := a.KeyVar()
	if a == Codex && cp.EnvKey != "" {
		key = cp.EnvKey
	}
	if mock && key != "" && get(key) == "" {
		env = append(env, key+"=ctx-observe-mock")
	}
	switch a {
	case Claude:
		env = append(env, a.BaseURLVar()+"="+base)
		out, err := claudeSettings(args, base)
		return out, env, err
	case Gemini:
		env = append(env, a.BaseURLVar()+"="+base)
		return args, env, nil
	case Codex:
		fields := []string{`name="ctx observe"`, "base_url=" + tomlString(base+"/v1"), "wire_api=" + tomlString(cp.WireAPI)}
		switch {
		case mock:
			if key == "" {
				key = "OPENAI_API_KEY"
				if get(key) == "" {
					env = append(env, key+"=ctx-observe-mock")
				}
			}
			fields = append(fields, "env_key="+tomlString(key))
		case cp.ChatGPT:
			fields = append(fields, "requires_openai_auth=true")
		case cp.EnvKey != "":
			fields = append(fields, "env_key="+tomlString(cp.EnvKey))
		}
		if len(cp.QueryParams) > 0 {
			fields = append(fields, "query_params="+tomlTable(cp.QueryParams))
		}
		if len(cp.HTTPHeaders) > 0 {
			fields = append(fields, "http_headers="+tomlTable(cp.HTTPHeaders))
		}
		if len(cp.EnvHTTPHeaders) > 0 {
			fields = append(fields, "env_http_headers="+tomlTable(cp.EnvHTTPHeaders))
		}
		provider := "model_providers." + codexProvider + "={" + strings.Join(fields, ",") + "}"
		// the user's own choice of provider (resolved into cp) would
		// override ctx's: it is left out
		var rest []string
		for i := 1; i < len(args); i++ {
			switch a := args[i]; {
			case (a == "-c" || a == "--config") && i+1 < len(args) && strings.HasPrefix(args[i+1], "model_provider="):
				i++
			case a == "--oss":
			default:
				rest = append(rest, a)
			}
		}
		out := append([]string{args[0], "-c", provider, "-c", "model_provider=" + codexProvider}, rest...)
		return out, env, nil
	}
	return args, env, nil
}

// clientRe finds the agent and version in a User-Agent header:
// "claude-cli/2.1.328 (...)", "codex_exec/0.169.0 (...)",
// "GeminiCLI-tui/0.61.0/gemini-2.5-flash (...)".
var clientRe = regexp.MustCompile(`^([A-Za-z][A-Za-z0-9_.-]*)/([0-9][0-9A-Za-z.+-]*)`)

// client returns "name version" of a User-Agent, or "".
func client(ua string) string {
	m := clientRe.FindStringSubmatch(ua)
	if m == nil {
		return ""
	}
	return m[1] + " " + m[2]
}
