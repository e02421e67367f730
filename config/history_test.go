package config

import (
	"context"
	"fmt"
	"reflect"
	"testing"

	"github.com/ctxaudit/ctx/history"
	"github.com/ctxaudit/ctx/measure"
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
	got := fmt.Sprintf("%d %s %s %s %s %d %v %d %v %s %v %v %v %v %v %v %s %s", d.Line, d.History, d.MaxMessages,
		d.MaxTokens, d.ToolCleanup, *d.ContextWindow, *d.Threshold, *d.KeepToolRounds, d.Preserve,
		*d.Attachments, d.Sandbox, d.ToolUseForFiles, d.Fixes, *d.EscapeEnvelope, *d.PinSummary,
		d.CutAtRoundBoundary == nil, *d.MaxErrorResultChars, *d.MaxInlineBytes)
	// max_error_result_chars = 0 turns the bound off: inf, not the fixes' 2000
	want := "3 chat/history.json 40 9000 auto 32000 0.5 1 [m7 m9] chat/files true true true false true true inf 4096"
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
	if d.History != "h.json" || d.MaxMessages.IsSet() || d.MaxTokens.IsSet() || d.MaxErrorResultChars != nil || d.MaxInlineBytes != nil || d.ToolCleanup != "" || d.Threshold != nil ||
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
		{"old name, bad key", "[discussion]\nhistory = \"h\"\nmax_messages = -1\n", "", "", "ctx.toml:3: discussion.max_messages: must be a nonnegative whole number or inf, not -1", 0},
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
		{"[history]\nhistory = \"h\"\nmax_messages = -1", "ctx.toml:3: history.max_messages: must be a nonnegative whole number or inf, not -1"},
		{"[history]\nhistory = \"h\"\nkeep_tool_rounds = -2", "ctx.toml:3: history.keep_tool_rounds: must not be negative, not -2"},
		{"[history]\nhistory = \"h\"\nkeep_tool_rounds = 99999999999", "ctx.toml:3: history.keep_tool_rounds: must be at most 2147483647, not 99999999999"},
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

// The four limits of [history] go through config's one decoder: a whole
// number (least 1 for max_tokens), or inf for none. Each is checked where
// it lands, in history.Options with fixes = true, so that an absent
// bound shows the fixes' default and 0 of the two fix bounds turns them off.
func TestDecodeHistoryLimits(t *testing.T) {
	t.Parallel()
	const (
		nonneg = "must be a nonnegative whole number or inf, not "
		tokens = "must be a number of tokens (1 or more), or inf (or leave it out) for no limit, not "
	)
	none := measure.Limit{}
	fields := map[string]func(history.Options) measure.Limit{
		"max_messages":           func(o history.Options) measure.Limit { return o.MaxContextMessageCount },
		"max_tokens":             func(o history.Options) measure.Limit { return o.MaxContextTokens },
		"max_error_result_chars": func(o history.Options) measure.Limit { return o.MaxErrorResultChars },
		"max_inline_bytes":       func(o history.Options) measure.Limit { return o.MaxInlineBytes },
	}
	for _, tc := range []struct {
		key, value string // value "" leaves the key out
		want       measure.Limit
		wantErr    string
	}{
		{"max_messages", "", none, ""},
		{"max_messages", "50", measure.Max(50), ""},
		{"max_messages", "0", measure.Max(0), ""}, // only the current input
		{"max_messages", "2.0", measure.Max(2), ""},
		{"max_messages", "inf", none, ""},
		{"max_messages", `"none"`, none, ""},
		{"max_messages", "-1", none, nonneg + "-1"},
		{"max_messages", "2.5", none, nonneg + "2.5"},
		{"max_messages", `"lots"`, none, nonneg + `"lots"`},
		{"max_messages", "true", none, nonneg + "a boolean"},

		{"max_tokens", "", none, ""},
		{"max_tokens", "9000", measure.Max(9000), ""},
		{"max_tokens", "1", measure.Max(1), ""},
		{"max_tokens", "9223372036854775807", measure.Max(1<<63 - 1), ""}, // no int32 bound any more
		{"max_tokens", "inf", none, ""},
		{"max_tokens", `"inf"`, none, ""},
		{"max_tokens", "0", none, tokens + "0"}, // a budget of no tokens would leave nothing
		{"max_tokens", "-5", none, tokens + "-5"},
		{"max_tokens", "1.5", none, tokens + "1.5"},
		{"max_tokens", `"lots"`, none, tokens + `"lots"`},

		{"max_error_result_chars", "", measure.Max(2000), ""}, // the fixes' bound
		{"max_error_result_chars", "200", measure.Max(200), ""},
		{"max_error_result_chars", "0", none, ""}, // off, as it always was
		{"max_error_result_chars", "inf", none, ""},
		{"max_error_result_chars", `"none"`, none, ""},
		{"max_error_result_chars", "-1", none, nonneg + "-1"},
		{"max_error_result_chars", "0.5", none, nonneg + "0.5"},
		{"max_error_result_chars", `"2000"`, none, nonneg + `"2000"`},

		{"max_inline_bytes", "", measure.Max(256 << 10), ""}, // the fixes' bound
		{"max_inline_bytes", "4096", measure.Max(4096), ""},
		{"max_inline_bytes", "99999999999", measure.Max(99999999999), ""},
		{"max_inline_bytes", "0", none, ""}, // no cap, as it always was
		{"max_inline_bytes", "inf", none, ""},
		{"max_inline_bytes", "-1", none, nonneg + "-1"},
		{"max_inline_bytes", "-inf", none, nonneg + "-Inf"},
		{"max_inline_bytes", "1.5", none, nonneg + "1.5"},
		{"max_inline_bytes", "[1]", none, nonneg + "an array"},
	} {
		src := "[history]\nhistory = \"h\"\nfixes = true\n"
		if tc.value != "" {
			src += tc.key + " = " + tc.value + "\n"
		}
		c, err := Decode("ctx.toml", []byte(src))
		if tc.wantErr != "" {
			if want := "ctx.toml:4: history." + tc.key + ": " + tc.wantErr; err == nil || err.Error() != want {
				t.Errorf("%q: %v, want %s", src, err, want)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", src, err)
			continue
		}
		if got := fields[tc.key](c.History.HistoryOptions()); got != tc.want {
			t.Errorf("%q: %v, want %v", src, got, tc.want)
		}
	}
}

func TestHistoryCheck(t *testing.T) {
	neg, zero, half := measure.Max(-1), 0, 0.5
	for _, tc := range []struct {
		d        History
		key, msg string
	}{
		{History{}, "", ""},
		{History{ToolCleanup: "auto", ContextWindow: new(int), Threshold: &half}, "context_window", "must be a positive number of tokens, not 0"},
		{History{MaxErrorResultChars: &neg}, "max_error_result_chars", "must not be negative, not -1"},
		{History{MaxMessages: measure.Max(-2)}, "max_messages", "must not be negative, not -2"},
		{History{MaxMessages: measure.Max(0), KeepToolRounds: &zero, MaxInlineBytes: &measure.Limit{}}, "", ""},
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
