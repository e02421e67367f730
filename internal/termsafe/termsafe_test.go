package termsafe

import (
	"bytes"
	"testing"
)

func TestWriter(t *testing.T) {
	var b bytes.Buffer
	in := "ctx: error: a\x1b]0;t\x07\u009b\u202e\r\tb\n"
	if _, err := (Writer{&b}).Write([]byte(in)); err != nil {
		t.Fatal(err)
	}
	if want := "ctx: error: a\\x1b]0;t\\x07\\u009b\\u202e\\x0d\tb\n"; b.String() != want {
		t.Errorf("%q, want %q", b.String(), want)
	}
	for _, r := range []rune{'a', 'é', '漢', ' ', 0xa0} {
		if IsControl(r) {
			t.Errorf("%U is not a control", r)
		}
	}
}
