package observe

import (
	"bytes"
	"context"
	"errors"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// fullRecord is a record with every field set.
func fullRecord() *Record {
	n, cut := 1234, 100
	return &Record{
		SchemaVersion: SchemaVersion, Tool: Tool{Name: "ctx", Version: "1.2.3"}, Agent: Codex, Mode: ModePassThrough,
		Upstream: "https://api.openai.com/v1", Dir: "/work/p", Command: []string{"codex", "exec", "hi"},
		Estimator: "ceiling(characters / 4), version 1",
		Requests: []Request{{
			Seq: 1, Method: "POST", Path: "/v1/responses", API: APIResponses, Client: "codex_exec 0.169.0",
			UserAgent: "codex_exec/0.169.0", Model: "gpt-5", Stream: true, Bytes: 30, Chars: 28, Tokens: 7,
			Segments: []Segment{
				{Kind: KindInstruction, Name: "/work/p/AGENTS.md", Bytes: 20, Chars: 18, Tokens: 5, File: &SentFile{
					Path: "/work/p/AGENTS.md", Status: SentCut, FileBytes: 200, SentBytes: 100, CutAt: &cut, FileHash: "fh", SentHash: "sh"}},
				{Kind: KindFraming, Bytes: 10, Chars: 10, Tokens: 2},
			},
			Status: 200, InputTokens: &n, Notes: []string{"a note"},
		}},
		Comparison: &Comparison{Profile: "codex", Checked: "Codex CLI 0.169.0", Request: 1, Differs: true,
			Files: []FileMatch{{Path: "/work/p/AGENTS.md", Predicted: "loaded", Sent: "cut at 100", Outcome: OutcomeCutDiffers}}},
	}
}

func TestEncodeDecode(t *testing.T) {
	for _, r := range []*Record{fullRecord(), {SchemaVersion: SchemaVersion, Mode: ModeMock, Requests: []Request{}}} {
		var b bytes.Buffer
		if err := Encode(&b, r); err != nil {
			t.Fatal(err)
		}
		if !bytes.HasSuffix(b.Bytes(), []byte("}\n")) || !bytes.Contains(b.Bytes(), []byte("\n  \"tool\"")) {
			t.Errorf("not indented JSON with a final newline:\n%s", b.String())
		}
		got, err := Decode(b.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, r) {
			t.Errorf("round trip:\n got %+v\nwant %+v", got, r)
		}
	}
	// no HTML escaping of paths and text
	r := fullRecord()
	r.Dir = "/a<b>&c"
	var b bytes.Buffer
	Encode(&b, r)
	if !strings.Contains(b.String(), `"dir": "/a<b>&c"`) {
		t.Errorf("escaped: %s", b.String())
	}
}

func TestDecodeRefuses(t *testing.T) {
	var good bytes.Buffer
	Encode(&good, fullRecord())
	for _, tc := range []struct {
		name, doc, err string
	}{
		{"another version", `{"schema_version":2,"requests":[]}`, "observation record of schema_version 2; this ctx reads version 1"},
		{"no version", `{"requests":[]}`, "schema_version 0"},
		{"a version that is not a number", `{"schema_version":"1"}`, "not an observation record"},
		{"an unknown field", `{"schema_version":1,"bogus":true}`, `unknown field "bogus"`},
		{"an unknown field of a request", `{"schema_version":1,"requests":[{"seq":1,"secret":"x"}]}`, `unknown field "secret"`},
		{"an unknown field of a file", `{"schema_version":1,"requests":[{"segments":[{"kind":"instruction_file","file":{"path":"/a","text":"x"}}]}]}`, `unknown field "text"`},
		{"data after the record", `{"schema_version":1} {"schema_version":1}`, "not an observation record"},
		{"text after the record", good.String() + "x", "not an observation record"},
		{"not JSON", `schema_version: 1`, "not an observation record"},
		{"empty", ``, "not an observation record"},
		{"a field of the wrong type", `{"schema_version":1,"requests":{}}`, "observation record: "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Decode([]byte(tc.doc))
			if err == nil {
				t.Fatalf("Decode accepted it: %+v", r)
			}
			if !strings.Contains(err.Error(), tc.err) {
				t.Errorf("error %q, want it to say %q", err, tc.err)
			}
		})
	}
	// white space after the record is no data
	if _, err := Decode(append(good.Bytes(), " \n\n"...)); err != nil {
		t.Errorf("white space after the record: %v", err)
	}
}

func TestTurn(t *testing.T) {
	req := func(seq int, api string, size int) Request { return Request{Seq: seq, API: api, Bytes: size} }
	ctxReq := func(seq int, api string, size int, kind Kind) Request {
		r := req(seq, api, size)
		r.Segments = []Segment{{Kind: KindSystemPrompt, Bytes: 1}, {Kind: kind, Bytes: size - 1}}
		return r
	}
	for _, tc := range []struct {
		name string
		reqs []Request
		want int // the Seq, 0 for none
	}{
		{"none", nil, 0},
		{"no request to a model", []Request{req(1, APICountTokens, 900), req(2, APIOther, 1000)}, 0},
		{"the largest", []Request{req(1, APIMessages, 500), req(2, APIMessages, 90000), req(3, APIMessages, 800)}, 2},
		{"count_tokens is larger, and skipped", []Request{req(1, APICountTokens, 100000), req(2, APIMessages, 50000)}, 2},
		{"other is larger, and skipped", []Request{req(1, APIMessages, 10), req(2, APIOther, 100)}, 1},
		{"each model API", []Request{req(1, APIResponses, 3), req(2, APIChatCompletions, 4), req(3, APIGenerateContent, 5)}, 3},
		{"a tie goes to the first", []Request{req(1, APIResponses, 7), req(2, APIResponses, 7)}, 1},
		// the first that carries the agent's context, not the largest: a
		// later request holds the files loaded since
		{"the first with tools", []Request{req(1, APIMessages, 500), ctxReq(2, APIMessages, 50000, KindTool), ctxReq(3, APIMessages, 90000, KindTool)}, 2},
		{"the first with a file", []Request{ctxReq(1, APICountTokens, 900, KindInstruction), ctxReq(2, APIResponses, 100, KindMemory),
			ctxReq(3, APIResponses, 9000, KindInstruction)}, 2},
		{"MCP tools", []Request{ctxReq(1, APIGenerateContent, 10, KindMCPTools), req(2, APIGenerateContent, 900)}, 1},
		// Gemini CLI's router asks with the context and no tools first
		{"tools over an earlier file", []Request{ctxReq(1, APIGenerateContent, 3700, KindInstruction), ctxReq(2, APIGenerateContent, 40000, KindTool)}, 2},
		{"other kinds are no context", []Request{ctxReq(1, APIMessages, 10, KindSystemPrompt), req(2, APIMessages, 900)}, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &Record{Requests: tc.reqs}
			got := r.Turn()
			switch {
			case tc.want == 0 && got != nil:
				t.Errorf("turn %d, want none", got.Seq)
			case tc.want != 0 && (got == nil || got.Seq != tc.want):
				t.Errorf("turn %+v, want %d", got, tc.want)
			case got != nil && got != &r.Requests[got.Seq-1]:
				t.Error("the turn is a copy, not the record's request")
			}
		})
	}
}

func TestLaunch(t *testing.T) {
	const base = "http://127.0.0.1:4000"
	settings := `{"env":{"ANTHROPIC_BASE_URL":"http://127.0.0.1:4000"}}`
	claude := func(rest ...string) []string { return append([]string{"claude", "--settings", settings}, rest...) }
	codexProvider := func(auth string) []string {
		return []string{"-c", `model_providers.ctx-observe={name="ctx observe",base_url="http://127.0.0.1:4000/v1",wire_api="responses",` + auth + `}`,
			"-c", "model_provider=ctx-observe"}
	}
	for _, tc := range []struct {
		name     string
		agent    Agent
		args     []string
		env      []string
		mock     bool
		wantArgs []string
		addEnv   []string // appended to env
	}{
		{"claude", Claude, []string{"claude", "-p", "hi"}, []string{"HOME=/h", "ANTHROPIC_API_KEY=sk-real"}, false,
			claude("-p", "hi"), []string{"ANTHROPIC_BASE_URL=" + base}},
		{"claude, settings of the user's", Claude, []string{"claude", "--settings", `{"model":"opus","env":{"A":"1"}}`, "-p", "hi"}, nil, false,
			[]string{"claude", "--settings", `{"env":{"A":"1","ANTHROPIC_BASE_URL":"http://127.0.0.1:4000"},"model":"opus"}`, "-p", "hi"}, []string{"ANTHROPIC_BASE_URL=" + base}},
		{"claude, settings= of the user's", Claude, []string{"claude", "-p", "hi", "--settings={}"}, nil, false,
			[]string{"claude", "-p", "hi", "--settings=" + settings}, []string{"ANTHROPIC_BASE_URL=" + base}},
		{"claude, no key", Claude, claude(), []string{"HOME=/h"}, false,
			claude(), []string{"ANTHROPIC_BASE_URL=" + base}},
		{"claude, mock, no key", Claude, claude(), []string{"HOME=/h"}, true,
			claude(), []string{"ANTHROPIC_API_KEY=ctx-observe-mock", "ANTHROPIC_BASE_URL=" + base}},
		{"claude, mock, an empty key", Claude, claude(), []string{"ANTHROPIC_API_KEY="}, true,
			claude(), []string{"ANTHROPIC_API_KEY=ctx-observe-mock", "ANTHROPIC_BASE_URL=" + base}},
		{"claude, mock, a key", Claude, claude(), []string{"ANTHROPIC_API_KEY=sk-real"}, true,
			claude(), []string{"ANTHROPIC_BASE_URL=" + base}},
		{"claude, mock, a key emptied later", Claude, claude(), []string{"ANTHROPIC_API_KEY=sk-real", "ANTHROPIC_API_KEY="}, true,
			claude(), []string{"ANTHROPIC_API_KEY=ctx-observe-mock", "ANTHROPIC_BASE_URL=" + base}},
		{"claude, a base URL of the user's", Claude, claude(), []string{"ANTHROPIC_BASE_URL=https://gateway"}, false,
			claude(), []string{"ANTHROPIC_BASE_URL=" + base}},
		{"gemini", Gemini, []string{"gemini", "-p", "hi"}, []string{"GEMINI_API_KEY=g"}, false,
			[]string{"gemini", "-p", "hi"}, []string{"GOOGLE_GEMINI_BASE_URL=" + base}},
		{"gemini, mock, no key", Gemini, []string{"gemini"}, nil, true,
			[]string{"gemini"}, []string{"GEMINI_API_KEY=ctx-observe-mock", "GOOGLE_GEMINI_BASE_URL=" + base}},
		{"codex, a key", Codex, []string{"/usr/bin/codex", "exec", "hi"}, []string{"OPENAI_API_KEY=sk-o"}, false,
			append(append([]string{"/usr/bin/codex"}, codexProvider(`env_key="OPENAI_API_KEY"`)...), "exec", "hi"), nil},
		{"codex, a ChatGPT sign-in", Codex, []string{"codex", "exec", "hi"}, []string{"HOME=/h"}, false,
			append(append([]string{"codex"}, codexProvider(`requires_openai_auth=true`)...), "exec", "hi"), nil},
		{"codex, mock, no key", Codex, []string{"codex"}, nil, true,
			append([]string{"codex"}, codexProvider(`env_key="OPENAI_API_KEY"`)...), []string{"OPENAI_API_KEY=ctx-observe-mock"}},
		{"codex, mock, a key", Codex, []string{"codex", "-m", "gpt-5"}, []string{"OPENAI_API_KEY=sk-o"}, true,
			append(append([]string{"codex"}, codexProvider(`env_key="OPENAI_API_KEY"`)...), "-m", "gpt-5"), nil},
		{"codex, a provider of the user's left out", Codex, []string{"codex", "-c", "model_provider=local", "--oss", "exec", "hi"}, []string{"OPENAI_API_KEY=sk-o"}, false,
			append(append([]string{"codex"}, codexProvider(`env_key="OPENAI_API_KEY"`)...), "exec", "hi"), nil},
		{"no agent", "", []string{"prog", "x"}, []string{"A=1"}, true, []string{"prog", "x"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args, env := slices.Clone(tc.args), slices.Clone(tc.env)
			gotArgs, gotEnv := Launch(tc.agent, base, args, env, tc.mock)
			if !slices.Equal(gotArgs, tc.wantArgs) {
				t.Errorf("args\n  %q\nwant\n  %q", gotArgs, tc.wantArgs)
			}
			if want := append(slices.Clone(tc.env), tc.addEnv...); !slices.Equal(gotEnv, want) {
				t.Errorf("env\n  %q\nwant\n  %q", gotEnv, want)
			}
			if !slices.Equal(args, tc.args) || !slices.Equal(env, tc.env) {
				t.Errorf("Launch changed its arguments: %q %q", args, env)
			}
		})
	}
}

func TestAgents(t *testing.T) {
	for prog, want := range map[string]Agent{
		"claude": Claude, "/usr/local/bin/claude": Claude, "CLAUDE.EXE": Claude, "./node_modules/.bin/codex": Codex,
		"codex": Codex, "gemini": Gemini, "Gemini.exe": Gemini, "node": "", "claude-code": "", "": "", "/": "", "codex.sh": "",
	} {
		if got := Recognise(prog); got != want {
			t.Errorf("Recognise(%q) = %q, want %q", prog, got, want)
		}
	}
	for _, a := range Agents() {
		if got, err := ParseAgent(string(a)); err != nil || got != a {
			t.Errorf("ParseAgent(%q) = %q, %v", a, got, err)
		}
	}
	for _, s := range []string{"", "Claude", "copilot"} {
		if _, err := ParseAgent(s); err == nil || !strings.Contains(err.Error(), "known: claude, codex, gemini") {
			t.Errorf("ParseAgent(%q): %v", s, err)
		}
	}
	env := map[string]string{}
	getenv := func(k string) string { return env[k] }
	for _, tc := range []struct {
		agent Agent
		env   map[string]string
		want  string
	}{
		{Claude, nil, "https://api.anthropic.com"},
		{Claude, map[string]string{"ANTHROPIC_BASE_URL": "https://gw"}, "https://gw"},
		{Gemini, nil, "https://generativelanguage.googleapis.com"},
		{Gemini, map[string]string{"GOOGLE_GEMINI_BASE_URL": "https://g"}, "https://g"},
		{Codex, nil, "https://chatgpt.com/backend-api/codex"},
		{Codex, map[string]string{"OPENAI_API_KEY": "k"}, "https://api.openai.com/v1"},
		{"", nil, ""},
	} {
		clear(env)
		for k, v := range tc.env {
			env[k] = v
		}
		if got := tc.agent.DefaultUpstream(getenv); got != tc.want {
			t.Errorf("%q.DefaultUpstream(%v) = %q, want %q", tc.agent, tc.env, got, tc.want)
		}
	}
	if got := Claude.DefaultUpstream(nil); got != "https://api.anthropic.com" {
		t.Errorf("DefaultUpstream(nil) = %q", got)
	}
}

func TestCleanPath(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"/v1/messages", "/v1/messages"},
		{"/v1/messages?beta=true", "/v1/messages?beta=true"},
		{"/v1beta/models/m:generateContent?key=SECRET", "/v1beta/models/m:generateContent"},
		{"/v1beta/models/m:streamGenerateContent?alt=sse&key=SECRET", "/v1beta/models/m:streamGenerateContent?alt=sse"},
		{"/x?key=SECRET&alt=sse", "/x?alt=sse"},
		{"/x?b=2&a=1&KEY=SECRET", "/x?b=2&a=1"},
		{"/x?api_key=S1&apiKey=S2&access_token=S3&token=S4&auth=S5&sig=S6&signature=S7&x-goog-api-key=S8", "/x"},
		{"/x?%6Bey=SECRET", "/x"},
		{"/x?key", "/x"},
		{"/x?key=", "/x"},
		{"/x?alt=sse;key=SECRET", "/x?alt=sse"},
		{"/x?key=SE%zzCRET&alt=sse", "/x?alt=sse"},
		{"/x?k%zzey=1", "/x?k%zzey=1"},
		{"/x?monkey=1&keys=2", "/x?monkey=1&keys=2"},
		{"/a%2Fb?key=SECRET", "/a%2Fb"},
		{"/x?", "/x?"},
	} {
		u, err := url.Parse(tc.in)
		if err != nil {
			t.Fatal(err)
		}
		if got := cleanPath(u); got != tc.want {
			t.Errorf("cleanPath(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// FuzzCleanPath: no parameter named like a credential is left in a path,
// however its query is split or escaped.
func FuzzCleanPath(f *testing.F) {
	for _, s := range []string{"/x?key=S", "/x?alt=sse;key=S", "/x?key=S%zz", "/x?%6Bey=S&a=1", "/x?a=1&&key", "/x?", "/x?KEY=1;;b",
		"/x?api%5Fkey=S", "/x?key=a&key=b", "/x?+key=S"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		u, err := url.Parse(s)
		if err != nil {
			return
		}
		got := cleanPath(u)
		_, query, _ := strings.Cut(got, "?")
		for _, part := range strings.FieldsFunc(query, func(r rune) bool { return r == '&' || r == ';' }) {
			name, _, _ := strings.Cut(part, "=")
			if n, err := url.QueryUnescape(name); err == nil {
				name = n
			}
			if secretParam(name) {
				t.Fatalf("cleanPath(%q) = %q keeps %q", s, got, part)
			}
		}
		if q, err := url.ParseQuery(query); err == nil {
			for k := range q {
				if secretParam(k) {
					t.Fatalf("cleanPath(%q) = %q keeps %q", s, got, k)
				}
			}
		}
	})
}

func TestRedactURL(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"https://api.anthropic.com", "https://api.anthropic.com"},
		{"http://127.0.0.1:8080/v1", "http://127.0.0.1:8080/v1"},
		{"https://user:pass@host/path?key=x", "https://host/path"},
		{"https://user@host", "https://host"},
		{"https://u:p@ss@host/x", "https://host/x"},
		{"https://host?q=a@b", "https://host"},
		{"https://host/p@th", "https://host/p@th"},
		{"https://host#frag@x", "https://host#frag@x"},
		{"https://host/?key=SECRET", "https://host/"},
		{"no-scheme?key=x", "no-scheme"},
		{"", ""},
	} {
		if got := redactURL(tc.in); got != tc.want {
			t.Errorf("redactURL(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestShellJoin(t *testing.T) {
	got := shellJoin([]string{"-c", `model_provider=ctx-observe`, `a b`, `it's`, ""})
	want := `-c model_provider=ctx-observe 'a b' 'it'\''s' ''`
	if got != want {
		t.Errorf("shellJoin = %s, want %s", got, want)
	}
}

func TestRedact(t *testing.T) {
	r := fullRecord()
	err := Redact(context.Background(), r, func(_ context.Context, s string) (string, error) {
		return strings.ReplaceAll(s, "work", "REDACTED"), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if r.Dir != "/REDACTED/p" || r.Requests[0].Segments[0].Name != "/REDACTED/p/AGENTS.md" ||
		r.Requests[0].Segments[0].File.Path != "/REDACTED/p/AGENTS.md" || r.Comparison.Files[0].Path != "/REDACTED/p/AGENTS.md" {
		t.Errorf("redacted %+v", r)
	}
	boom := errors.New("boom")
	calls := 0
	err = Redact(context.Background(), fullRecord(), func(context.Context, string) (string, error) { calls++; return "", boom })
	if !errors.Is(err, boom) || calls != 1 {
		t.Errorf("Redact: %v after %d calls, want the first error, at once", err, calls)
	}
}

// TestWriteSummary: the summary names the turn, its segments and the
// comparison, with what the agent controls escaped.
func TestWriteSummary(t *testing.T) {
	r := fullRecord()
	r.Requests[0].Model = "gpt-5\x1b[31m"
	var b bytes.Buffer
	if err := WriteSummary(&b, r, SummaryOptions{Width: 100, Dir: "/work/p"}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"ctx observe: codex, pass-through; 1 request", "the provider counted 1,234 input tokens",
		"instruction files (1)", "AGENTS.md (cut at 100)", "note: a note", "cut differs", "The prediction differs"} {
		if !strings.Contains(out, want) {
			t.Errorf("the summary lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "\x1b") {
		t.Errorf("an escape reached the summary:\n%q", out)
	}
	// a record read back, whose cut file gives no byte
	r.Requests[0].Segments[0].File.CutAt = nil
	b.Reset()
	if err := WriteSummary(&b, r, SummaryOptions{}); err != nil || !strings.Contains(b.String(), "AGENTS.md (cut)") {
		t.Errorf("a cut of no byte: %v\n%s", err, b.String())
	}
	b.Reset()
	if err := WriteSummary(&b, &Record{Mode: ModeMock}, SummaryOptions{}); err != nil || !strings.Contains(b.String(), "No request to a model") {
		t.Errorf("an empty record: %v %q", err, b.String())
	}
}
