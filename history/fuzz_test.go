package history

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/ctxaudit/ctx/measure"
)

// fuzzOptions turns the fuzzer's numbers into builder options: bits of
// flags pick the cleanup mode, the fixes, the sandbox and file tools;
// maxMessages and maxTokens set the limits when not zero; the resolver
// holds an attachment for every second storage key.
func fuzzOptions(msgs []Message, flags uint16, maxMessages uint8, maxTokens uint16) Options {
	var o Options
	res := MapResolver{}
	for i, m := range msgs {
		for j, f := range m.Files {
			if (i+j)%2 == 0 {
				res[f.StorageKey] = strings.Repeat("attached "+f.Name+"\n", int(flags>>8)%40)
			}
		}
	}
	o.AttachmentResolver = res
	o.ToolCleanupMode = []ToolCleanupMode{CleanupNone, CleanupStubOldResults}[flags&1]
	if flags&2 != 0 {
		o = o.WithFixes()
	}
	o.SandboxMode = flags&4 != 0
	o.ModelSupportToolUseForFile = flags&8 != 0
	if flags&16 != 0 {
		o.KeepToolCallRounds = Rounds(int(flags>>5) % 4)
	}
	if maxMessages > 0 {
		o.MaxContextMessageCount = measure.Max(int64(maxMessages % 64))
	}
	if maxTokens > 0 {
		o.MaxContextTokens = measure.Max(int64(maxTokens))
	}
	if len(msgs) > 0 && flags&32 != 0 {
		o.PreserveToolCallMessageIDs = []string{msgs[int(flags>>6)%len(msgs)].ID}
	}
	return o
}

// FuzzBuild runs the message builder on any request the decoder accepts,
// with options drawn from the fuzzer, and checks the builder's properties
// (see checkBuild) and that its markdown section is well formed.
func FuzzBuild(f *testing.F) {
	f.Add(fullRequest, uint16(0), uint8(0), uint16(0))
	f.Add(fullRequest, uint16(0xffff), uint8(3), uint16(40))
	f.Add(`{"messages":[{"id":"1","role":"user","contentParts":[{"type":"text","text":"hi"}],"files":[{"id":"f","name":"a.txt","storageKey":"k"}]},`+
		`{"id":"2","role":"assistant","contentParts":[{"type":"tool-call","state":"result","toolCallId":"c","toolName":"read","args":{},"result":{"out":"x"}}]}],`+
		`"compactionPoints":[{"summaryMessageId":"2","boundaryMessageId":"1","createdAt":1}]}`, uint16(3), uint8(1), uint16(5))
	f.Fuzz(func(t *testing.T, in string, flags uint16, maxMessages uint8, maxTokens uint16) {
		req, err := DecodeRequest(strings.NewReader(in))
		if err != nil || len(req.Messages) > 200 {
			return
		}
		ids := map[string]bool{}
		for _, m := range req.Messages {
			if ids[m.ID] {
				return // ids name messages: the builder's input has them unique
			}
			ids[m.ID] = true
		}
		o := fuzzOptions(req.Messages, flags, maxMessages, maxTokens)
		o.CompactionPoints = req.CompactionPoints
		checkBuild(t, fmt.Sprintf("flags %#x, max messages %d, max tokens %d", flags, maxMessages, maxTokens), req.Messages, o)
		res, err := Build(context.Background(), req.Messages, o)
		if err != nil {
			return
		}
		if md := Section(res); md != "" && !strings.HasPrefix(md, "## Discussion History") {
			t.Fatalf("section starts %q", md[:min(len(md), 40)])
		}
	})
}
