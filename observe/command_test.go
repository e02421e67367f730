package observe

import (
	"strconv"
	"strings"
	"testing"

	"github.com/ctxaudit/ctx/measure"
)

// TestRecordedCommand: the record keeps the program, the flags and the
// short words of a command, and the size and hash of the rest.
func TestRecordedCommand(t *testing.T) {
	sh := func(s string) string {
		return "<" + strconv.Itoa(len(s)) + " bytes, blake3 " + measure.Hash([]byte(s))[:12] + ">"
	}
	token := "deploy with token ghp_Yk3IMJ9PvMJ11Uqz6DNLLgGxJCbUUrt93l4B"
	for _, tc := range []struct{ in, want []string }{
		{nil, nil},
		{[]string{"claude", "-p", "hi"}, []string{"claude", "-p", sh("hi")}},
		{[]string{"claude", "-p", token}, []string{"claude", "-p", sh(token)}},
		{[]string{"claude", "--model", "opus", "--print", "explain this"}, []string{"claude", "--model", "opus", "--print", sh("explain this")}},
		{[]string{"/usr/local/bin/codex", "exec", "--skip-git-repo-check", "-m", "gpt-5", "hi"},
			[]string{"/usr/local/bin/codex", "exec", "--skip-git-repo-check", "-m", "gpt-5", "hi"}},
		{[]string{"codex", "exec", "explain this repository"}, []string{"codex", "exec", sh("explain this repository")}},
		{[]string{"codex", "-c", `model_providers.x.http_headers={Authorization="Bearer s"}`, "exec", "resume", "--last"},
			[]string{"codex", "-c", sh(`model_providers.x.http_headers={Authorization="Bearer s"}`), "exec", "resume", "--last"}},
		{[]string{"claude", `--settings={"env":{"A":"1"}}`, "--model=opus"}, []string{"claude", "--settings=" + sh(`{"env":{"A":"1"}}`), "--model=opus"}},
		{[]string{"gemini", "-p", "hi", "-m", "gemini-2.5-flash"}, []string{"gemini", "-p", sh("hi"), "-m", "gemini-2.5-flash"}},
		{[]string{"x", "ghp_Yk3IMJ9PvMJ11Uqz6DNLLgGxJCbUUrt93l4B", "-", "--", "-p"}, []string{"x", sh("ghp_Yk3IMJ9PvMJ11Uqz6DNLLgGxJCbUUrt93l4B"), "-", "--", "-p"}},
		{[]string{"claude", "-p", "--verbose"}, []string{"claude", "-p", sh("--verbose")}},
		{[]string{"claude", "--key=0123456789abcdef0123456789abcdef"}, []string{"claude", "--key=" + sh("0123456789abcdef0123456789abcdef")}},
	} {
		got := recordedCommand(tc.in)
		if strings.Join(got, "\x00") != strings.Join(tc.want, "\x00") || len(got) != len(tc.want) {
			t.Errorf("recordedCommand(%q)\n got  %q\nwant %q", tc.in, got, tc.want)
		}
	}
}

// TestRecogniseWindows: npm's shims on Windows (claude.cmd, codex.cmd,
// gemini.cmd, and .bat), in a path of either separator.
func TestRecogniseWindows(t *testing.T) {
	for prog, want := range map[string]Agent{
		"claude.cmd": Claude, "CODEX.CMD": Codex, "gemini.bat": Gemini, "claude.exe": Claude,
		`C:\Users\me\AppData\Roaming\npm\codex.cmd`: Codex, `\\server\tools\gemini.cmd`: Gemini, "C:/npm/claude.bat": Claude,
		"claude.ps1": "", "claude.cmd.exe": "", "codex.sh": "", `C:\npm\`: "",
	} {
		if got := Recognise(prog); got != want {
			t.Errorf("Recognise(%q) = %q, want %q", prog, got, want)
		}
	}
}
