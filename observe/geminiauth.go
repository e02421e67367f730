package observe

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"

	"github.com/ctxaudit/ctx/internal/fileio"
	"github.com/ctxaudit/ctx/internal/jsonc"
)

// Gemini CLI's auth types (security.auth.selectedType) that send their
// requests to GOOGLE_GEMINI_BASE_URL.
const (
	geminiAPIKey  = "gemini-api-key"
	geminiGateway = "gateway"
)

// maxGeminiSettings bounds a Gemini CLI settings file ctx reads.
const maxGeminiSettings = 1 << 20

// GeminiAuth returns the auth type Gemini CLI's settings select
// (security.auth.selectedType; the system settings over the project's
// .gemini/settings.json in dir over the user's, as Gemini CLI merges
// them) and the file that selects it; "" and "" when none does (Gemini CLI
// then takes it from the environment when it runs without a terminal, and
// asks when it has one). Home is the user's home directory
// (GEMINI_CLI_HOME from getenv overrides it, as it does for Gemini CLI).
// A system settings file Gemini CLI would skip as insecure (not owned by
// root, or in a directory others may write) is skipped.
func GeminiAuth(dir, home string, getenv func(string) string) (typ, file string) {
	if h := getenv("GEMINI_CLI_HOME"); h != "" {
		home = h
	}
	var files []string
	if home != "" {
		files = append(files, filepath.Join(home, ".gemini", "settings.json"))
	}
	if dir != "" && dir != home {
		files = append(files, filepath.Join(dir, ".gemini", "settings.json"))
	}
	if sys := geminiSystemSettingsPath(getenv); secureSystemFile(sys) {
		files = append(files, sys)
	}
	for _, f := range files {
		s, ok := readGeminiSettings(f)
		if !ok {
			continue
		}
		if t := geminiSelected(s); t != "" {
			typ, file = t, f
		}
	}
	return typ, file
}

// geminiSystemSettingsPath is where Gemini CLI reads its system settings.
func geminiSystemSettingsPath(getenv func(string) string) string {
	if p := getenv(geminiSystemSettings); p != "" {
		return p
	}
	switch runtime.GOOS {
	case "darwin":
		return "/Library/Application Support/GeminiCli/settings.json"
	case "windows":
		return `C:\ProgramData\gemini-cli\settings.json`
	}
	return "/etc/gemini-cli/settings.json"
}

// readGeminiSettings reads a settings file as Gemini CLI does (JSON with
// comments); ok is false for one that is missing or not a JSON object.
func readGeminiSettings(p string) (map[string]any, bool) {
	b, _, err := fileio.Read(p, maxGeminiSettings)
	if err != nil {
		return nil, false
	}
	var s map[string]any
	if json.Unmarshal(jsonc.Strip(b), &s) != nil || s == nil {
		return nil, false
	}
	return s, true
}

// geminiSelected is security.auth.selectedType of settings s.
func geminiSelected(s map[string]any) string {
	sec, _ := s["security"].(map[string]any)
	auth, _ := sec["auth"].(map[string]any)
	t, _ := auth["selectedType"].(string)
	return t
}

// geminiInteractive reports whether Gemini CLI runs with its terminal
// interface for args and stdin: on a terminal, without a prompt flag (-p,
// --prompt) or a prompt given as an argument, or with -i.
func geminiInteractive(args []string, stdin io.Reader) bool {
	return isTerminal(stdin) && geminiInteractiveArgs(args)
}

// geminiInteractiveArgs reports whether args (the program first) start
// Gemini CLI's terminal interface when it has a terminal.
func geminiInteractiveArgs(args []string) bool {
	positional := false
	for i := 1; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-i" || a == "--prompt-interactive" || len(a) > 21 && a[:21] == "--prompt-interactive=":
			return true
		case a == "-p" || a == "--prompt" || len(a) > 9 && a[:9] == "--prompt=":
			return false
		case a == "--":
			return i+1 >= len(args)
		case len(a) > 0 && a[0] == '-':
			if slices.Contains(geminiValueFlags, a) {
				i++
			}
		default:
			positional = true
		}
	}
	return !positional
}

// geminiValueFlags are Gemini CLI's flags that take the next argument as
// their value.
var geminiValueFlags = []string{"-m", "--model", "-e", "--extensions", "--approval-mode", "--allowed-tools",
	"--allowed-mcp-server-names", "--include-directories", "-o", "--output-format", "--resume", "-r",
	"--policy", "--session-id"}

// geminiMockAuth makes a --mock session's Gemini CLI send its requests to
// the proxy: they go there under API-key or gateway auth, which the
// environment selects when Gemini CLI runs without a terminal and nothing
// is selected in its settings. Otherwise it writes system settings of the
// session's own that select API-key auth (over the existing system
// settings, kept) where Gemini CLI would honour them (ctx runs as root,
// the file in a directory only root may write), and returns the variable
// to set and a cleanup; else it says what to do: choose the key in Gemini
// CLI's sign-in dialog (notes), or an error naming the settings file
// whose choice sends requests elsewhere.
func geminiMockAuth(dir, home string, args []string, stdin io.Reader, getenv func(string) string, notes io.Writer) (env string, cleanup func(), err error) {
	typ, from := GeminiAuth(dir, home, getenv)
	if typ == geminiAPIKey || typ == geminiGateway || typ == "" && !geminiInteractive(args, stdin) {
		return "", func() {}, nil
	}
	if tmp, ok := privateSystemDir(); ok {
		s, _ := readGeminiSettings(geminiSystemSettingsPath(getenv))
		if !secureSystemFile(geminiSystemSettingsPath(getenv)) || s == nil {
			s = map[string]any{}
		}
		sec, _ := s["security"].(map[string]any)
		if sec == nil {
			sec = map[string]any{}
		}
		auth, _ := sec["auth"].(map[string]any)
		if auth == nil {
			auth = map[string]any{}
		}
		auth["selectedType"] = geminiAPIKey
		sec["auth"], s["security"] = auth, sec
		b, err := json.Marshal(s)
		if err == nil {
			p := filepath.Join(tmp, "settings.json")
			if err = os.WriteFile(p, append(b, '\n'), 0o600); err == nil {
				return geminiSystemSettings + "=" + p, func() { os.RemoveAll(tmp) }, nil
			}
		}
		os.RemoveAll(tmp)
		return "", nil, err
	}
	if typ == "" {
		if notes != nil {
			fmt.Fprintln(notes, `ctx observe: Gemini CLI will ask how to sign in: choose "Use Gemini API Key" (the key is the mock's own)`)
		}
		return "", func() {}, nil
	}
	return "", nil, fmt.Errorf("the sign-in of Gemini CLI is %q (selected in %s), which does not send requests to %s: for --mock, select %q there (\"security\": {\"auth\": {\"selectedType\": %q}}), or run Gemini CLI with -p and no selection", typ, from, Gemini.BaseURLVar(), geminiAPIKey, geminiAPIKey)
}

// privateSystemDir makes a temporary directory that Gemini CLI would take
// system settings from: it honours them only in a file owned by root, in
// directories owned by root that only root may write. ok is false when
// ctx does not run as root or no such directory can be made.
func privateSystemDir() (dir string, ok bool) {
	if !isRoot() {
		return "", false
	}
	base, err := os.UserCacheDir()
	if err != nil {
		return "", false
	}
	base = filepath.Join(base, "ctx")
	if os.MkdirAll(base, 0o700) != nil {
		return "", false
	}
	d, err := os.MkdirTemp(base, "observe-")
	if err != nil {
		return "", false
	}
	if !secureSystemFile(filepath.Join(d, "settings.json")) {
		os.RemoveAll(d)
		return "", false
	}
	return d, true
}
