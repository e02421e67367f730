package config

import (
	"strings"
	"testing"

	"github.com/ctxaudit/ctx/measure"
)

// limit is the one decoder of every limit of ctx.toml ([budgets], [audit],
// [output] keep, the token budgets of [files] and the limits of [history]).
func TestLimitDecoder(t *testing.T) {
	t.Parallel()
	const (
		nonneg = "x: must be a nonnegative whole number or inf, not "
		tokens = "x: must be a number of tokens (1 or more), or inf (or leave it out) for no limit, not "
		// a whole number beyond int64
		tooLargeMsg = " is more than the largest limit, 9,223,372,036,854,775,807 (inf is no limit)"
	)
	for _, tc := range []struct {
		value   string // "" leaves the key out
		least   int64
		want    measure.Limit
		wantErr string
	}{
		{"", 0, measure.Limit{}, ""},
		{"0", 0, measure.Max(0), ""}, // a limit of zero, not "no limit"
		{"1", 0, measure.Max(1), ""},
		{"8192", 0, measure.Max(8192), ""},
		{"+3", 0, measure.Max(3), ""},
		{"1_000", 0, measure.Max(1000), ""}, // TOML's own digit separator
		{"2.0", 0, measure.Max(2), ""},
		{"1e3", 0, measure.Max(1000), ""},
		{"9223372036854775807", 0, measure.Max(1<<63 - 1), ""},
		{"inf", 0, measure.Limit{}, ""},
		{"+inf", 0, measure.Limit{}, ""},
		{`"inf"`, 0, measure.Limit{}, ""},
		{`"Inf"`, 0, measure.Limit{}, ""},
		{`"none"`, 0, measure.Limit{}, ""},
		{"-1", 0, measure.Limit{}, nonneg + "-1"},
		{"-0.5", 0, measure.Limit{}, nonneg + "-0.5"},
		{"2.5", 0, measure.Limit{}, nonneg + "2.5"},
		{"-inf", 0, measure.Limit{}, nonneg + "-Inf"},
		{"nan", 0, measure.Limit{}, nonneg + "NaN"},
		// past int64: said so, with the largest limit
		{"1e19", 0, measure.Limit{}, "x: 1e+19" + tooLargeMsg},
		{"9.3e18", 0, measure.Limit{}, "x: 9.3e+18" + tooLargeMsg},
		{"9223372036854775808.0", 1, measure.Limit{}, "x: 9.223372036854776e+18" + tooLargeMsg},
		{`"99999999999999999999"`, 0, measure.Limit{}, `x: "99999999999999999999"` + tooLargeMsg},
		{`"-99999999999999999999"`, 0, measure.Limit{}, nonneg + `"-99999999999999999999"`},
		{`"5"`, 0, measure.Limit{}, nonneg + `"5"`}, // a number is written as one
		{`"lots"`, 0, measure.Limit{}, nonneg + `"lots"`},
		{`""`, 0, measure.Limit{}, nonneg + `""`},
		{"true", 0, measure.Limit{}, nonneg + "a boolean"},
		{"[1]", 0, measure.Limit{}, nonneg + "an array"},
		// a token budget: 0 would leave nothing
		{"1", 1, measure.Max(1), ""},
		{"inf", 1, measure.Limit{}, ""},
		{"0", 1, measure.Limit{}, tokens + "0"},
		{"0.0", 1, measure.Limit{}, tokens + "0"},
		{"-5", 1, measure.Limit{}, tokens + "-5"},
		{"1.5", 1, measure.Limit{}, tokens + "1.5"},
	} {
		src := ""
		if tc.value != "" {
			src = "x = " + tc.value + "\n"
		}
		d, err := parseDoc("ctx.toml", []byte(src))
		if err != nil {
			t.Fatalf("%q: %v", src, err)
		}
		want := wantLimit
		if tc.least == 1 {
			want = wantTokens
		}
		got, ok, err := limit(d.table(), "x", tc.least, want)
		switch {
		case tc.wantErr != "":
			if err == nil || !strings.HasSuffix(err.Error(), ": "+tc.wantErr) || !ok {
				t.Errorf("%q: %v, %v, %v; want the error %s", src, got, ok, err, tc.wantErr)
			}
		case err != nil || got != tc.want || ok != (tc.value != ""):
			t.Errorf("%q: %v, %v, %v; want %v", src, got, ok, err, tc.want)
		}
	}
}

// A number too large for TOML is the parser's error, with its line.
func TestLimitOverflow(t *testing.T) {
	t.Parallel()
	_, err := Decode("ctx.toml", []byte("[budgets.x]\nmax_chars = 99999999999999999999\n"))
	if err == nil || !strings.HasPrefix(err.Error(), "ctx.toml:2") {
		t.Errorf("got %v", err)
	}
}
