package history

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/ctxaudit/ctx/measure"
)

// benchConversation is n user/assistant rounds, each assistant message
// carrying a tool call with a 2 KB result.
func benchConversation(n int) []Message {
	result := `"` + strings.Repeat("x", 2000) + `"`
	var ms []Message
	ms = append(ms, system("s"))
	for i := 0; i < n; i++ {
		ms = append(ms, user(fmt.Sprintf("u%d", i)))
		a := toolMsg(fmt.Sprintf("a%d", i), result)
		ms = append(ms, a)
	}
	return ms
}

// BenchmarkBuild builds a history of 101, 1,001 and 10,001 messages with
// tool cleanup, a message limit and a token budget: the work done on every
// agent turn.
func BenchmarkBuild(b *testing.B) {
	for _, rounds := range []int{50, 500, 5000} {
		msgs := benchConversation(rounds)
		for _, tc := range []struct {
			name string
			opts Options
		}{
			{"none", Options{ToolCleanupMode: CleanupNone}},
			{"stub+limit", Options{ToolCleanupMode: CleanupStubOldResults, MaxContextMessageCount: measure.Max(200)}},
			{"fixes+tokens", withTokens(Options{ToolCleanupMode: CleanupStubOldResults}.WithFixes(), 20000)},
		} {
			b.Run(fmt.Sprintf("messages=%d/%s", len(msgs), tc.name), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if _, err := Build(context.Background(), msgs, tc.opts); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
