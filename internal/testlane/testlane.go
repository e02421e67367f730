// Package testlane says which lane a test runs in, so that each lane of CI
// stays quick without a test losing what it checks:
//
//   - the edit loop, .ci/fast, is `go test -short`: [Slow] tests (big trees
//     written to disk, real programs) skip there;
//   - the race lane of .ci/run is `go test -race`: [Heavy] tests (compute
//     with no concurrency of its own, which the race detector makes about
//     ten times slower) skip there, and randomized tests run fewer
//     [Rounds];
//   - the full lane of .ci/run is a plain `go test`: everything runs.
package testlane

import "testing"

// Slow skips t under -short; why says what makes it slow.
func Slow(t testing.TB, why string) {
	t.Helper()
	if testing.Short() {
		t.Skip("skipped with -short: " + why)
	}
}

// Heavy skips t under the race detector; why says what makes it heavy.
// The full lane runs it without the detector.
func Heavy(t testing.TB, why string) {
	t.Helper()
	if Race {
		t.Skip("skipped under -race (the full lane runs it): " + why)
	}
}

// Rounds returns n, the rounds of a randomized test, or n/div (at least
// one) under -short or the race detector.
func Rounds(n, div int) int {
	if (testing.Short() || Race) && div > 1 {
		return max(n/div, 1)
	}
	return n
}
