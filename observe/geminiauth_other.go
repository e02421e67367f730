//go:build !unix

package observe

// isRoot is false off Unix: ctx does not write system settings there.
func isRoot() bool { return false }

// secureSystemFile is false off Unix, where Gemini CLI checks the file's
// access control list, which ctx does not.
func secureSystemFile(string) bool { return false }
