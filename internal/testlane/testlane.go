// Package testlane says which lane a test runs in, so that each lane of CI
// stays quick without a test losing what it checks:
//
//   - the edit loop, .ci/fast, is `go test -short`: [Slow] tests (big trees
//     written to disk) skip there;
//   - the race lane of .ci/run is `go test -race`: [Heavy] tests (compute
//     with no concurrency of its own, or runs of ctx as a process, whose
//     concurrency the packages' own tests cover) skip there, and randomized
//     tests run fewer [Rounds];
//   - [Program] tests, which build ctx or drive another program for real
//     (npm, a browser, pre-commit, the agents), skip in both;
//   - the full lane of .ci/run is a plain `go test` of the tests that use
//     Heavy, Program, Rounds or Race (directly or through a helper of their
//     package's tests: internal/testlane/lanetests finds them), so that each
//     test runs in full once: every other one has run under -race.
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

// Program skips t under -short and under the race detector; why names the
// program. The full lane runs it.
func Program(t testing.TB, why string) {
	t.Helper()
	Slow(t, why)
	Heavy(t, why)
}

// Rounds returns n, the rounds of a randomized test, or n/div (at least
// one) under -short or the race detector.
func Rounds(n, div int) int {
	if (testing.Short() || Race) && div > 1 {
		return max(n/div, 1)
	}
	return n
}
