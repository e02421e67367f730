package provenance

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"
)

// lcsTable is the definition lcs implements: the table of the lengths of
// the longest common subsequences of every pair of suffixes, walked from
// its corner, skipping in b first on a tie.
func lcsTable(a, b []string) map[string]bool {
	n, m := len(a), len(b)
	t := make([][]int, n+1)
	for i := range t {
		t[i] = make([]int, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			switch {
			case a[i] == b[j]:
				t[i][j] = t[i+1][j+1] + 1
			case t[i+1][j] >= t[i][j+1]:
				t[i][j] = t[i+1][j]
			default:
				t[i][j] = t[i][j+1]
			}
		}
	}
	out := map[string]bool{}
	for i, j := 0, 0; i < n && j < m; {
		switch {
		case a[i] == b[j]:
			out[a[i]] = true
			i++
			j++
		case t[i][j+1] >= t[i+1][j]:
			j++
		default:
			i++
		}
	}
	return out
}

// lcs chooses the subsequence the table chooses, for permutations of
// every size up to 7 and for random ones (shuffled, or with a few ids
// moved, as sources are) up to 200 ids.
func TestLCSAsTable(t *testing.T) {
	ids := func(n int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = fmt.Sprint("s", i)
		}
		return out
	}
	check := func(a, b []string) {
		t.Helper()
		if got, want := lcs(a, b), lcsTable(a, b); !reflect.DeepEqual(got, want) {
			t.Fatalf("lcs(%v, %v) = %v, the table gives %v", a, b, got, want)
		}
	}
	var permute func(b []string, k int)
	permute = func(b []string, k int) { // every permutation (Heap's algorithm)
		if k <= 1 {
			check(ids(len(b)), b)
			return
		}
		for i := 0; i < k; i++ {
			permute(b, k-1)
			if k%2 == 0 {
				b[i], b[k-1] = b[k-1], b[i]
			} else {
				b[0], b[k-1] = b[k-1], b[0]
			}
		}
	}
	for n := 0; n <= 7; n++ {
		permute(ids(n), n)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for range 500 {
		n := rng.IntN(200)
		a, b := ids(n), ids(n)
		if rng.IntN(2) == 0 {
			rng.Shuffle(n, func(i, j int) { b[i], b[j] = b[j], b[i] })
		} else {
			for range rng.IntN(4) + 1 {
				if n > 1 {
					i, j := rng.IntN(n), rng.IntN(n)
					id := b[i]
					b = append(b[:i], b[i+1:]...)
					b = append(b[:j], append([]string{id}, b[j:]...)...)
				}
			}
		}
		check(a, b)
	}
}

// Comparing the order of 100,000 sources takes work in step with them, not
// a table of 10^10 lengths.
func TestLCSLarge(t *testing.T) {
	const n = 100000
	a := make([]string, n)
	for i := range a {
		a[i] = fmt.Sprint("s", i)
	}
	b := append([]string{a[n-1]}, a[:n-1]...) // the last source moved to the top
	allocs := testing.AllocsPerRun(1, func() {
		if kept := lcs(a, b); len(kept) != n-1 || kept[a[n-1]] {
			t.Fatalf("kept %d ids, the moved one: %v", len(kept), kept[a[n-1]])
		}
	})
	if allocs > 3*n {
		t.Errorf("%.0f allocations for %d ids", allocs, n)
	}
}
