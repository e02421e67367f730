package aggregate

import (
	"context"
	"strings"
	"testing"

	"github.com/ctxaudit/ctx/aggregate/codeview"
	"github.com/ctxaudit/ctx/measure"
)

// deepCPP is 560 KB of nested C++ namespaces, whose outline once grew with
// the square of the depth (gigabytes of output).
func deepCPP() string {
	const open, close = "namespace n {\nint f();\n", "}\n"
	n := (560 << 10) / (len(open) + len(close))
	return strings.Repeat(open, n) + strings.Repeat(close, n)
}

// The outline of a deeply nested file is cut at codeview.MaxDepth, and the
// item says so (codeview's TestDeepNestingLinear counts its growth): asked for directly, and reached only through the token
// budget's fallback from the full view.
func TestOutlineCapReported(t *testing.T) {
	src := deepCPP()
	dir := tree(t, map[string]string{"deep.cpp": src})
	for _, c := range []struct {
		name string
		o    Options
	}{
		{"outline view", Options{Engine: codeview.Engine(), BaseDir: dir, Files: []FileItem{{Path: "deep.cpp", ViewMode: ViewOutline}}}},
		{"max_tokens", Options{Engine: codeview.Engine(), BaseDir: dir, Files: []FileItem{{Path: "deep.cpp"}}, MaxTokens: measure.Max(20000)}},
	} {
		t.Run(c.name, func(t *testing.T) {
			res, err := Run(context.Background(), c.o)
			if err != nil {
				t.Fatal(err)
			}
			it := res.Items[0]
			if it.ViewMode != ViewOutline || it.Status != StatusOK {
				t.Fatalf("view %s, status %s (%s); want the outline", it.ViewMode, it.Status, it.Error)
			}
			if !strings.Contains(it.Truncated, "nested deeper than 64 levels") {
				t.Errorf("Truncated = %q", it.Truncated)
			}
			if !strings.Contains(it.Content, "… (view cut: symbols nested deeper than 64 levels") {
				t.Errorf("the outline does not say it was cut:\n%s", tail(it.Content))
			}
			if len(it.Content) > codeview.MaxOutputBytes(len(src)) {
				t.Errorf("outline of %d bytes", len(it.Content))
			}
			if c.o.MaxTokens.IsSet() && !strings.HasPrefix(it.Degraded, "full → skeleton → outline") && !strings.HasPrefix(it.Degraded, "full → outline") {
				t.Errorf("Degraded = %q", it.Degraded)
			}
		})
	}
}

func tail(s string) string {
	if len(s) > 300 {
		return "…" + s[len(s)-300:]
	}
	return s
}
