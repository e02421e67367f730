package history

import (
	"context"
	"fmt"
	"math"

	"github.com/ctxaudit/ctx/measure"
)

// The original's pressure constants.
const (
	// DefaultContextWindow is the window assumed when none is given.
	DefaultContextWindow = 128000
	// DefaultCompactionThreshold is the fraction of the available window at
	// which compaction is due.
	DefaultCompactionThreshold = 0.6
	// OutputReserveTokens is kept free for the model's answer.
	OutputReserveTokens = 32000
	// StubPressureRatio is the fraction of the compaction threshold at
	// which old tool results start being stubbed.
	StubPressureRatio = 0.8
)

// PressureLevel is the relief a context needs.
type PressureLevel string

// The pressure levels, from none to most.
const (
	// PressureNone: send everything as it is.
	PressureNone PressureLevel = "none"
	// PressureStubOldResults: stub old tool results.
	PressureStubOldResults PressureLevel = "stub-old-results"
	// PressureCompact: the context is over the compaction threshold; the
	// history should be summarised (and old results stubbed meanwhile).
	PressureCompact PressureLevel = "compact"
)

// ToolCleanupMode returns the cleanup mode for the level: CleanupNone for
// PressureNone, CleanupStubOldResults otherwise. Compaction itself needs a
// model to write the summary, which is outside this package.
func (l PressureLevel) ToolCleanupMode() ToolCleanupMode {
	if l == PressureNone {
		return CleanupNone
	}
	return CleanupStubOldResults
}

// PressureOptions configure [Pressure].
type PressureOptions struct {
	// ContextWindow is the model's window in tokens; 0 means
	// DefaultContextWindow.
	ContextWindow int
	// CompactionThreshold is a fraction in (0, 1]; 0 means
	// DefaultCompactionThreshold.
	CompactionThreshold float64
	// Estimator counts tokens; nil means measure.Default().
	Estimator measure.Estimator
}

// PressureAssessment is the result of [Pressure].
type PressureAssessment struct {
	// Tokens is the estimate of the measured messages.
	Tokens int `json:"tokens"`
	// ContextWindow is the window used.
	ContextWindow int `json:"contextWindow"`
	// ThresholdTokens is the compaction threshold: above it, compact.
	ThresholdTokens int `json:"thresholdTokens"`
	// StubThresholdTokens is where stubbing starts: at or above it, stub.
	StubThresholdTokens int `json:"stubThresholdTokens"`
	// Level is the relief needed.
	Level PressureLevel `json:"level"`
}

// Thresholds returns the original's compaction threshold and stub threshold
// for a context window and compaction threshold (0 for either means the
// default): available = max(window-32000, floor(window*0.5)), threshold =
// floor(available*compactionThreshold), stub = floor(threshold*0.8).
func Thresholds(contextWindow int, compactionThreshold float64) (threshold, stub int, err error) {
	if contextWindow == 0 {
		contextWindow = DefaultContextWindow
	}
	if compactionThreshold == 0 {
		compactionThreshold = DefaultCompactionThreshold
	}
	if contextWindow < 0 {
		return 0, 0, fmt.Errorf("invalid context window %d: %w", contextWindow, ErrNegativeLimit)
	}
	if !(compactionThreshold > 0 && compactionThreshold <= 1) {
		return 0, 0, fmt.Errorf("invalid compaction threshold %v: want a fraction in (0, 1]", compactionThreshold)
	}
	available := max(float64(contextWindow-OutputReserveTokens), math.Floor(float64(contextWindow)*0.5))
	t := math.Floor(available * compactionThreshold)
	s := math.Floor(t * StubPressureRatio)
	return int(t), int(s), nil
}

// Pressure measures messages (normally the output of
// [SelectContextMessages], before any relief) with the estimator on their
// real text ([MessageText]) and says which relief they need: compact when
// the estimate is above the compaction threshold, stub-old-results when it
// is at or above 80% of it, none otherwise. Unlike the original, it never
// uses cached token counts, so a message without one is not counted as 0.
func Pressure(ctx context.Context, messages []Message, o PressureOptions) (PressureAssessment, error) {
	threshold, stub, err := Thresholds(o.ContextWindow, o.CompactionThreshold)
	if err != nil {
		return PressureAssessment{}, err
	}
	est := o.Estimator
	if est == nil {
		est = measure.Default()
	}
	n, err := tokens(ctx, est, messages)
	if err != nil {
		return PressureAssessment{}, err
	}
	a := PressureAssessment{Tokens: n, ContextWindow: o.ContextWindow, ThresholdTokens: threshold, StubThresholdTokens: stub}
	if a.ContextWindow == 0 {
		a.ContextWindow = DefaultContextWindow
	}
	a.Level = levelFor(n, a.ContextWindow, threshold, stub)
	return a, nil
}

// levelFor maps a token count to a level as the original does: no relief
// when the available window is empty; compaction only for a positive count
// above the threshold.
func levelFor(tokens, window, threshold, stub int) PressureLevel {
	if max(window-OutputReserveTokens, window/2) <= 0 {
		return PressureNone
	}
	switch {
	case tokens > 0 && tokens > threshold:
		return PressureCompact
	case tokens >= stub:
		return PressureStubOldResults
	}
	return PressureNone
}
