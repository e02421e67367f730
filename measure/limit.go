package measure

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
)

// Limit is an upper bound on a count: characters, lines, tokens or
// messages. It is the one way every ctx budget says "no limit" in Go: the
// zero value; manifests write it as null, and ctx.toml as an absent key or
// inf. [Max] makes a bound; Max(0) allows nothing.
//
// Limits are values: copying one copies the bound, and [Limit.Minus]
// returns what remains of a pool.
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
	if err := json.Unmarshal(data, &n); err != nil {
		return fmt.Errorf("limit: want a whole number or null, not %s", data)
	}
	v, err := n.Int64()
	if err != nil {
		return fmt.Errorf("limit: want a whole number or null, not %s", data)
	}
	*l = Max(v)
	return nil
}
