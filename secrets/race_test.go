//go:build race

package secrets

func init() { raceEnabled = true }
