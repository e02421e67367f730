package observe_test

// A whole session with a fake agent: the test binary itself, run again
// with CTX_OBSERVE_FAKE_AGENT set (TestMain), which speaks to the proxy as
// Claude Code or Codex would. It runs in every lane, the race detector's
// too: the proxy serves its requests concurrently.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/ctxaudit/ctx/observe"
	"github.com/ctxaudit/ctx/profile"
)

func TestMain(m *testing.M) {
	if a := os.Getenv("CTX_OBSERVE_FAKE_AGENT"); a != "" {
		os.Exit(fakeAgent(observe.Agent(a)))
	}
	os.Exit(m.Run())
}

// fakeAgent sends, through the proxy it was pointed at, the first turn of
// agent in the working directory: its instruction file in the agent's
// header, a tool, the prompt; then CTX_OBSERVE_FAKE_REQUESTS more turns at
// once. It prints the model's answer and exits CTX_OBSERVE_FAKE_EXIT.
func fakeAgent(a observe.Agent) int {
	dir, _ := os.Getwd()
	var url, body string
	header := map[string]string{"Content-Type": "application/json"}
	switch a {
	case observe.Claude:
		url = os.Getenv("ANTHROPIC_BASE_URL") + "/v1/messages?beta=true"
		header["x-api-key"] = os.Getenv("ANTHROPIC_API_KEY")
		header["User-Agent"] = "claude-cli/0.0.1 (fake)"
		file := filepath.Join(dir, "CLAUDE.md")
		b, _ := os.ReadFile(file)
		reminder := "<system-reminder>\nContents of " + file + " (project instructions, checked into the codebase):\n\n" + strings.TrimSpace(string(b)) +
			"\n</system-reminder>"
		body = `{"model":"claude-fake","stream":false,"system":[{"type":"text","text":"You are a fake agent."}],` +
			`"tools":[{"name":"Bash","input_schema":{"type":"object"}}],"messages":[{"role":"user","content":[` +
			`{"type":"text","text":` + quote(reminder) + `},{"type":"text","text":"hi"}]}]}`
	case observe.Codex:
		// the provider ctx gives with -c
		m := regexp.MustCompile(`base_url="([^"]+)"`).FindStringSubmatch(strings.Join(os.Args, " "))
		if m == nil {
			fmt.Fprintln(os.Stderr, "fake codex: no provider in", os.Args)
			return 2
		}
		url = m[1] + "/responses"
		header["Authorization"] = "Bearer " + os.Getenv("OPENAI_API_KEY")
		header["User-Agent"] = "codex_exec/0.0.1 (fake)"
		b, _ := os.ReadFile(filepath.Join(dir, "AGENTS.md"))
		block := "# AGENTS.md instructions for " + dir + "\n\n<INSTRUCTIONS>\n" + string(b) + "\n</INSTRUCTIONS>"
		body = `{"model":"gpt-fake","stream":false,"instructions":"You are a fake agent.","tools":[{"type":"function","name":"shell"}],` +
			`"input":[{"type":"message","role":"user","content":[{"type":"input_text","text":` + quote(block) + `}]},` +
			`{"type":"message","role":"user","content":[{"type":"input_text","text":"hi"}]}]}`
	default:
		return 2
	}
	send := func() (string, error) {
		req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
		if err != nil {
			return "", err
		}
		for k, v := range header {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return "", err
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusOK {
			return "", fmt.Errorf("status %d: %s", resp.StatusCode, b)
		}
		return string(b), err
	}
	reply, err := send()
	if err != nil {
		fmt.Fprintln(os.Stderr, "fake agent:", err)
		return 2
	}
	var wg sync.WaitGroup
	more, _ := strconv.Atoi(os.Getenv("CTX_OBSERVE_FAKE_REQUESTS"))
	for range more {
		wg.Go(func() {
			if _, err := send(); err != nil {
				fmt.Fprintln(os.Stderr, "fake agent:", err)
			}
		})
	}
	wg.Wait()
	if strings.Contains(reply, observe.MockReply) {
		fmt.Println(observe.MockReply)
	}
	code, _ := strconv.Atoi(os.Getenv("CTX_OBSERVE_FAKE_EXIT"))
	return code
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// TestRunSessionFakeAgent: RunSession starts the command pointed at its
// proxy, passes its output and exit status through, and records what it
// sent: every request, the turn's instruction file whole, the prediction
// matched; the command by its shape.
func TestRunSessionFakeAgent(t *testing.T) {
	for _, tc := range []struct {
		agent observe.Agent
		file  string
		exit  int
	}{
		{observe.Claude, "CLAUDE.md", 0},
		{observe.Codex, "AGENTS.md", 3},
	} {
		t.Run(string(tc.agent), func(t *testing.T) {
			root, err := filepath.EvalSymlinks(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			dir, home := filepath.Join(root, "project"), filepath.Join(root, "home")
			for _, d := range []string{filepath.Join(dir, ".git"), home} {
				if err := os.MkdirAll(d, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.WriteFile(filepath.Join(dir, tc.file), []byte("# Rules\nUse tabs.\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			chain, err := profile.Load(context.Background(), profile.Name(tc.agent), profile.Options{Dir: dir, Home: home,
				Getenv: func(string) string { return "" }, ManagedDir: filepath.Join(root, "managed")})
			if err != nil {
				t.Fatal(err)
			}
			var given []string
			for _, f := range chain.Files {
				given = append(given, f.Path)
			}
			env := []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "CTX_OBSERVE_FAKE_AGENT=" + string(tc.agent),
				"CTX_OBSERVE_FAKE_REQUESTS=8", "CTX_OBSERVE_FAKE_EXIT=" + strconv.Itoa(tc.exit)}
			command := []string{os.Args[0], "-p", "deploy with token ghp_Yk3IMJ9PvMJ11Uqz6DNLLgGxJCbUUrt93l4B"}
			var stdout, stderr bytes.Buffer
			rec, state, err := observe.RunSession(context.Background(), observe.SessionOptions{Agent: tc.agent, Command: command,
				Dir: dir, Env: env, Stdout: &stdout, Stderr: &stderr, Mock: true, Files: observe.NewFiles(dir, chain.Root, home, given)})
			if err != nil {
				t.Fatal(err)
			}
			if state.ExitCode() != tc.exit || strings.TrimSpace(stdout.String()) != observe.MockReply {
				t.Fatalf("exit %d, stdout %q, stderr %q; want %d and the mock's reply", state.ExitCode(), stdout.String(), stderr.String(), tc.exit)
			}
			if len(rec.Requests) != 9 || rec.Agent != tc.agent || rec.Mode != observe.ModeMock || rec.Dir != dir {
				t.Fatalf("record of %d requests, agent %q mode %q dir %q", len(rec.Requests), rec.Agent, rec.Mode, rec.Dir)
			}
			for _, q := range rec.Requests {
				sum := 0
				for _, s := range q.Segments {
					sum += s.Bytes
				}
				if q.Status != http.StatusOK || sum != q.Bytes || q.Bytes == 0 {
					t.Errorf("request %d: status %d, segments of %d bytes for %d", q.Seq, q.Status, sum, q.Bytes)
				}
			}
			turn := rec.Turn()
			files := turn.SentFiles()
			if len(files) != 1 || files[0].Path != filepath.Join(dir, tc.file) || files[0].Status != observe.SentWhole {
				t.Errorf("the turn's files: %+v", files)
			}
			rec.Comparison = observe.Compare(chain, turn)
			if rec.Comparison.Differs {
				t.Errorf("the prediction differs: %+v", rec.Comparison.Files)
			}
			if got := strings.Join(rec.Command, " "); strings.Contains(got, "ghp_") || !strings.HasPrefix(got, os.Args[0]+" -p <58 bytes, blake3 ") {
				t.Errorf("the record's command %q", got)
			}
			var b bytes.Buffer
			if err := observe.WriteSummary(&b, rec, observe.SummaryOptions{Width: 80, Dir: dir}); err != nil || !strings.Contains(b.String(), "The prediction matches") {
				t.Errorf("summary %v:\n%s", err, b.String())
			}
		})
	}
}
