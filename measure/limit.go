package measure

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
)

// Limit is an upper bound on a count: characters, lines, tokens or
// messages. It is ctx's one way of writing such a bound, in every option
// and result of the library:
//
//   - the zero value is no limit; [Max](n) is the limit n, and Max(0) is a
//     real limit of zero, which allows nothing;
//   - JSON writes it as a number, or null for no limit;
//   - text (a flag's value, a string in ctx.toml) is a whole number, or
//     inf or none for no limit, read by [ParseLimit]; ctx.toml also takes
//     TOML's inf, and leaving a key out is no limit unless its documentation
//     gives a default.
//
// A safety cap with a default, such as aggregate.Options.MaxFileBytes, is
// not a Limit: it is an int64 of bytes whose zero value is its documented
// default, and it cannot be turned off. A number that reports a bound
// that was hit (aggregate.BudgetError.Limit, profile.Issue.Limit) is a
// plain integer, since such a bound always exists. docs/architecture.md
// ("Limits") lists them all.
//
// Limits are values: copying one copies the bound, == compares two, and
// [Limit.Minus] returns what remains of a pool.
type Limit struct {
	n   int64
	set bool
}

// Max returns the limit n. A negative n is representable (some original
// behaviours give negative limits a meaning) but every ctx option that takes
// a Limit rejects it unless documented otherwise.
func Max(n int64) Limit { return Limit{n: n, set: true} }

// MaxOf returns Max(*n), or no limit for nil: the bridge from optional
// integers.
func MaxOf[T ~int | ~int64](n *T) Limit {
	if n == nil {
		return Limit{}
	}
	return Max(int64(*n))
}

// ParseLimit reads a limit written as text, as on a command line: a whole
// number, 0 or more, or "inf" (also "Inf") or "none" for no limit. The
// whole text must be the number: signs other than +, fractions ("1.5"),
// exponents ("1e3"), spaces and separators are refused, with an error
// that says what a limit must be and quotes s.
func ParseLimit(s string) (Limit, error) {
	switch s {
	case "inf", "Inf", "none":
		return Limit{}, nil
	}
	n, err := strconv.ParseInt(s, 10, 64)
	switch {
	case errors.Is(err, strconv.ErrRange) && n > 0:
		return Limit{}, fmt.Errorf("must be a whole number up to 9,223,372,036,854,775,807, or inf, not %q", s)
	case err != nil || n < 0:
		return Limit{}, fmt.Errorf("must be a nonnegative whole number or inf, not %q", s)
	}
	return Max(n), nil
}

// ZeroIsNone returns l, or no limit when l is Max(0). It is for the few
// counts written as a number where 0 has always meant no limit: the token
// budgets of a command line or a tool's input (a budget that allows
// nothing would leave nothing) and [output] keep of ctx.toml. Everywhere
// else Max(0) is a limit of zero.
func (l Limit) ZeroIsNone() Limit {
	if l.set && l.n == 0 {
		return Limit{}
	}
	return l
}

// IsSet reports whether l is a bound (false for no limit).
func (l Limit) IsSet() bool { return l.set }

// Value returns the bound and true, or 0 and false for no limit.
func (l Limit) Value() (int64, bool) { return l.n, l.set }

// Int returns the bound as an int, or def when there is none.
func (l Limit) Int(def int) int {
	if !l.set {
		return def
	}
	return int(l.n)
}

// Exceeded reports whether n is over the limit (never for no limit).
func (l Limit) Exceeded(n int64) bool { return l.set && n > l.n }

// Negative reports whether the limit is set and below zero.
func (l Limit) Negative() bool { return l.set && l.n < 0 }

// Minus returns what remains of l after n is used; no limit stays no limit.
func (l Limit) Minus(n int64) Limit {
	if !l.set {
		return l
	}
	return Max(l.n - n)
}

// String returns the bound in decimal, or "inf" for no limit.
func (l Limit) String() string {
	if !l.set {
		return "inf"
	}
	return strconv.FormatInt(l.n, 10)
}

// MarshalJSON encodes the bound as a number, or null for no limit.
func (l Limit) MarshalJSON() ([]byte, error) {
	if !l.set {
		return []byte("null"), nil
	}
	return strconv.AppendInt(nil, l.n, 10), nil
}

// UnmarshalJSON decodes null (no limit) or a whole number.
func (l *Limit) UnmarshalJSON(data []byte) error {
	data = bytes.TrimSpace(data)
	if string(data) == "null" {
		*l = Limit{}
		return nil
	}
	var n json.Number
	// json.Number also takes a string that holds a number ("5"): refused
	if err := json.Unmarshal(data, &n); err != nil || (len(data) > 0 && data[0] == '"') {
		return fmt.Errorf("limit: want a whole number or null, not %s", data)
	}
	v, err := n.Int64()
	if err != nil {
		return fmt.Errorf("limit: want a whole number or null, not %s", data)
	}
	*l = Max(v)
	return nil
}
