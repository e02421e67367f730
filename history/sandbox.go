package history

import (
	"strconv"
	"strings"
)

// textExts are the original's text file extensions (file-extensions.ts,
// textExts, in the version that has rounds.ts and context-pressure.ts, which
// ends with .typ, .patch, .diff, .gitpatch and .gitignore), space separated:
// in sandbox mode a file whose name ends with one of them gets no
// PARSED_SANDBOX_PATH.
const textExts = ".txt .md .mdx .html .htm .xml .json .yaml .yml .csv .tsv .ini .log .rtf .tex .srt .xhtml .nfo .conf .config .env .rst .php .js .ts .jsp .aspx .bat .sh .py .rb .pl .sql .css .less .scss .sass .styl .coffee .ino .asm .go .scala .swift .kt .rs .lua .groovy .dart .hs .clj .cljs .elm .erl .ex .exs .pug .haml .slim .tpl .ejs .hbs .mustache .jade .twig .blade .vue .jsx .tsx .graphql .gql .proto .thrift .toml .edn .cake .ctp .cfm .cfc .m .mm .gradle .kts .java .cs .c .h .cpp .hpp .cc .cxx .mjs .typ .patch .diff .gitpatch .gitignore"

// isTextFilePath reports whether the lower-cased name ends with a text
// extension. JavaScript's toLowerCase turns U+0130 (capital I with dot) into
// "i\u0307", where Go's strings.ToLower gives a plain "i".
func isTextFilePath(name string) bool {
	lower := strings.ToLower(strings.ReplaceAll(name, "\u0130", "i\u0307"))
	for _, ext := range strings.Fields(textExts) {
		if strings.HasSuffix(lower, ext) {
			return true
		}
	}
	return false
}

// sandboxIdentity is rawStorageKey || storageKey || id.
func sandboxIdentity(f MessageFile) string {
	switch {
	case f.RawStorageKey != "":
		return f.RawStorageKey
	case f.StorageKey != "":
		return f.StorageKey
	}
	return f.ID
}

// sanitizeSandboxName keeps the last path element (after turning '\' into
// '/'), trims it, turns control characters into '_', and falls back to
// "file" for an empty name, "." or "..".
func sanitizeSandboxName(name string) string {
	name = strings.ReplaceAll(name, `\`, "/")
	base := jsTrim(name[strings.LastIndexByte(name, '/')+1:])
	if base == "" {
		return "file"
	}
	var b strings.Builder
	for _, r := range base {
		if r < 32 {
			b.WriteByte('_')
		} else {
			b.WriteRune(r)
		}
	}
	cleaned := b.String()
	if cleaned == "" || cleaned == "." || cleaned == ".." {
		return "file"
	}
	return cleaned
}

// SandboxPath returns the path, relative to the sandbox working directory,
// at which the original places an uploaded file:
// attachments/<fingerprint>/<sanitized name>, where the fingerprint is 12 hex
// digits of two FNV-1a hashes of rawStorageKey, storageKey or id (the first
// one set). Without any identity it is the sanitized name alone.
func SandboxPath(f MessageFile) string {
	base := sanitizeSandboxName(f.Name)
	id := sandboxIdentity(f)
	if id == "" {
		return base
	}
	return "attachments/" + fnv1a32x2(id) + "/" + base
}

// formatFileSize is the original's sandbox size label: "unknown" for 0,
// "NB" below 1 KiB, "x.xKB" below 1 MiB, else "x.xMB".
func formatFileSize(n float64) string {
	switch {
	case n == 0:
		return "unknown"
	case n < 1024:
		return jsNumber(n) + "B"
	case n < 1024*1024:
		return jsToFixed1(n/1024) + "KB"
	}
	return jsToFixed1(n/(1024*1024)) + "MB"
}

// itoa is strconv.Itoa, short.
func itoa(n int) string { return strconv.Itoa(n) }
