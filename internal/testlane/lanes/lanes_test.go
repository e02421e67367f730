package lanes_test

import (
	"slices"
	"testing"

	"github.com/ctxaudit/ctx/internal/testfs"
	"github.com/ctxaudit/ctx/internal/testlane/lanes"
)

// A test is in the full lane when it uses a mark of testlane itself,
// through a helper, a helper's helper, a method or a function value, in
// either test package of a directory; other tests, testdata and non-test
// files are not.
func TestFullLaneTests(t *testing.T) {
	t.Parallel()
	dir := testfs.Tree(t, map[string]string{
		"go.mod": "module example.com/m\n",
		"a/a_test.go": `package a
import (
	"testing"
	tl "example.com/m/internal/testlane"
)
func TestDirect(t *testing.T) { tl.Heavy(t, "why") }
func TestPlain(t *testing.T) {}
func build(t *testing.T) string { tl.Program(t, "why"); return "" }
func binary(t *testing.T) string { return build(t) }
func TestThroughHelpers(t *testing.T) { _ = binary(t) }
func TestRounds(t *testing.T) { for range tl.Rounds(10, 2) {} }
func TestRace(t *testing.T) { if tl.Race { return } }
type fixture struct{}
func (fixture) start(t *testing.T) { build(t) }
func TestMethod(t *testing.T) { var f fixture; f.start(t) }
func TestValue(t *testing.T) { run(t, binary) }
func run(t *testing.T, f func(*testing.T) string) { f(t) }
func TestMain(m *testing.M) { tl.Heavy(nil, "") }
func Testing(t *testing.T) { tl.Heavy(t, "") }
`,
		"a/x_test.go": `package a_test
import "testing"
func TestOther(t *testing.T) {}
`,
		"a/b_test.go": `package a_test
import (
	"testing"
	"example.com/m/internal/testlane"
)
func TestOtherFile(t *testing.T) { testlane.Heavy(t, "") }
`,
		"a/testdata/c_test.go": `package c
import ("testing"; "example.com/m/internal/testlane")
func TestInTestdata(t *testing.T) { testlane.Heavy(t, "") }
`,
		"b/b.go": `package b
import "example.com/m/internal/testlane"
func TestNotATestFile() { testlane.Heavy(nil, "") }
`,
	})
	got, err := lanes.FullLaneTests(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"TestDirect", "TestMethod", "TestOtherFile", "TestRace", "TestRounds", "TestThroughHelpers", "TestValue"}
	if !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	if p := lanes.Pattern([]string{"TestA", "TestB"}); p != "^(TestA|TestB)$" {
		t.Errorf("pattern %q", p)
	}
}

// This module's full lane holds the tests that run real programs and
// skip under -race, the helpers' callers among them.
func TestThisModule(t *testing.T) {
	t.Parallel()
	got, err := lanes.FullLaneTests("../../..")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"TestScripts", "TestRealAgents", "TestSameAsCommand", "TestStdio", "TestPreCommitHooks", "TestBrowser"} {
		if !slices.Contains(got, name) {
			t.Errorf("%s is not in the full lane: %q", name, got)
		}
	}
	byDir, err := lanes.FullLane("../../..")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(byDir["./cmd/ctx"], "TestScripts") || byDir["./internal/testlane/lanes"] != nil {
		t.Errorf("by directory: %q", byDir)
	}
	if slices.Contains(got, "TestFullLaneTests") {
		t.Error("a test that does not use testlane is in the full lane")
	}
}
