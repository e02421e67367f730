// Package pkg holds helpers.
package pkg

import (
	"fmt"
	"strings"
)

// Greeter greets people.
type Greeter struct {
	Name string
}

// Greet returns a greeting.
func (g *Greeter) Greet(who string) string {
	return fmt.Sprintf("%s greets %s", g.Name, strings.TrimSpace(who))
}

// Sum adds numbers.
func Sum(xs ...int) int {
	t := 0
	for _, x := range xs {
		t += x
	}
	return t
}
