package fileio

import (
	"strings"
	"testing"
)

func TestIsBinary(t *testing.T) {
	for _, tc := range []struct {
		name string
		src  string
		want bool
	}{
		{"empty", "", false},
		{"text", "héllo\n", false},
		{"a NUL byte", "a\x00b", true},
		{"invalid UTF-8", "a\xffb", true},
		{"a NUL byte past the sniff", strings.Repeat("a", binarySniff) + "\x00", false},
		{"invalid UTF-8 past the sniff", strings.Repeat("a", binarySniff) + "\xff", true},
	} {
		if got := IsBinary([]byte(tc.src)); got != tc.want {
			t.Errorf("%s: IsBinary = %v, want %v", tc.name, got, tc.want)
		}
	}
}
