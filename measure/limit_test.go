package measure_test

import (
	"encoding/json"
	"testing"

	"github.com/ctxaudit/ctx/measure"
)

func TestParseLimit(t *testing.T) {
	t.Parallel()
	const (
		nonneg = `must be a nonnegative whole number or inf, not `
		big    = `must be a whole number up to 9,223,372,036,854,775,807, or inf, not `
	)
	for _, tc := range []struct {
		in      string
		want    measure.Limit
		wantErr string
	}{
		{"0", measure.Max(0), ""}, // a real limit of zero, not "no limit"
		{"1", measure.Max(1), ""},
		{"8192", measure.Max(8192), ""},
		{"+7", measure.Max(7), ""},
		{"007", measure.Max(7), ""},
		{"9223372036854775807", measure.Max(1<<63 - 1), ""},
		{"inf", measure.Limit{}, ""},
		{"Inf", measure.Limit{}, ""},
		{"none", measure.Limit{}, ""},
		{"-1", measure.Limit{}, nonneg + `"-1"`},
		{"-0", measure.Max(0), ""},
		{"-inf", measure.Limit{}, nonneg + `"-inf"`},
		{"INF", measure.Limit{}, nonneg + `"INF"`},
		{"infinity", measure.Limit{}, nonneg + `"infinity"`},
		{"1.5", measure.Limit{}, nonneg + `"1.5"`}, // token counts are whole numbers
		{"2.0", measure.Limit{}, nonneg + `"2.0"`},
		{"1e3", measure.Limit{}, nonneg + `"1e3"`},
		{"1e3x", measure.Limit{}, nonneg + `"1e3x"`},
		{"0x10", measure.Limit{}, nonneg + `"0x10"`},
		{"1_000", measure.Limit{}, nonneg + `"1_000"`},
		{"1,000", measure.Limit{}, nonneg + `"1,000"`},
		{" 5", measure.Limit{}, nonneg + `" 5"`},
		{"", measure.Limit{}, nonneg + `""`},
		{"lots", measure.Limit{}, nonneg + `"lots"`},
		{"9223372036854775808", measure.Limit{}, big + `"9223372036854775808"`},
		{"99999999999999999999", measure.Limit{}, big + `"99999999999999999999"`},
		{"-99999999999999999999", measure.Limit{}, nonneg + `"-99999999999999999999"`},
	} {
		got, err := measure.ParseLimit(tc.in)
		switch {
		case tc.wantErr != "":
			if err == nil || err.Error() != tc.wantErr {
				t.Errorf("ParseLimit(%q) = %v, %v; want the error %s", tc.in, got, err, tc.wantErr)
			}
		case err != nil || got != tc.want:
			t.Errorf("ParseLimit(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
}

// A limit written as text reads back as String writes it.
func TestParseLimitString(t *testing.T) {
	t.Parallel()
	for _, l := range []measure.Limit{{}, measure.Max(0), measure.Max(1), measure.Max(32768), measure.Max(1<<63 - 1)} {
		got, err := measure.ParseLimit(l.String())
		if err != nil || got != l {
			t.Errorf("ParseLimit(%q) = %v, %v; want %v", l.String(), got, err, l)
		}
	}
}

func TestLimitZeroIsNone(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want measure.Limit }{
		{measure.Limit{}, measure.Limit{}},
		{measure.Max(0), measure.Limit{}},
		{measure.Max(1), measure.Max(1)},
		{measure.Max(-1), measure.Max(-1)},
	} {
		if got := tc.in.ZeroIsNone(); got != tc.want {
			t.Errorf("%v.ZeroIsNone() = %v, want %v", tc.in, got, tc.want)
		}
	}
}

// The zero Limit is no limit; Max(0) allows nothing.
func TestLimitZero(t *testing.T) {
	t.Parallel()
	var none measure.Limit
	if none.IsSet() || none.Exceeded(1<<62) || none.Negative() || none.Minus(5) != none || none.Int(-7) != -7 || none.String() != "inf" {
		t.Errorf("the zero Limit is not no limit: %#v", none)
	}
	zero := measure.Max(0)
	if !zero.IsSet() || zero == none || zero.Exceeded(0) || !zero.Exceeded(1) || zero.Int(-7) != 0 || zero.String() != "0" {
		t.Errorf("Max(0) is not a limit of zero: %#v", zero)
	}
	if n, ok := measure.Max(10).Minus(12).Value(); n != -2 || !ok || !measure.Max(10).Minus(12).Negative() {
		t.Errorf("Max(10).Minus(12) = %d, %v", n, ok)
	}
	n := 3
	var nilInt *int
	if measure.MaxOf(&n) != measure.Max(3) || measure.MaxOf(nilInt) != none {
		t.Error("MaxOf")
	}
}

func TestLimitJSON(t *testing.T) {
	t.Parallel()
	type doc struct {
		L measure.Limit `json:"l"`
	}
	for _, tc := range []struct {
		l    measure.Limit
		json string
	}{
		{measure.Limit{}, `{"l":null}`},
		{measure.Max(0), `{"l":0}`},
		{measure.Max(8192), `{"l":8192}`},
		{measure.Max(-3), `{"l":-3}`},
		{measure.Max(1<<63 - 1), `{"l":9223372036854775807}`},
	} {
		b, err := json.Marshal(doc{tc.l})
		if err != nil || string(b) != tc.json {
			t.Errorf("Marshal(%v) = %s, %v; want %s", tc.l, b, err, tc.json)
		}
		var back doc
		if err := json.Unmarshal(b, &back); err != nil || back.L != tc.l {
			t.Errorf("Unmarshal(%s) = %v, %v; want %v", b, back.L, err, tc.l)
		}
	}
	for _, bad := range []string{`{"l":1.5}`, `{"l":"inf"}`, `{"l":"5"}`, `{"l":1e3}`, `{"l":99999999999999999999}`, `{"l":true}`} {
		var d doc
		if err := json.Unmarshal([]byte(bad), &d); err == nil {
			t.Errorf("Unmarshal(%s) = %v, want an error", bad, d.L)
		}
	}
}
