package history

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/ctxaudit/ctx/measure"
)

// The reference's limit vectors: (count, max) -> (dropped, kept), for a
// history without a system message.
func TestMessageLimitVectors(t *testing.T) {
	t.Parallel()
	tests := []struct{ count, max, dropped, kept int }{
		{21, 19, 5, 16},
		{24, 19, 5, 19},
		{25, 19, 5, 20},
		{26, 19, 10, 16},
		{5, 2, 2, 3},
		{10, 3, 6, 4},
		{8, 4, 4, 4},
		{3, 0, 2, 1},
	}
	for _, tt := range tests {
		t.Run(itoa(tt.count)+"-"+itoa(tt.max), func(t *testing.T) {
			t.Parallel()
			msgs := alternating(tt.count, "m")
			r := mustBuild(t, msgs, Options{MaxContextMessageCount: measure.Max(int64(tt.max))})
			if got := len(r.Messages); got != tt.kept {
				t.Errorf("kept %d, want %d", got, tt.kept)
			}
			if got := len(r.Report.Dropped); got != tt.dropped {
				t.Errorf("dropped %d, want %d", got, tt.dropped)
			}
			for _, d := range r.Report.Dropped {
				if d.Reason != DropOverMessageLimit {
					t.Errorf("drop %v: want reason %s", d, DropOverMessageLimit)
				}
			}
			// The kept messages are the last ones.
			if want := ids(msgs[tt.count-tt.kept:]); !slices.Equal(ids(r.Messages), want) {
				t.Errorf("kept %v, want %v", ids(r.Messages), want)
			}
		})
	}
}

// The seed's own selection tests, with our fixtures.
func TestSelectSeedCases(t *testing.T) {
	t.Parallel()
	generating := func(m Message) Message { m.Generating = true; return m }
	fork := func(m Message) Message { m.IsForkMarker = true; return m }
	errored := func(m Message) Message { m.Error = "upstream 500"; return m }
	errCode := func(m Message) Message { m.ErrorCode = 10003; return m }
	steered := func(m Message) Message { m.Steered = true; return m }
	point := func(summaryID, boundaryID string, at float64) CompactionPoint {
		return CompactionPoint{SummaryMessageID: summaryID, BoundaryMessageID: boundaryID, CreatedAt: at}
	}
	tests := []struct {
		name string
		msgs []Message
		opts Options
		want string
	}{
		{"generating dropped", []Message{user("1"), generating(assistant("2"))}, Options{}, "1"},
		{"fork marker dropped", []Message{user("1"), fork(assistant("2")), user("3")}, Options{}, "1,3"},
		{"empty", nil, Options{}, ""},
		{"all generating", []Message{generating(user("1")), generating(assistant("2"))}, Options{}, ""},
		{"system user assistant", []Message{system("s"), user("1"), assistant("2")}, Options{}, "s,1,2"},
		{"max 2 of five", alternating(5, ""), Options{MaxContextMessageCount: measure.Max(2)}, "2,3,4"},
		{"system pinned, max 1", []Message{system("s"), user("1"), assistant("2"), user("3")},
			Options{MaxContextMessageCount: measure.Max(1)}, "s,2,3"},
		{"error never included", []Message{user("1"), errored(assistant("2")), user("3"), errCode(assistant("4")), user("5")},
			Options{MaxContextMessageCount: measure.Max(10)}, "1,3,5"},
		{"errors use no slots", []Message{user("1"), assistant("2"), user("3"), errored(assistant("4")), user("5")},
			Options{MaxContextMessageCount: measure.Max(2)}, "2,3,5"},
		{"max 0", []Message{user("1"), assistant("2"), user("3")}, Options{MaxContextMessageCount: measure.Max(0)}, "3"},
		{"system and max 0", []Message{system("s"), user("1"), assistant("2"), user("3")},
			Options{MaxContextMessageCount: measure.Max(0)}, "s,3"},
		{"unlimited sentinel", alternating(5, ""), Options{MaxContextMessageCount: measure.Max(unlimitedCount)}, "0,1,2,3,4"},
		{"steered", []Message{user("orig"), assistant("reply"), steered(user("steer")), user("next")},
			Options{MaxContextMessageCount: measure.Max(2)}, "steer,reply,next"},
		{"steered after steered finish stays",
			[]Message{user("1"), func() Message { m := assistant("2"); m.FinishReason = "steered"; return m }(), steered(user("3"))},
			Options{}, "1,2,3"},
		{"steered looks through summaries",
			[]Message{user("1"), assistant("2"), summary("S"), steered(user("3"))},
			Options{CompactionPoints: []CompactionPoint{point("S", "2", 1)}}, "S"},
		{"steered at start stays", []Message{steered(user("1")), assistant("2")}, Options{}, "1,2"},
		{"compaction", []Message{system("s"), user("1"), assistant("2"), summary("S"), user("3"), assistant("4")},
			Options{CompactionPoints: []CompactionPoint{point("S", "2", 1)}}, "s,S,3,4"},
		{"newest point wins", []Message{user("1"), assistant("2"), summary("S1"), user("3"), assistant("4"), summary("S2"), user("5")},
			Options{CompactionPoints: []CompactionPoint{point("S1", "2", 1), point("S2", "4", 2)}}, "S2,5"},
		{"tie keeps the first", []Message{user("1"), assistant("2"), summary("S1"), user("3"), assistant("4"), summary("S2"), user("5")},
			Options{CompactionPoints: []CompactionPoint{point("S1", "2", 7), point("S2", "4", 7)}}, "S1,3,4,5"},
		{"system kept first", []Message{user("0"), system("s"), user("1"), assistant("2"), summary("S"), user("3")},
			Options{CompactionPoints: []CompactionPoint{point("S", "2", 1)}}, "s,S,3"},
		{"summary id missing", []Message{user("1"), assistant("2"), summary("S"), user("3")},
			Options{CompactionPoints: []CompactionPoint{point("gone", "2", 1)}}, "1,2,3"},
		{"newer point torn, older used",
			[]Message{user("1"), assistant("2"), summary("S1"), user("3"), assistant("4"), user("5")},
			Options{CompactionPoints: []CompactionPoint{point("S1", "2", 1), point("S2", "4", 2)}}, "S1,3,4,5"},
		{"unmarked summary listed once", []Message{user("1"), assistant("2"), user("3"), assistant("4")},
			Options{CompactionPoints: []CompactionPoint{point("3", "2", 1)}}, "3,4"},
		{"orphaned summary dropped", []Message{user("1"), summary("S"), assistant("2")}, Options{}, "1,2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := joinIDs(mustSelect(t, tt.msgs, tt.opts))
			if got != tt.want {
				t.Errorf("got [%s], want [%s]", got, tt.want)
			}
		})
	}
}

// The sticky window: 21 and 24 messages at max 19 both start at m5; 26
// starts at m10 with 16 messages; 20 to 30 messages never exceed 20.
func TestStickyWindow(t *testing.T) {
	t.Parallel()
	for _, n := range []int{21, 24} {
		out := mustSelect(t, alternating(n, "m"), Options{MaxContextMessageCount: measure.Max(19)})
		if out[0].ID != "m5" {
			t.Errorf("%d messages: starts at %s, want m5", n, out[0].ID)
		}
	}
	out := mustSelect(t, alternating(26, "m"), Options{MaxContextMessageCount: measure.Max(19)})
	if out[0].ID != "m10" || len(out) != 16 {
		t.Errorf("26 messages: starts at %s with %d, want m10 with 16", out[0].ID, len(out))
	}
	for n := 20; n <= 30; n++ {
		if got := len(mustSelect(t, alternating(n, "m"), Options{MaxContextMessageCount: measure.Max(19)})); got > 20 {
			t.Errorf("%d messages: kept %d > 20", n, got)
		}
	}
}

func TestOrderSteeredIdempotent(t *testing.T) {
	t.Parallel()
	s := func(id string) Message { m := user(id); m.Steered = true; return m }
	msgs := []Message{user("1"), assistant("2"), s("3"), s("4"), user("5"), assistant("6"), summary("S"), s("7")}
	first := orderSteered(msgs)
	reordered := make([]Message, len(first))
	for i, j := range first {
		reordered[i] = msgs[j]
	}
	if got, want := joinIDs(reordered), "1,3,4,2,5,7,6,S"; got != want {
		t.Fatalf("order %s, want %s", got, want)
	}
	again := orderSteered(reordered)
	for i, j := range again {
		if j != i {
			t.Fatalf("second pass moved %d to %d", j, i)
		}
	}
}

func TestDropReasons(t *testing.T) {
	t.Parallel()
	gen := assistant("g")
	gen.Generating = true
	bad := assistant("e")
	bad.Error = "boom"
	msgs := []Message{system("s"), user("1"), assistant("2"), summary("S"), summary("old"), user("3"), gen, bad,
		user("4"), assistant("5"), user("6"), assistant("7"), user("8")}
	r := mustBuild(t, msgs, Options{
		CompactionPoints:       []CompactionPoint{{SummaryMessageID: "S", BoundaryMessageID: "2", CreatedAt: 1}},
		MaxContextMessageCount: measure.Max(2),
	})
	want := []Drop{
		{1, "1", DropBeforeCompaction},
		{2, "2", DropBeforeCompaction},
		{3, "S", DropOverMessageLimit}, // the original drops the summary too (see TestFixPinSummary)
		{4, "old", DropUnusedSummary},
		{5, "3", DropOverMessageLimit},
		{6, "g", DropNotEligible},
		{7, "e", DropError},
		{8, "4", DropOverMessageLimit},
		{9, "5", DropOverMessageLimit},
	}
	if !slices.Equal(r.Report.Dropped, want) {
		t.Errorf("dropped\n%v\nwant\n%v", r.Report.Dropped, want)
	}
	if got := joinIDs(r.Messages); got != "s,6,7,8" {
		t.Errorf("messages %s, want s,6,7,8", got)
	}
	if r.Report.Compaction == nil || r.Report.Compaction.SummaryMessageID != "S" {
		t.Errorf("compaction %v, want point S", r.Report.Compaction)
	}
}

func TestOptionErrors(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	msgs := alternating(3, "")
	// the zero value is usable: no tool cleanup
	if r, err := Build(ctx, msgs, Options{}); err != nil || r.Report.ToolCleanupMode != CleanupNone {
		t.Errorf("empty mode: %v, %q, want none", err, r.Report.ToolCleanupMode)
	}
	if _, err := Build(ctx, msgs, Options{ToolCleanupMode: "all"}); err == nil {
		t.Error("unknown mode accepted")
	}
	for _, o := range []Options{
		{ToolCleanupMode: CleanupNone, MaxContextMessageCount: measure.Max(-1)},
		{ToolCleanupMode: CleanupNone, KeepToolCallRounds: Rounds(-1)},
		{ToolCleanupMode: CleanupNone, MaxContextTokens: measure.Max(-5)},
		{ToolCleanupMode: CleanupNone, MaxInlineBytes: measure.Max(-1)},
		{ToolCleanupMode: CleanupNone, MaxErrorResultChars: measure.Max(-1)},
		{ToolCleanupMode: CleanupNone, ReadConcurrency: -1},
	} {
		if _, err := Build(ctx, msgs, o); !errors.Is(err, ErrNegativeLimit) {
			t.Errorf("%+v: %v, want ErrNegativeLimit", o, err)
		}
	}
	if _, err := SelectContextMessages(ctx, msgs, Options{MaxContextMessageCount: measure.Max(-2)}); !errors.Is(err, ErrNegativeLimit) {
		t.Errorf("select: %v, want ErrNegativeLimit", err)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := Build(cancelled, msgs, Options{ToolCleanupMode: CleanupNone}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}
