package config

import (
	"context"
	"fmt"
	"reflect"
	"testing"

	"github.com/ctxaudit/ctx/history"
)

func TestDecodeHistory(t *testing.T) {
	src := `agent = "claude"

[history]
history = "chat/history.json"
max_messages = 40
max_tokens = 9000
tool_cleanup = "auto"
context_window = 32000
threshold = 0.5
keep_tool_rounds = 1
preserve = ["m7", "m9"]
attachments = "chat/files"
sandbox = true
tool_use_for_files = true
fixes = true
escape_envelope = false
pin_summary = true
max_error_result_chars = 0
max_inline_bytes = 4096
`
	c, err := Decode("ctx.toml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	d := c.History
	if d == nil {
		t.Fatal("no history")
	}
	got := fmt.Sprintf("%d %s %d %d %s %d %v %d %v %s %v %v %v %v %v %v %d %d", d.Line, d.History, *d.MaxMessages,
		*d.MaxTokens, d.ToolCleanup, *d.ContextWindow, *d.Threshold, *d.KeepToolRounds, d.Preserve,
		*d.Attachments, d.Sandbox, d.ToolUseForFiles, d.Fixes, *d.EscapeEnvelope, *d.PinSummary,
		d.CutAtRoundBoundary == nil, *d.MaxErrorResultChars, *d.MaxInlineBytes)
	want := "3 chat/history.json 40 9000 auto 32000 0.5 1 [m7 m9] chat/files true true true false true true 0 4096"
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

func TestDecodeHistoryMinimal(t *testing.T) {
	c, err := Decode("ctx.toml", []byte("[history]\nhistory = \"h.json\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	d := c.History
	if d.History != "h.json" || d.MaxMessages != nil || d.ToolCleanup != "" || d.Threshold != nil ||
		d.Preserve != nil || d.Attachments != nil || d.Sandbox || d.Fixes || d.PinSummary != nil {
		t.Errorf("defaults: %+v", d)
	}
	c, err = Decode("ctx.toml", []byte("agent = \"x\"\n"))
	if err != nil || c.History != nil {
		t.Errorf("absent table: %+v, %v", c.History, err)
	}
}

// [history] was [discussion]: the old name is read the same, with a
// warning naming the file and line; both names at once are an error.
func TestDecodeHistoryOldName(t *testing.T) {
	for _, tc := range []struct {
		name, src      string
		table, warning string
		err            string
		historyLine    int
	}{
		{"new name", "agent = \"x\"\n\n[history]\nhistory = \"h.json\"\n", "history", "", "", 4},
		{"old name", "agent = \"x\"\n\n[discussion]\nhistory = \"h.json\"\n", "discussion", "ctx.toml:3: [discussion] is now [history]", "", 4},
		{"both", "[history]\nhistory = \"a.json\"\n\n[discussion]\nhistory = \"b.json\"\n", "", "", "ctx.toml:4: [discussion] and [history] are the same table; keep [history]", 0},
		{"both, old first", "[discussion]\nhistory = \"b.json\"\n[history]\nhistory = \"a.json\"\n", "", "", "ctx.toml:1: [discussion] and [history] are the same table; keep [history]", 0},
		{"old name, bad key", "[discussion]\nhistory = \"h\"\nmax_messages = -1\n", "", "", "ctx.toml:3: discussion.max_messages: must not be negative, not -1", 0},
		{"old name, not a table", "discussion = 1\n", "", "", "ctx.toml:1: discussion: must be a table, not an integer", 0},
		{"unknown key lists the new name only", "discusion = 1\n", "", "", "ctx.toml:1: discusion: unknown key (allowed: agent, profile, workspace_dir, shared_path, native_paths, discover, estimator, sources, budgets, audit, files, screenshots, output, presets, history, relative_paths, secrets, execution_mode, beads_path)", 0},
	} {
		c, err := Decode("ctx.toml", []byte(tc.src))
		if tc.err != "" {
			if err == nil || err.Error() != tc.err {
				t.Errorf("%s: got %v, want %s", tc.name, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if h := c.History; h == nil || h.Table != tc.table || h.History != "h.json" || h.Line != 3 || h.HistoryLine != tc.historyLine {
			t.Errorf("%s: %+v", tc.name, h)
		}
		var want []string
		if tc.warning != "" {
			want = []string{tc.warning}
		}
		if !reflect.DeepEqual(c.Warnings, want) {
			t.Errorf("%s: warnings %q, want %q", tc.name, c.Warnings, want)
		}
	}
}

func TestDecodeHistoryErrors(t *testing.T) {
	for _, tc := range []struct {
		src, want string
	}{
		{"history = 1", "ctx.toml:1: history: must be a table, not an integer"},
		{"[history]\nmax_messages = 3", "ctx.toml:1: history: missing history (the history file, such as \"history.json\")"},
		{"[history]\nhistory = \"\"", "ctx.toml:2: history.history: must not be empty"},
		{"[history]\nhistory = 1", "ctx.toml:2: history.history: must be a string, not an integer"},
		{"[history]\nhistory = \"h\"\nfile = \"x\"", "ctx.toml:3: history.file: unknown key (allowed: history, max_messages, max_tokens, tool_cleanup, context_window, threshold, keep_tool_rounds, preserve, attachments, sandbox, tool_use_for_files, fixes, pin_summary, cut_at_round_boundary, no_larger_stubs, keep_current_turn, attachment_as_own_part, escape_envelope, file_size_in_bytes, mark_missing_attachments, max_error_result_chars, max_inline_bytes)"},
		{"[history]\nhistory = \"h\"\nmax_messages = -1", "ctx.toml:3: history.max_messages: must not be negative, not -1"},
		{"[history]\nhistory = \"h\"\nmax_tokens = 1.5", "ctx.toml:3: history.max_tokens: must be a number of tokens (1 or more), or inf (or leave it out) for no limit, not 1.5"},
		{"[history]\nhistory = \"h\"\nmax_tokens = 0", "ctx.toml:3: history.max_tokens: must be a number of tokens (1 or more), or inf (or leave it out) for no limit, not 0"},
		{"[history]\nhistory = \"h\"\nkeep_tool_rounds = -2", "ctx.toml:3: history.keep_tool_rounds: must not be negative, not -2"},
		{"[history]\nhistory = \"h\"\nmax_inline_bytes = 99999999999", "ctx.toml:3: history.max_inline_bytes: must be at most 2147483647, not 99999999999"},
		{"[history]\nhistory = \"h\"\ntool_cleanup = \"stub\"", `ctx.toml:3: history.tool_cleanup: must be none, stub-old-results or auto, not "stub"`},
		{"[history]\nhistory = \"h\"\ntool_cleanup = \"\"", `ctx.toml:3: history.tool_cleanup: must be none, stub-old-results or auto, not ""`},
		{"[history]\nhistory = \"h\"\ntool_cleanup = true", "ctx.toml:3: history.tool_cleanup: must be a string, not a boolean"},
		{"[history]\nhistory = \"h\"\ntool_cleanup = \"auto\"\ncontext_window = 0", "ctx.toml:4: history.context_window: must be a positive number of tokens, not 0"},
		{"[history]\nhistory = \"h\"\ntool_cleanup = \"auto\"\nthreshold = 1.5", "ctx.toml:4: history.threshold: must be a fraction in (0, 1], not 1.5"},
		{"[history]\nhistory = \"h\"\ntool_cleanup = \"auto\"\nthreshold = 0", "ctx.toml:4: history.threshold: must be a fraction in (0, 1], not 0"},
		{"[history]\nhistory = \"h\"\ntool_cleanup = \"auto\"\nthreshold = \"x\"", "ctx.toml:4: history.threshold: must be a number, not a string"},
		{"[history]\nhistory = \"h\"\ncontext_window = 8192", "ctx.toml:3: history.context_window: applies only when tool cleanup is auto"},
		{"[history]\nhistory = \"h\"\ntool_cleanup = \"none\"\nthreshold = 0.5", "ctx.toml:4: history.threshold: applies only when tool cleanup is auto"},
		{"[history]\nhistory = \"h\"\npreserve = \"m1\"", "ctx.toml:3: history.preserve: must be an array of message ids, not a string"},
		{"[history]\nhistory = \"h\"\npreserve = [\"m1\", 2]", "ctx.toml:3: history.preserve[1]: must be a string, not an integer"},
		{"[history]\nhistory = \"h\"\npreserve = [\n  \"m1\",\n  \" \"]", "ctx.toml:5: history.preserve[1]: must not be empty"},
		{"[history]\nhistory = \"h\"\nattachments = \"\"", "ctx.toml:3: history.attachments: must not be empty"},
		{"[history]\nhistory = \"h\"\nsandbox = \"yes\"", "ctx.toml:3: history.sandbox: must be a boolean (true or false), not a string"},
		{"[history]\nhistory = \"h\"\nfixes = 1", "ctx.toml:3: history.fixes: must be a boolean (true or false), not an integer"},
		{"[history]\nhistory = \"h\"\nescape_envelope = \"on\"", "ctx.toml:3: history.escape_envelope: must be a boolean (true or false), not a string"},
	} {
		_, err := Decode("ctx.toml", []byte(tc.src))
		if err == nil || err.Error() != tc.want {
			t.Errorf("%q:\n got %v\nwant %s", tc.src, err, tc.want)
		}
	}
}

func TestHistoryCheck(t *testing.T) {
	neg, zero, half := -1, 0, 0.5
	for _, tc := range []struct {
		d        History
		key, msg string
	}{
		{History{}, "", ""},
		{History{ToolCleanup: "auto", ContextWindow: new(int), Threshold: &half}, "context_window", "must be a positive number of tokens, not 0"},
		{History{MaxErrorResultChars: &neg}, "max_error_result_chars", "must not be negative, not -1"},
		{History{MaxMessages: &zero, KeepToolRounds: &zero}, "", ""},
		{History{ToolCleanup: "stub-old-results", Threshold: &half}, "threshold", "applies only when tool cleanup is auto"},
	} {
		key, msg := tc.d.Check()
		if key != tc.key || msg != tc.msg {
			t.Errorf("%+v: got %q %q, want %q %q", tc.d, key, msg, tc.key, tc.msg)
		}
	}
}

// Each switch of [history] sets its own field of history.Options, and
// no other: the key, the value and the field are one entry.
func TestSwitchesOwnFields(t *testing.T) {
	t.Parallel()
	base := (&History{}).HistoryOptions()
	seen := map[string]string{}
	for _, sw := range (&History{}).Switches() {
		var d History
		on := true
		for _, s := range d.Switches() {
			if s.Key == sw.Key {
				*s.Value = &on
			}
		}
		got := d.HistoryOptions()
		if !*sw.Field(&got) {
			t.Errorf("%s = true does not set its field", sw.Key)
		}
		// exactly one field differs from the default
		bv, gv := reflect.ValueOf(base), reflect.ValueOf(got)
		var changed []string
		for i := range bv.NumField() {
			if !reflect.DeepEqual(bv.Field(i).Interface(), gv.Field(i).Interface()) {
				changed = append(changed, bv.Type().Field(i).Name)
			}
		}
		if len(changed) != 1 {
			t.Errorf("%s changes %q, want one field", sw.Key, changed)
			continue
		}
		if other, dup := seen[changed[0]]; dup {
			t.Errorf("%s and %s both set %s", sw.Key, other, changed[0])
		}
		seen[changed[0]] = sw.Key
	}
	if keys := HistoryBoolKeys(); len(keys) != 8 || keys[0] != "pin_summary" {
		t.Errorf("keys %q", keys)
	}
}

// The history was scanned for secrets as "discussion_history": an
// allowlist path that names it names the history now ("history"), with a
// warning, and goes on allowing its findings.
func TestOldHistoryScanName(t *testing.T) {
	const pat = "ghp_Yk3IMJ9PvMJ11Uqz6DNLLgGxJCbUUrt93l4B" // fake
	for _, tc := range []struct {
		src, warning string
		paths        []string
	}{
		{"[[secrets.allow]]\npaths = [\"src/**\",\n  \"discussion_history\"]\n", `ctx.toml:3: secrets.allow[0].paths[1]: "discussion_history" is now "history"`, []string{"src/**", "history"}},
		{"[[secrets.allow]]\nrules = [\"github-pat\"]\npaths = \"discussion_history\"\n", `ctx.toml:3: secrets.allow[0].paths: "discussion_history" is now "history"`, []string{"history"}},
		{"[[secrets.allow]]\npaths = [\"history\"]\n", "", []string{"history"}},
	} {
		c, err := Decode("ctx.toml", []byte(tc.src))
		if err != nil {
			t.Fatalf("%q: %v", tc.src, err)
		}
		var want []string
		if tc.warning != "" {
			want = []string{tc.warning}
		}
		if !reflect.DeepEqual(c.Warnings, want) || !reflect.DeepEqual(c.Secrets.Allow[0].Paths, tc.paths) {
			t.Errorf("%q: warnings %q paths %q, want %q %q", tc.src, c.Warnings, c.Secrets.Allow[0].Paths, want, tc.paths)
		}
		sc, err := c.Scanner()
		if err != nil {
			t.Fatal(err)
		}
		if found, err := sc.Scan(context.Background(), history.ScanName, "token = "+pat+"\n"); err != nil || len(found) != 0 {
			t.Errorf("%q: the history's secret is not allowed: %v %v", tc.src, found, err)
		}
	}
}
