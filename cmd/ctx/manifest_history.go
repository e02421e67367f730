package main

import (
	"github.com/urfave/cli/v2"

	"github.com/ctxaudit/ctx/manifest"
)

// addHistory builds the [discussion] history into m: the manifest.History
// record and the rendered Discussion History section, last.
func addHistory(c *cli.Context, s *setup, m *manifest.Manifest) error {
	return nil
}
