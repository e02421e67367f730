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
// (claude, codex, gemini, with or without a path or .exe), or "".
func Recognise(program string) Agent {
	name := strings.TrimSuffix(strings.ToLower(filepath.Base(program)), ".exe")
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
// agent a at the proxy's base URL: the agent's base-URL variable, and for
// Codex a model provider given with -c right after the program name
// (wire_api responses; the user's API key, or their ChatGPT sign-in when
// there is no key). In mock mode the agent's key is set to a dummy when it
// is empty, so that the agent starts without one.
func Launch(a Agent, base string, args, env []string, mock bool) ([]string, []string) {
	get := func(k string) string {
		for i := len(env) - 1; i >= 0; i-- {
			if v, ok := strings.CutPrefix(env[i], k+"="); ok {
				return v
			}
		}
		return ""
	}
	env = append([]string(nil), env...)
	if mock && a.KeyVar() != "" && get(a.KeyVar()) == "" {
		env = append(env, a.KeyVar()+"=ctx-observe-mock")
	}
	switch a {
	case Claude, Gemini:
		env = append(env, a.BaseURLVar()+"="+base)
		return args, env
	case Codex:
		auth := `env_key="OPENAI_API_KEY"`
		if !mock && get("OPENAI_API_KEY") == "" {
			auth = "requires_openai_auth=true"
		}
		provider := fmt.Sprintf(`model_providers.%s={name="ctx observe",base_url=%q,wire_api="responses",%s}`, codexProvider, base+"/v1", auth)
		out := append([]string{args[0], "-c", provider, "-c", "model_provider=" + codexProvider}, args[1:]...)
		return out, env
	}
	return args, env
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
