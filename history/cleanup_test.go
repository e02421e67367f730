package history

import (
	"encoding/json"
	"strings"
	"testing"
)

// conversation6 is the seed's [1u, 2a tc, 3u, 4a tc, 5u, 6a tc].
func conversation6() []Message {
	return []Message{
		user("1"), toolMsg("2", `{"lines":["package main"]}`),
		user("3"), toolMsg("4", `"a plain string result"`),
		user("5"), toolMsg("6", `{"ok":true}`),
	}
}

func toolResult(t *testing.T, ms []Message, id string) ContentPart {
	t.Helper()
	m, ok := byID(ms, id)
	if !ok {
		t.Fatalf("message %s missing", id)
	}
	p := findPart(m, PartToolCall)
	if p == nil {
		t.Fatalf("message %s has no tool call", id)
	}
	return *p
}

func isCleared(p ContentPart) bool { return strings.HasPrefix(string(p.Result), `{"_cleared":true`) }

func TestToolCleanupSeedCases(t *testing.T) {
	t.Parallel()
	stub := Options{ToolCleanupMode: CleanupStubOldResults, KeepToolCallRounds: Rounds(1)}
	t.Run("keep 1 stubs 2 and 4", func(t *testing.T) {
		t.Parallel()
		r := mustBuild(t, conversation6(), stub)
		for id, want := range map[string]bool{"2": true, "4": true, "6": false} {
			if got := isCleared(toolResult(t, r.Messages, id)); got != want {
				t.Errorf("message %s cleared %v, want %v", id, got, want)
			}
		}
		if len(r.Report.Stubbed) != 2 {
			t.Errorf("report stubbed %d, want 2", len(r.Report.Stubbed))
		}
	})
	t.Run("preserve 2", func(t *testing.T) {
		t.Parallel()
		o := stub
		o.PreserveToolCallMessageIDs = []string{"2"}
		r := mustBuild(t, conversation6(), o)
		if isCleared(toolResult(t, r.Messages, "2")) {
			t.Error("preserved message 2 was stubbed")
		}
		if !isCleared(toolResult(t, r.Messages, "4")) {
			t.Error("message 4 not stubbed")
		}
	})
	t.Run("error state untouched", func(t *testing.T) {
		t.Parallel()
		msgs := conversation6()
		msgs[1].ContentParts[1].State = StateError
		r := mustBuild(t, msgs, stub)
		if got := string(toolResult(t, r.Messages, "2").Result); got != `{"lines":["package main"]}` {
			t.Errorf("error result changed: %s", got)
		}
	})
	t.Run("mode none keeps all", func(t *testing.T) {
		t.Parallel()
		r := mustBuild(t, conversation6(), Options{ToolCleanupMode: CleanupNone, KeepToolCallRounds: Rounds(0)})
		for _, id := range []string{"2", "4", "6"} {
			if isCleared(toolResult(t, r.Messages, id)) {
				t.Errorf("message %s stubbed in mode none", id)
			}
		}
	})
	t.Run("default keeps two rounds", func(t *testing.T) {
		t.Parallel()
		r := mustBuild(t, conversation6(), Options{ToolCleanupMode: CleanupStubOldResults})
		got := []bool{isCleared(toolResult(t, r.Messages, "2")), isCleared(toolResult(t, r.Messages, "4")), isCleared(toolResult(t, r.Messages, "6"))}
		if got[0] != true || got[1] || got[2] {
			t.Errorf("cleared %v, want [true false false]", got)
		}
	})
	t.Run("fewer rounds than keep", func(t *testing.T) {
		t.Parallel()
		r := mustBuild(t, conversation6(), Options{ToolCleanupMode: CleanupStubOldResults, KeepToolCallRounds: Rounds(5)})
		if len(r.Report.Stubbed) != 0 {
			t.Errorf("stubbed %v", r.Report.Stubbed)
		}
	})
	t.Run("keep 0 stubs everything", func(t *testing.T) {
		t.Parallel()
		r := mustBuild(t, conversation6(), Options{ToolCleanupMode: CleanupStubOldResults, KeepToolCallRounds: Rounds(0)})
		if len(r.Report.Stubbed) != 3 {
			t.Errorf("stubbed %d, want 3", len(r.Report.Stubbed))
		}
	})
	t.Run("long args cut to a preview", func(t *testing.T) {
		t.Parallel()
		msgs := conversation6()
		args, _ := json.Marshal(map[string]string{"content": strings.Repeat("x", 5000)})
		msgs[1].ContentParts[1].Args = args
		r := mustBuild(t, msgs, stub)
		var got struct {
			Cleared bool   `json:"_cleared"`
			Preview string `json:"preview"`
			Note    string `json:"note"`
		}
		if err := json.Unmarshal(toolResult(t, r.Messages, "2").Args, &got); err != nil {
			t.Fatal(err)
		}
		if !got.Cleared || len(got.Preview) > 500 || got.Note != noteArgsTruncated {
			t.Errorf("args stub %+v", got)
		}
		if want := `{"content":"` + strings.Repeat("x", 488); got.Preview != want {
			t.Errorf("preview %q", got.Preview)
		}
	})
}

// The stub objects, byte for byte.
func TestStubObjects(t *testing.T) {
	t.Parallel()
	p := ContentPart{Type: PartToolCall, State: StateResult, ToolCallID: "c", ToolName: "web_search",
		Args: json.RawMessage(`"short"`), Result: json.RawMessage(`{"hits": 10}`), ResultStorageKey: "tool-result-abc"}
	withKey := p.Clone()
	stubPart(&withKey, false)
	want := `{"_cleared":true,"fullResultFileKey":"tool-result-abc","note":"Old tool result cleared to save context space. Use the read_file tool with fullResultFileKey to re-read it if needed."}`
	if string(withKey.Result) != want {
		t.Errorf("with key:\n%s\nwant\n%s", withKey.Result, want)
	}
	if withKey.ResultStorageKey != "" {
		t.Error("resultStorageKey kept")
	}
	noKey := p.Clone()
	noKey.ResultStorageKey = ""
	stubPart(&noKey, false)
	want = `{"_cleared":true,"note":"Old tool result cleared to save context space. Call the tool again if this result is needed."}`
	if string(noKey.Result) != want {
		t.Errorf("without key:\n%s\nwant\n%s", noKey.Result, want)
	}
	if string(noKey.Args) != `"short"` {
		t.Errorf("short args changed: %s", noKey.Args)
	}
	// A string argument is measured and previewed as the string itself.
	long := p.Clone()
	long.Args, _ = json.Marshal(strings.Repeat("é", 2001))
	stubPart(&long, false)
	want = `{"_cleared":true,"preview":"` + strings.Repeat("é", 500) + `","note":"Args truncated together with the cleared result."}`
	if string(long.Args) != want {
		t.Errorf("string args:\n%s", long.Args)
	}
}

// Args are measured and previewed as JSON.stringify(JSON.parse(args)):
// array-index keys come first, a duplicate key counts once.
func TestStubArgsPreviewKeyOrder(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("y", 2100)
	for _, tt := range []struct {
		name, args, preview string
		truncated           bool
	}{
		{"index keys first", `{"path":"a.go","10":"x","2":"` + big + `"}`, `{"2":"` + big[:494], true},
		// 2015 characters as written, 1008 once the duplicate collapses.
		{"duplicate key", `{"d":"` + big[:1000] + `","d":"` + big[:1000] + `"}`, "", false},
	} {
		p := ContentPart{Type: PartToolCall, State: StateResult, ToolCallID: "c", ToolName: "w",
			Args: json.RawMessage(tt.args), Result: json.RawMessage(`1`)}
		r := stubPart(&p, false)
		if r.ArgsTruncated != tt.truncated {
			t.Errorf("%s: truncated %v, want %v", tt.name, r.ArgsTruncated, tt.truncated)
			continue
		}
		if !tt.truncated {
			continue
		}
		var a struct{ Preview string }
		if err := json.Unmarshal(p.Args, &a); err != nil || a.Preview != tt.preview {
			t.Errorf("%s: preview %.40q..., want %.40q...", tt.name, a.Preview, tt.preview)
		}
	}
}

// JSON.stringify semantics for measuring args.
func TestJSStringify(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{`{"b": 1, "a": [1.0, 2e3, -0, 1e21, 1e-7, 0.1]}`, `{"b":1,"a":[1,2000,0,1e+21,1e-7,0.1]}`},
		{`{"s": "\u00e9\n\u0001<>&"}`, "{\"s\":\"é\\n\\u0001<>&\"}"},
		{`[true, false, null, {}, []]`, `[true,false,null,{},[]]`},
		{`{"n": {"m": {"o": 1}}, "z": 2}`, `{"n":{"m":{"o":1}},"z":2}`},
		// JSON.parse then JSON.stringify: array-index keys first, ascending;
		// a duplicate key keeps its first place and its last value.
		{`{"path":"a.go","10":"x","2":"y"}`, `{"2":"y","10":"x","path":"a.go"}`},
		{`{"b":1,"b":2,"a":3}`, `{"b":2,"a":3}`},
		{`{"a":1,"4294967295":2,"4294967294":3,"01":4,"-1":5,"1.0":6,"0":7}`, `{"0":7,"4294967294":3,"a":1,"4294967295":2,"01":4,"-1":5,"1.0":6}`},
		{`[{"z":1,"5":{"y":0,"3":1}}]`, `[{"5":{"3":1,"y":0},"z":1}]`},
		{`{"a":1,"a":{"k":1,"1":2}}`, `{"a":{"1":2,"k":1}}`},
	}
	for _, tt := range tests {
		got, err := jsStringify([]byte(tt.in))
		if err != nil || got != tt.want {
			t.Errorf("jsStringify(%s) = %s, %v; want %s", tt.in, got, err, tt.want)
		}
	}
}

func TestRecentRoundsStart(t *testing.T) {
	t.Parallel()
	msgs := conversation6()
	for keep, want := range map[int]int{0: 6, 1: 4, 2: 2, 3: 0, 4: 0} {
		if got := recentRoundsStart(msgs, keep); got != want {
			t.Errorf("keep %d: %d, want %d", keep, got, want)
		}
	}
}
