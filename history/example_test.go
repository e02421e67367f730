package history_test

import (
	"context"
	"fmt"

	"github.com/ctxaudit/ctx/history"
)

func ExampleBuild() {
	messages := []history.Message{
		{ID: "s", Role: history.RoleSystem, ContentParts: []history.ContentPart{{Type: history.PartText, Text: "You review code."}}},
		{ID: "1", Role: history.RoleUser, ContentParts: []history.ContentPart{{Type: history.PartText, Text: "Check this file"}},
			Files: []history.MessageFile{{ID: "f1", Name: "test.txt", FileType: "text/plain", StorageKey: "file-key-1"}}},
		{ID: "2", Role: history.RoleAssistant, ContentParts: []history.ContentPart{{Type: history.PartText, Text: "Draft..."}}, Generating: true},
	}
	res, err := history.Build(context.Background(), messages, history.Options{
		AttachmentResolver: history.MapResolver{"file-key-1": "File content here"},
		ToolCleanupMode:    history.CleanupNone,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(res.Messages[1].ContentParts[0].Text)
	for _, d := range res.Report.Dropped {
		fmt.Printf("dropped %s: %s\n", d.ID, d.Reason)
	}
	for _, a := range res.Report.Attachments {
		fmt.Printf("attachment %s: %s\n", a.Name, a.Status)
	}
	fmt.Printf("tokens %d -> %d\n", res.Report.TokensBefore, res.Report.TokensAfter)
	// Output:
	// Check this file
	//
	// <ATTACHMENT_FILE>
	// <FILE_INDEX>1</FILE_INDEX>
	// <FILE_NAME>test.txt</FILE_NAME>
	// <FILE_KEY>file-key-1</FILE_KEY>
	// <FILE_LINES>1</FILE_LINES>
	// <FILE_SIZE>17 bytes</FILE_SIZE>
	// <FILE_CONTENT>
	// File content here
	// </FILE_CONTENT>
	// </ATTACHMENT_FILE>
	// dropped 2: not-eligible
	// attachment test.txt: inlined
	// tokens 10 -> 68
}

func ExampleMarkdown() {
	res, _ := history.Build(context.Background(), []history.Message{
		{ID: "1", Role: history.RoleUser, ContentParts: []history.ContentPart{{Type: history.PartText, Text: "  What is in main.go? "}}},
		{ID: "2", Role: history.RoleAssistant, ContentParts: []history.ContentPart{
			{Type: history.PartText, Text: "Let me look."},
			{Type: history.PartToolCall, State: history.StateResult, ToolCallID: "c1", ToolName: "read_file",
				Args: []byte(`{"path": "main.go"}`), Result: []byte(`"package main"`)},
		}},
	}, history.Options{ToolCleanupMode: history.CleanupNone})
	fmt.Println(history.Markdown(res))
	// Output:
	// ### Discussion Excerpt 1
	//
	// user: What is in main.go?
	//
	// ---
	//
	// ### Discussion Excerpt 2
	//
	// assistant: Let me look.
	//
	// [tool call read_file {"path":"main.go"}]
	// [tool result] "package main"
}

func ExamplePressure() {
	sel, _ := history.SelectContextMessages(context.Background(), []history.Message{
		{ID: "1", Role: history.RoleUser, ContentParts: []history.ContentPart{{Type: history.PartText, Text: "hello"}}},
	}, history.Options{})
	a, _ := history.Pressure(context.Background(), sel, history.PressureOptions{ContextWindow: 8192})
	fmt.Println(a.Tokens, a.StubThresholdTokens, a.ThresholdTokens, a.Level)
	// Output: 2 1965 2457 none
}
