package main

import (
	"bytes"

	"github.com/urfave/cli/v2"

	"github.com/ctxaudit/ctx/manifest"
)

// addFiles aggregates the [files] of the configuration into m: one
// manifest.FileRow per item and the rendered files section.
func addFiles(c *cli.Context, s *setup, m *manifest.Manifest) error {
	return nil
}

// filesTable writes the audit's table of aggregated files, if any.
func filesTable(b *bytes.Buffer, m *manifest.Manifest, home string) error {
	return nil
}
