// Package version holds the ctx version written into manifests.
package version

// Version is the ctx release. Manifests record it in tool.version.
const Version = "0.1.0"
