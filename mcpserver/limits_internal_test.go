package mcpserver

import (
	"testing"

	"github.com/ctxaudit/ctx/measure"
)

// max_bytes is a safety cap: absent and 0 are the default, and it never
// goes above what one result carries.
func TestMaxBytes(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   *int
		want int
	}{
		{nil, DefaultMaxBytes},
		{ptr(0), DefaultMaxBytes},
		{ptr(-1), DefaultMaxBytes},
		{ptr(1), 1},
		{ptr(MaxResultBytes), MaxResultBytes},
		{ptr(MaxResultBytes + 1), MaxResultBytes},
	} {
		if got := maxBytes(tc.in); got != tc.want {
			t.Errorf("maxBytes(%v) = %d, want %d", tc.in, got, tc.want)
		}
	}
}

// max_tokens and max_file_tokens: absent is the tool's default, 0 no
// limit, as on the command line.
func TestTokenLimit(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   *int
		want measure.Limit
		set  bool
	}{
		{nil, measure.Limit{}, false},
		{ptr(0), measure.Limit{}, true},
		{ptr(1), measure.Max(1), true},
		{ptr(DefaultMaxTokens), measure.Max(DefaultMaxTokens), true},
	} {
		if got, set := tokenLimit(tc.in); got != tc.want || set != tc.set {
			t.Errorf("tokenLimit(%v) = %v, %v; want %v, %v", tc.in, got, set, tc.want, tc.set)
		}
	}
}
