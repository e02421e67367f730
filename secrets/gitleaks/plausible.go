package gitleaks

import (
	"net/url"
	"strings"
)

// genericRules are the rules that match any value assigned to a name like
// key, token or secret, or sent in an Authorization header: their matches
// are credentials only when the value looks like one. (The rules of a
// provider match that provider's own format, and are kept as they are.)
var genericRules = map[string]bool{"generic-api-key": true, "curl-auth-header": true, urlPasswordRule: true}

// urlPasswordRule is ctx's rule of a password in a URL (rules.toml).
const urlPasswordRule = "url-password"

// implausible reports whether the value a generic rule matched is not a
// credential but a name or a placeholder: a feature flag's key
// ("pricing-phase-1-limits", "403-scope-union"), a documented placeholder
// ("YOUR_API_KEY", "<token>", "xxxxxxxx"), or a run of consecutive digits or
// letters standing for one ("key-123456789", "0123456789abcdef…"). Measured
// on growthbook, python-sdk and C2FO/vfs: 30 of the 70 generic findings
// were such values, every one a false positive; base64 and random values
// are kept.
func implausible(rule, secret string) bool {
	s := strings.Trim(secret, `"'`+"`")
	return s == "" || nameLike(s) || placeholder(s) || rule == urlPasswordRule && urlPlaceholder(s)
}

// urlPlaceholder: a URL's password that stands for one, as connection
// strings in documentation, tests and local development configurations
// write them: a word such as "password" or "postgres" (the default of a
// local database), also percent-encoded or spelled with symbols
// ("p%40ssword", "pa%3Fsword"), a variable ("$DB_PASS", "%s",
// ":password"), or stars.
func urlPlaceholder(s string) bool {
	if strings.HasPrefix(s, "$") || strings.HasPrefix(s, "[REDACTED:") || strings.HasPrefix(s, "%s") || strings.HasPrefix(s, ":") || strings.Trim(s, "*") == "" {
		return true
	}
	if u, err := url.PathUnescape(s); err == nil {
		s = u
	}
	// the letters, with the symbols that stand for letters read as them
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		switch {
		case r >= 'a' && r <= 'z':
			b.WriteRune(r)
		case strings.ContainsRune("@0$1", r):
			b.WriteByte("aosi"[strings.IndexRune("@0$1", r)])
		}
	}
	switch b.String() {
	case "password", "passwd", "pasword", "pass", "pwd", "mypass", "mypassword", "secret", "root", "admin", "user",
		"username", "test", "guest", "postgres", "postgresql", "mysql", "mariadb", "redis", "mongo", "mongodb",
		"rabbitmq", "sa":
		return true
	}
	return false
}

// nameLike: words of lowercase letters joined by - _ . / or :, with numbers
// of at most four digits between them ("pricing-phase-1-limits").
func nameLike(s string) bool {
	parts := strings.FieldsFunc(s, func(r rune) bool { return r == '-' || r == '_' || r == '.' || r == '/' || r == ':' })
	if len(parts) < 2 {
		return false
	}
	words := 0
	for _, p := range parts {
		switch {
		case len(p) > 24:
			return false
		case isAll(p, 'a', 'z'):
			words++
		case isAll(p, '0', '9') && len(p) <= 4:
		default:
			return false
		}
	}
	return words >= 2
}

// placeholder: a value written for a person to replace.
func placeholder(s string) bool {
	lower := strings.ToLower(s)
	for _, w := range []string{"your_", "your-", "yourapi", "your api", "example", "placeholder", "changeme", "replace_me", "replaceme", "dummy", "<", "${", "{{"} {
		if strings.Contains(lower, w) {
			return true
		}
	}
	// UPPER_CASE_WORDS, as in API_KEY or MY_TOKEN
	if upper := strings.FieldsFunc(s, func(r rune) bool { return r == '_' || r == '-' }); len(upper) >= 2 {
		all := true
		for _, p := range upper {
			if !isAll(p, 'A', 'Z') {
				all = false
			}
		}
		if all {
			return true
		}
	}
	// one character repeated, or counting runs: what is left of the value
	// (after a prefix such as sk_ or key-) once the runs of four or more
	// consecutive or equal characters ("1234567890", "abcdef", "xxxx") are
	// taken out is at most a third of it
	rest := lower
	if i := strings.IndexAny(rest, "_-"); i > 0 && i <= 10 && isAll(rest[:i], 'a', 'z') {
		rest = rest[i+1:]
	}
	left := withoutRuns(rest, 4)
	// or made of shorter runs alone, as documentation writes them
	// ("secret_abc123DEF456")
	return len(rest) >= 8 && (len(left) <= len(rest)/3 || withoutRuns(rest, 3) == "")
}

// withoutRuns returns s without its runs of n or more characters that
// count up, count down or repeat (each byte one more, one less, or the
// same as the one before).
func withoutRuns(s string, n int) string {
	var out []byte
	for i := 0; i < len(s); {
		j := i + 1
		if j < len(s) {
			d := int(s[j]) - int(s[i])
			if d >= -1 && d <= 1 && alnum(s[i]) {
				for j < len(s) && alnum(s[j]) && int(s[j])-int(s[j-1]) == d {
					j++
				}
			}
		}
		if j-i >= n {
			i = j
			continue
		}
		out = append(out, s[i])
		i++
	}
	return string(out)
}

func alnum(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' }

func isAll(s string, lo, hi byte) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < lo || s[i] > hi {
			return false
		}
	}
	return s != ""
}
