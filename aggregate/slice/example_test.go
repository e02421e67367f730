package slice_test

import (
	"fmt"

	"github.com/ctxaudit/ctx/aggregate/slice"
)

// A slice is pinned once, then re-found in each later version of the file:
// by its hash where the text is the same, between its anchor lines or by
// its fingerprint where the text changed, and not at all (orphaned: nothing
// is shown) where it is gone.
func Example() {
	v1 := "import os\n\ndef main():\n    args = parse()\n    run(args)\n    log(args)\n    exit(0)\n\nmain()\n"
	s, _ := slice.New([]byte(v1), 3, 7, "main", "entry point")

	for _, cur := range []string{
		v1,
		// a line inserted above
		"import os\nimport sys\n\ndef main():\n    args = parse()\n    run(args)\n    log(args)\n    exit(0)\n\nmain()\n",
		// a line edited
		"import os\n\ndef main():\n    args = parse()\n    run(args, fast=True)\n    log(args)\n    exit(0)\n\nmain()\n",
		// edited and moved, the anchor lines gone
		"import sys\n\nclass App:\n    pass\n\ndef main():\n    args = parse()\n    run(args, fast=True)\n    log(args)\n    exit(0)\n",
		// deleted
		"import os\n\nmain()\n",
	} {
		r := slice.Resolve([]byte(cur), s)
		fmt.Printf("%s: lines %d-%d are now %d-%d\n", r.Resolution, r.OldStart, r.OldEnd, r.NewStart, r.NewEnd)
	}
	// Output:
	// unchanged: lines 3-7 are now 3-7
	// moved: lines 3-7 are now 4-8
	// anchored: lines 3-7 are now 3-7
	// fuzzy: lines 3-7 are now 6-10
	// orphaned: lines 3-7 are now 0-0
}

func ExampleResolve() {
	old := []byte("import os\n\ndef main():\n    run()\n")
	s, _ := slice.New(old, 3, 4, "main", "entry point")

	// two lines are inserted above the slice
	cur := []byte("import os\nimport sys\n\n\ndef main():\n    run()\n")
	r := slice.Resolve(cur, s)
	fmt.Printf("%s: lines %d-%d -> %d-%d\n%s\n", r.Resolution, r.OldStart, r.OldEnd, r.NewStart, r.NewEnd, r.Content)

	// the slice is deleted
	r = slice.Resolve([]byte("import os\n"), s)
	fmt.Println(r.Resolution, r.Content == "")
	// Output:
	// moved: lines 3-4 -> 5-6
	// def main():
	//     run()
	// orphaned true
}

// What `ctx slice add` prints, to paste into the custom_slices array of
// the file's [files] entry.
func ExampleSlice_TOML() {
	src := []byte("import os\n\ndef main():\n    run()\n")
	s, _ := slice.New(src, 3, 4, "main", "")
	fmt.Println(s.TOML())
	// Output:
	// { start_line = 3, end_line = 4, tag = "main", content_hash = "8462c708b3a1bc314583cc56a64aae427b1f0139cd4747eca4653905973b77d7", anchor_lines = { before = ["import os", ""], after = [] }, fingerprint = "d9150e 59dbf0" }
}
