// Command lanetests prints the tests that the race lane of .ci/run does
// not run in full: those that call testlane.Heavy, testlane.Program or
// testlane.Rounds, or read testlane.Race, directly or through a function
// of their package's tests, as a regular expression for go test -run
// ("^(TestA|TestB)$"). The full lane runs only these, without -race:
// every other test has already run, under the race detector.
//
//	go run ./internal/testlane/lanetests [-packages] [DIR]
//
// With -packages it prints instead the packages that hold them ("./cmd/ctx"),
// one per line, so that no other test binary is built. DIR is the module's
// root (default "."). It reads the test files with
// go/parser; testdata directories and those starting with "." or "_" are
// skipped, as the go tool skips them.
package main

import (
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/ctxaudit/ctx/internal/testlane/lanes"
)

func main() {
	args := os.Args[1:]
	packages := len(args) > 0 && args[0] == "-packages"
	if packages {
		args = args[1:]
	}
	dir := "."
	if len(args) > 0 {
		dir = args[0]
	}
	byDir, err := lanes.FullLane(dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, "lanetests:", err)
		os.Exit(2)
	}
	if len(byDir) == 0 {
		fmt.Fprintln(os.Stderr, "lanetests: no test uses testlane")
		os.Exit(2)
	}
	if packages {
		dirs := slices.Sorted(maps.Keys(byDir))
		fmt.Println(strings.Join(dirs, "\n"))
		return
	}
	var names []string
	for _, n := range byDir {
		names = append(names, n...)
	}
	slices.Sort(names)
	fmt.Println(lanes.Pattern(slices.Compact(names)))
}
