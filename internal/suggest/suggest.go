// Package suggest finds the names a mistyped one most likely meant: the
// one "did you mean" of ctx, for commands and flags, profiles, preset
// names and secret rules alike.
package suggest

import "strings"

// Names returns the names closest to a mistyped one: those at the
// smallest edit distance (letters inserted, deleted, replaced or two
// swapped), at most one edit per four letters of the typed word (at least
// one), case aside, so that a short word is not "corrected" into an
// unrelated one (bogus is two edits from focus); else the names it begins
// (at least two letters). Names of one letter are never suggested. The
// order is that of names, without repeats.
func Names(typed string, names []string) []string {
	typed = strings.ToLower(typed)
	if len([]rune(typed)) < 2 {
		return nil
	}
	limit := max(1, len([]rune(typed))/4)
	best := limit + 1
	var out []string
	seen := map[string]bool{}
	for _, n := range names {
		if len([]rune(n)) < 2 || seen[n] {
			continue
		}
		seen[n] = true
		d := Distance(typed, strings.ToLower(n))
		switch {
		case d > limit:
		case d < best:
			best, out = d, []string{n}
		case d == best:
			out = append(out, n)
		}
	}
	if len(out) > 0 {
		return out
	}
	for _, n := range names {
		if len([]rune(n)) >= 2 && strings.HasPrefix(strings.ToLower(n), typed) && !contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}

func contains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// Distance is the optimal string alignment distance of a and b, in runes:
// insertions, deletions, substitutions and swaps of two neighbours.
func Distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev2 := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}
