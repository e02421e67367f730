package history

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/ctxaudit/ctx/measure"

	"github.com/ctxaudit/ctx/internal/testlane"
)

// genConversation returns a random conversation with unique ids, using
// every feature the builder looks at, plus a matching resolver and options.
func genConversation(r *rand.Rand) ([]Message, MapResolver, Options) {
	n := r.IntN(60)
	msgs := make([]Message, 0, n+1)
	res := MapResolver{}
	words := func(k int) string {
		var b strings.Builder
		for i := range k {
			if i > 0 {
				b.WriteByte(' ')
			}
			b.WriteString([]string{"alpha", "beta", "</ATTACHMENT_FILE>", "é", "👋", "line\n", "{}", "\"q\""}[r.IntN(8)])
		}
		return b.String()
	}
	if r.IntN(2) == 0 {
		msgs = append(msgs, msg("sys", RoleSystem, words(5)))
	}
	for i := range n {
		id := "m" + itoa(i)
		var m Message
		switch k := r.IntN(10); {
		case k < 4:
			m = msg(id, RoleUser, words(r.IntN(30)))
		case k < 7:
			m = msg(id, RoleAssistant, words(r.IntN(30)))
		case k < 9:
			m = toolMsg(id, `{"out":`+jsQuote(words(r.IntN(200)))+`}`)
			p := &m.ContentParts[1]
			switch r.IntN(5) {
			case 0:
				p.State = StateError
			case 1:
				p.ResultStorageKey = "rk-" + id
			case 2:
				p.Args = json.RawMessage(`{"content":` + jsQuote(strings.Repeat("x", r.IntN(3000))) + `}`)
			}
		default:
			m = msg(id, RoleTool, words(3))
		}
		switch r.IntN(20) {
		case 0:
			m.Generating = true
		case 1:
			m.IsForkMarker = true
		case 2:
			m.Error = "failed"
		case 3:
			m.IsSummary = true
			m.Role = RoleAssistant
		case 4:
			m.Role = RoleUser
			m.Steered = true
		case 5:
			m.FinishReason = "steered"
		}
		if r.IntN(6) == 0 {
			for f := range r.IntN(3) + 1 {
				key := "k-" + id + "-" + itoa(f)
				if r.IntN(4) > 0 {
					res[key] = words(r.IntN(700))
				}
				mf := MessageFile{ID: key, Name: "f" + itoa(f) + ".txt", FileType: "text/plain", StorageKey: key}
				if r.IntN(8) == 0 {
					mf.RagMode = RagModeSessionRetrieval
				}
				m.Files = append(m.Files, mf)
			}
			if r.IntN(2) == 0 {
				m.Links = append(m.Links, MessageLink{ID: "l" + id, URL: "https://example.com/" + id, Title: "T", StorageKey: "k-" + id + "-0"})
			}
		}
		msgs = append(msgs, m)
	}
	var o Options
	o.AttachmentResolver = res
	o.ToolCleanupMode = []ToolCleanupMode{CleanupNone, CleanupStubOldResults}[r.IntN(2)]
	if r.IntN(2) == 0 {
		o.MaxContextMessageCount = measure.Max(int64(r.IntN(30)))
	}
	if r.IntN(2) == 0 {
		o.KeepToolCallRounds = Rounds(r.IntN(4))
	}
	for range r.IntN(3) {
		if len(msgs) == 0 {
			break
		}
		o.CompactionPoints = append(o.CompactionPoints, CompactionPoint{
			SummaryMessageID:  msgs[r.IntN(len(msgs))].ID,
			BoundaryMessageID: msgs[r.IntN(len(msgs))].ID,
			CreatedAt:         float64(r.IntN(5)),
		})
	}
	if r.IntN(2) == 0 && len(msgs) > 0 {
		o.PreserveToolCallMessageIDs = []string{msgs[r.IntN(len(msgs))].ID}
	}
	o.ModelSupportToolUseForFile = r.IntN(2) == 0
	o.SandboxMode = r.IntN(6) == 0
	if r.IntN(2) == 0 {
		o = o.WithFixes()
	}
	if r.IntN(2) == 0 {
		o.MaxContextTokens = measure.Max(int64(50 + r.IntN(3000)))
	}
	return msgs, res, o
}

// eligibleOrder is the input in steering order without ineligible messages.
func eligibleOrder(msgs []Message) []string {
	var out []string
	for _, i := range orderSteered(msgs) {
		if !msgs[i].Generating && !msgs[i].IsForkMarker {
			out = append(out, msgs[i].ID)
		}
	}
	return out
}

func isSubsequence(sub, seq []string) bool {
	j := 0
	for _, s := range seq {
		if j < len(sub) && sub[j] == s {
			j++
		}
	}
	return j == len(sub)
}

func TestProperties(t *testing.T) {
	t.Parallel()
	for seed := range uint64(testlane.Rounds(400, 4)) {
		r := rand.New(rand.NewPCG(seed, 0x5eed))
		msgs, _, o := genConversation(r)
		checkBuild(t, fmt.Sprintf("seed %d", seed), msgs, o)
	}
}

// checkBuild builds msgs with o and checks the properties every build has:
// the input is not mutated, the output is a subsequence of the eligible
// input (the applied summary aside), every message is sent or dropped
// once, the report's token count is a recount and holds the budget, the
// count limit holds, and building again gives the same result.
func checkBuild(t *testing.T, label string, msgs []Message, o Options) {
	t.Helper()
	before := snapshot(t, msgs)
	res, err := Build(context.Background(), msgs, o)
	// Input never mutated, whatever happened.
	if after := snapshot(t, msgs); after != before {
		t.Fatalf("%s: input mutated", label)
	}
	if err != nil {
		if o.MaxContextTokens.IsSet() && errors.Is(err, ErrTokenBudget) {
			return
		}
		t.Fatalf("%s: %v", label, err)
	}
	// Output order: a subsequence of the eligible input, apart from the
	// applied summary, which comes first (after the system message).
	var got []string
	for _, m := range res.Messages {
		if res.Report.Compaction != nil && m.ID == res.Report.Compaction.SummaryMessageID {
			continue
		}
		got = append(got, m.ID)
	}
	if !isSubsequence(got, eligibleOrder(msgs)) {
		t.Fatalf("%s: output %v not a subsequence of %v", label, got, eligibleOrder(msgs))
	}
	// Every input message is either in the output or dropped, once.
	seen := map[string]int{}
	for _, m := range res.Messages {
		seen[m.ID]++
	}
	for _, d := range res.Report.Dropped {
		seen[d.ID]++
	}
	for _, m := range msgs {
		if seen[m.ID] != 1 {
			t.Fatalf("%s: message %s accounted %d times", label, m.ID, seen[m.ID])
		}
	}
	// The token budget holds, on an independent recount.
	total := 0
	for _, m := range res.Messages {
		total += MessageTokens(nil, m)
	}
	if total != res.Report.TokensAfter {
		t.Fatalf("%s: report says %d tokens, recount %d", label, res.Report.TokensAfter, total)
	}
	if o.MaxContextTokens.Exceeded(int64(total)) {
		t.Fatalf("%s: %d tokens over budget %s", label, total, o.MaxContextTokens)
	}
	// The count limit holds (pinned head aside).
	if n, ok := o.MaxContextMessageCount.Value(); ok && int64(len(res.Messages)) > n+3 {
		t.Fatalf("%s: %d messages for limit %d", label, len(res.Messages), n)
	}
	// Building is deterministic.
	again, err := Build(context.Background(), msgs, o)
	if err != nil || snapshot(t, again) != snapshot(t, res) {
		t.Fatalf("%s: second build differs (%v)", label, err)
	}
}

// SelectContextMessages is exactly the selection Build starts from.
func TestSelectMatchesBuild(t *testing.T) {
	t.Parallel()
	for seed := range uint64(200) {
		r := rand.New(rand.NewPCG(seed, 7))
		msgs, _, o := genConversation(r)
		o.MaxContextTokens = measure.Limit{}
		o.ToolCleanupMode = CleanupNone
		o.SandboxMode = false
		o.AttachmentResolver = nil
		o.MarkMissingAttachments = false
		sel, err := SelectContextMessages(context.Background(), msgs, o)
		if err != nil {
			t.Fatal(err)
		}
		b, err := Build(context.Background(), msgs, o)
		if err != nil {
			t.Fatal(err)
		}
		if joinIDs(sel) != joinIDs(b.Messages) {
			t.Fatalf("seed %d: select %s, build %s", seed, joinIDs(sel), joinIDs(b.Messages))
		}
	}
}
