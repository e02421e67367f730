//go:build !linux && !windows

package aggregate

// maxPathBytes is the system's limit on the length of a path, its NUL
// included (PATH_MAX, 1024 on macOS and the BSDs): a walk does not enter a
// directory whose .gitignore could not be named.
const maxPathBytes = 1024
