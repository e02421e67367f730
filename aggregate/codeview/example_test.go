package codeview_test

import (
	"context"
	"fmt"

	"github.com/ctxaudit/ctx/aggregate/codeview"
)

func Example() {
	src := []byte(`"""Greeting helpers."""
import os

class Greeter:
    """Greets people."""

    def greet(self, name):
        """Return a greeting."""
        def shout(s):
            return s.upper()
        return shout("hello " + name)
`)
	ctx := context.Background()
	lang, _ := codeview.Detect("greet.py")

	skel, _ := codeview.Skeleton(ctx, lang, src)
	fmt.Print(skel)
	fmt.Println("---")
	outline, _ := codeview.Outline(ctx, lang, src)
	fmt.Print(outline)
	fmt.Println("---")
	fmt.Println(codeview.Summary(ctx, "greet.py", src))
	// Output:
	// """Greeting helpers."""
	// import os
	//
	// class Greeter:
	//     """Greets people."""
	//
	//     def greet(self, name):
	//         """Return a greeting."""
	//         ...
	// ---
	// [Class] Greeter (Lines 4-11)
	//   Greets people.
	//   [Method] greet (Lines 7-11)
	//     Return a greeting.
	//     [Func] shout (Lines 9-10)
	// ---
	// **Python** — 11 lines
	// imports: os
	// class Greeter: greet
}

func ExampleMask() {
	src := []byte("package p\n\n// Add adds.\nfunc Add(a, b int) int {\n\treturn a + b\n}\n\ntype T struct{ n int }\n\nfunc (t *T) Inc() { t.n++ }\n")
	out, err := codeview.Mask(context.Background(), codeview.Go, src, map[string]codeview.MaskMode{
		"Add": "sig", "T.Inc": "def", "T": "hide",
	})
	fmt.Println(out)
	fmt.Println(err)
	// Output:
	// func Add(a, b int) int { ... }
	//
	// func (t *T) Inc() { t.n++ }
	// <nil>
}
