package jsonenc

import (
	"encoding/json"
	"strings"
	"testing"
)

// The characters a terminal acts on are escaped, and the value decodes
// back the same.
func TestEscapesTerminalControls(t *testing.T) {
	v := map[string]string{"k": "a\x1b]0;t\x07\u009b31m\u202e\x7fé<&>"}
	for _, enc := range []func(any) ([]byte, error){Indent, Compact} {
		b, err := enc(v)
		if err != nil {
			t.Fatal(err)
		}
		want := `"a\u001b]0;t\u0007\u009b31m\u202e\u007fé<&>"`
		if got := string(b); !strings.Contains(got, want) {
			t.Errorf("encoded %s, want it to hold %s", got, want)
		}
		var back map[string]string
		if err := json.Unmarshal(b, &back); err != nil || back["k"] != v["k"] {
			t.Errorf("decodes to %q, %v", back["k"], err)
		}
	}
}
