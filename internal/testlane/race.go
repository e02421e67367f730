//go:build race

package testlane

// Race reports whether the race detector is on.
const Race = true
