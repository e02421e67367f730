package secrets_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/ctxaudit/ctx/secrets"
	"github.com/ctxaudit/ctx/secrets/gitleaks"
)

// Every line is redacted however it is cut into writes, and a last line
// without a newline waits for Flush.
func TestLineWriter(t *testing.T) {
	sc, err := gitleaks.Default()
	if err != nil {
		t.Fatal(err)
	}
	const pat = "ghp_Yk3IMJ9PvMJ11Uqz6DNLLgGxJCbUUrt93l4B"
	in := "| file | " + pat + ".py |\nok\nlast " + pat
	for _, size := range []int{1, 3, 17, len(in)} {
		var out bytes.Buffer
		w := secrets.NewLineWriter(context.Background(), &out, sc)
		for i := 0; i < len(in); i += size {
			if _, err := w.Write([]byte(in[i:min(i+size, len(in))])); err != nil {
				t.Fatal(err)
			}
		}
		if strings.Contains(out.String(), "last") {
			t.Errorf("size %d: the last line was written before Flush", size)
		}
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		want := "| file | [REDACTED:github-pat].py |\nok\nlast [REDACTED:github-pat]"
		if out.String() != want {
			t.Errorf("size %d: %q, want %q", size, out.String(), want)
		}
	}
}
