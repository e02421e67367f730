package history

import (
	"context"
	"strings"
	"testing"
)

// The reference's pressure vectors: window -> (compaction threshold, stub
// threshold).
func TestThresholdVectors(t *testing.T) {
	t.Parallel()
	tests := []struct{ window, threshold, stub int }{
		{128000, 57600, 46080},
		{200000, 100800, 80640},
		{32000, 9600, 7680},
		{8192, 2457, 1965},
		{0, 57600, 46080}, // default window
	}
	for _, tt := range tests {
		th, st, err := Thresholds(tt.window, 0)
		if err != nil || th != tt.threshold || st != tt.stub {
			t.Errorf("Thresholds(%d) = %d, %d, %v; want %d, %d", tt.window, th, st, err, tt.threshold, tt.stub)
		}
	}
	if th, _, _ := Thresholds(128000, 0.5); th != 48000 {
		t.Errorf("threshold 0.5: %d", th)
	}
	for _, bad := range []float64{-0.1, 1.5} {
		if _, _, err := Thresholds(128000, bad); err == nil {
			t.Errorf("threshold %v accepted", bad)
		}
	}
	if _, _, err := Thresholds(-1, 0); err == nil {
		t.Error("negative window accepted")
	}
}

func TestPressureLevels(t *testing.T) {
	t.Parallel()
	// 4 characters per token: a text of 4n characters is n tokens.
	at := func(n int) []Message { return []Message{msg("1", RoleUser, strings.Repeat("abcd", n))} }
	tests := []struct {
		window, tokens int
		want           PressureLevel
	}{
		{128000, 46079, PressureNone},
		{128000, 46080, PressureStubOldResults},
		{128000, 57600, PressureStubOldResults},
		{128000, 57601, PressureCompact},
		{8192, 1964, PressureNone},
		{8192, 1965, PressureStubOldResults},
		{8192, 2458, PressureCompact},
		{1, 5, PressureNone}, // no available window
	}
	for _, tt := range tests {
		a, err := Pressure(context.Background(), at(tt.tokens), PressureOptions{ContextWindow: tt.window})
		if err != nil {
			t.Fatal(err)
		}
		if a.Tokens != tt.tokens || a.Level != tt.want {
			t.Errorf("window %d, %d tokens: %+v, want %s", tt.window, tt.tokens, a, tt.want)
		}
	}
	if PressureCompact.ToolCleanupMode() != CleanupStubOldResults || PressureNone.ToolCleanupMode() != CleanupNone {
		t.Error("ToolCleanupMode mapping")
	}
}

func TestMessageText(t *testing.T) {
	t.Parallel()
	m := toolMsg("1", `{ "ok" : true }`)
	m.ContentParts = append(m.ContentParts,
		ContentPart{Type: PartReasoning, Text: "thinking"},
		ContentPart{Type: PartInfo, Text: "ui only"},
		ContentPart{Type: PartImage, StorageKey: "img", OCRResult: "ocr text"})
	want := "Let me look.\nread_file\n{\"path\":\"main.go\"}\n{\"ok\":true}\nthinking\nocr text"
	if got := MessageText(m); got != want {
		t.Errorf("MessageText:\n%q\nwant\n%q", got, want)
	}
	if got := MessageTokens(nil, m); got != (len([]rune(want))+3)/4 {
		t.Errorf("MessageTokens %d", got)
	}
}
