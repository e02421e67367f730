package measure

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Flag names of the built-in estimators, as given to --estimator and to the
// estimator key of ctx.toml.
const (
	EstimatorChars4 = "chars4"
	EstimatorO200k  = "o200k"
	EstimatorCl100k = "cl100k"
)

// estimators lists the built-in estimators in documentation order, each
// with the other name it is known by (the encoding's own name).
var estimators = []struct {
	flag, alias string
	make        func() Estimator
}{
	{EstimatorChars4, "", func() Estimator { return CharsDiv4{} }},
	{EstimatorO200k, "o200k_base", O200kBase},
	{EstimatorCl100k, "cl100k_base", Cl100kBase},
}

// EstimatorNames returns the flag names of the built-in estimators:
// chars4, o200k, cl100k.
func EstimatorNames() []string {
	out := make([]string, len(estimators))
	for i, e := range estimators {
		out[i] = e.flag
	}
	return out
}

// ParseEstimator returns the estimator of a flag name (chars4, o200k or
// cl100k; o200k_base and cl100k_base, the encodings' names, are accepted
// too). Choosing an exact estimator loads nothing: its vocabulary is
// loaded on the first count. The error lists the known names.
func ParseEstimator(flagName string) (Estimator, error) {
	for _, e := range estimators {
		if e.flag == flagName || e.alias != "" && e.alias == flagName {
			return e.make(), nil
		}
	}
	return nil, fmt.Errorf("unknown estimator %q (known: %s)", flagName, strings.Join(EstimatorNames(), ", "))
}

// EstimatorNamed returns the estimator that a manifest names in its
// estimator field (the estimator's Name, such as "ceiling(characters / 4),
// version 1"), so that a stored manifest is measured again as it was
// built. The error names the known estimators.
func EstimatorNamed(manifestName string) (Estimator, error) {
	known := make([]string, len(estimators))
	for i, e := range estimators {
		est := e.make()
		if est.Name() == manifestName {
			return est, nil
		}
		known[i] = fmt.Sprintf("%q (%s)", est.Name(), e.flag)
	}
	return nil, fmt.Errorf("unknown estimator %q (known: %s)", manifestName, strings.Join(known, ", "))
}

// Prefixer is an [Estimator] that knows where its tokens end, so that a
// budget can cut text at a token boundary. The built-in estimators are
// Prefixers.
type Prefixer interface {
	Estimator
	// Prefix returns the length in bytes of the longest prefix of text
	// that ends on a character boundary and at a token boundary, and whose
	// own count is at most max tokens; 0 when max <= 0.
	Prefix(text []byte, max int) int
}

// TokenPrefix returns the length in bytes of the longest prefix of text
// that est counts as at most max tokens and that ends on a character
// boundary; 0 when max <= 0. With a [Prefixer] the prefix also ends at one
// of its token boundaries (its Prefix method); for any other estimator it
// is the longest such prefix found by bisection over character boundaries,
// checked, so that its count never exceeds max.
func TokenPrefix(est Estimator, text []byte, max int) int {
	if est == nil {
		est = Default()
	}
	if max <= 0 {
		return 0
	}
	if p, ok := est.(Prefixer); ok {
		return p.Prefix(text, max)
	}
	return charPrefix(est, text, max)
}

// charPrefix returns the longest prefix of text ending on a character
// boundary whose count is at most max, by bisection (which assumes that
// counts grow with length). Every prefix it returns was counted, so it fits
// even when they do not.
func charPrefix(est Estimator, text []byte, max int) int {
	if est.Tokens(text) <= max {
		return len(text)
	}
	// the character boundaries of text, 0 included, len(text) excluded
	bounds := make([]int, 0, utf8.RuneCount(text))
	for i := range string(text) {
		bounds = append(bounds, i)
	}
	lo, hi := 0, len(bounds) // bounds[lo] fits (the empty prefix does); bounds[hi] is text, which does not
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		if est.Tokens(text[:bounds[mid]]) <= max {
			lo = mid
		} else {
			hi = mid
		}
	}
	return bounds[lo]
}
