// Package codeview builds per-file code views with tree-sitter: skeletons,
// outlines, symbol masks and heuristic summaries. The aggregation pipeline
// calls it for the skeleton, outline, masked and summary view modes.
//
// Every entry point takes a context and parses with a fresh parser, so the
// functions are safe for concurrent use; nothing is shared between calls.
// A language without a parser yields [ErrUnsupported], and callers fall back
// to [Summary]. Source with syntax errors still gets a best-effort view.
//
// # Languages
//
// [Detect] maps extensions to languages: Python (.py .pyi), C (.c .h),
// C++ (.cc .cpp .cxx .hpp .hh .hxx), Go, JavaScript (.js .mjs .cjs .jsx),
// TypeScript (.ts .mts .cts), TSX (.tsx), Rust (.rs) and Java (.java).
//
// # Python skeleton
//
// The skeleton is rebuilt from byte ranges of the source. At module and
// class level (and inside if, try, with, for, while and match statements at
// those levels) it keeps imports, assignments, the docstring, classes,
// functions and decorators; other statements are dropped, and a compound
// statement is kept only when one of its blocks keeps something. A block
// left empty becomes "...". A function keeps its header (decorators,
// signature, return annotation) and its body is replaced as a whole by its
// docstring, when it has one, and "...", at the body's indentation; nested
// functions disappear with the body, and nothing is ever edited inside an
// elided body. Comments are kept only right above a kept statement (no blank
// line between), plus a shebang or encoding line at the top. Up to two blank
// lines between kept statements are preserved. Statements that contain
// parse errors are copied as they are, with only their clean function bodies
// elided, so that the skeleton of valid Python stays valid Python.
//
// # Brace-language skeleton
//
// For C, C++, Go, JavaScript, TypeScript, Rust and Java the skeleton is the
// source with edits. Every function, method, constructor and block-bodied
// lambda/closure body becomes "{ ... }"; the walk never enters an elided
// body. Declarations are kept: includes, imports, package clauses,
// preprocessor lines, types, structs with their fields, enums, typedefs,
// variables and constants, templates, access specifiers and prototypes
// (a C prototype stays in its declaration form, "int f(int);"). Namespace,
// class, struct, interface, trait, impl, module, extern-block and
// preprocessor-conditional bodies are recursed into, not elided. At those
// levels, statements (top-level code such as a JavaScript call) are deleted,
// and so are comments, except a comment chain right above a kept item, a
// comment trailing a kept item on its last line, and Rust inner doc
// comments (//! and /*!). Deleted lines take their blank lines with them
// when a blank line precedes them.
//
// # Symbols and outline
//
// [Symbols] lists, in source order, the classes, functions, methods, types
// and other declarations of a file with kind labels: Class, Func,
// Async Func, Method, Async Method, Struct, Enum, Union, Typedef,
// Namespace, Interface, Trait, Impl, Type, Const, Var, Macro, Record and
// Module. Ranges are the 1-based lines of the tree-sitter node (the
// decorated definition in Python, the template declaration for a C++
// template, the export statement in JavaScript and TypeScript, the
// declaration with its annotations in Java); a node ending just after a
// newline ends on that newline's line. Paths are qualified with "." (Python,
// Go methods as Type.method, JavaScript, TypeScript, Java) or "::" (C++,
// and Rust, where an impl's methods are qualified by the implementing type
// without generics: "Point::new"). Per language:
//
//   - Python: classes and functions at any depth, nested functions included.
//   - C and C++: functions and prototypes, methods (declared or defined in a
//     class), structs, unions, enums, classes, typedefs, using aliases,
//     namespaces ("(anonymous)" for an unnamed one), file-level variables,
//     and macros with a value (include guards are not listed).
//   - Go: functions, methods (Path "Type.method"), types (Struct, Interface,
//     or Type), one Const or Var per declared name.
//   - JavaScript and TypeScript: classes, functions (including arrow and
//     function expressions assigned to a variable), methods (including class
//     fields holding a function), interfaces, type aliases, enums,
//     namespaces and ambient modules.
//   - Rust: functions (Method inside impl and trait), structs, enums,
//     unions, traits, impls (named "Type" or "Trait for Type"), modules,
//     type aliases, consts, statics (Var) and macro_rules.
//   - Java: classes, interfaces (annotation types included), enums,
//     records, methods and constructors.
//
// [Outline] prints one line per symbol, two spaces of indent per depth:
//
//	[Class] Client (Lines 33-69)
//	  Talks to the server.
//	  [Method] send (Lines 54-63)
//
// A top-level symbol is shown by its path (so a Go method reads
// "Client.Send"), a nested one by its name. For Python, the first line of a
// docstring follows its symbol, indented one level deeper.
//
// # Mask
//
// [Mask] takes symbol paths mapped to "def" (the node's text), "sig" (the
// same with the body elided: a Python function or class keeps decorators,
// header and docstring followed by "..."; a brace-language declaration gets
// "{ ... }" for its body; a declaration without a body is its definition)
// or "hide". Each piece starts with the indentation of its first line.
//
// # Limits
//
// Every view stays linear in the size of its source, whatever its nesting
// (otherwise an outline grows with the square of the depth: each line is
// indented by its depth, each path repeats its parents'). Symbols nested
// deeper than [MaxDepth] (64) levels are not listed, and their scopes are
// not walked; the names and paths of the symbols listed stay within a
// budget of 1 MiB plus 16 bytes per source byte; a skeleton, outline or mask
// is at most [MaxOutputBytes] (64 KiB plus 4 bytes per source byte) and is
// cut at the last whole line within it. A view that a limit cut ends with
// the line "… (view cut: REASON)" and is returned with a [*TruncatedError]
// (errors.Is(err, [ErrTruncated])); [Symbols] returns the symbols it listed
// with the same error. Ordinary code is far from every limit.
//
// # Summaries
//
// [Summary] picks a format by extension. The first line is always
// "**Kind** — N lines" (N counts lines as Python's splitlines does). Lines
// with nothing to list are omitted; a list holds at most 40 names, then
// "… (+N more)".
//
//   - Python: "imports: a, b" (sorted unique top-level modules, relative
//     imports as ".mod"), "constants: X, Y" (module-level UPPER_CASE
//     assignments), one "class C: m1, m2" per top-level class,
//     "functions: f, g" (top-level functions).
//   - TOML: "tables: [a], [b.c], [[arr]]" (headers in source order, keys
//     re-quoted when not bare) and "top-level keys: k, \"quoted key\",
//     site.\"dotted.part\"" (keys before the first table); invalid input adds
//     "invalid TOML: line N: message".
//   - Markdown: "headings:" then one "- text" per h1-h3 (ATX or setext),
//     indented two spaces per level; headings inside code fences and YAML
//     front matter are ignored, and no line starts with "#".
//   - Go, C, C++, JavaScript, TypeScript, TSX, Rust, Java, from the parse
//     tree: "package: p" (Go, Java), "imports: ..." (sorted; Go import paths,
//     JavaScript/TypeScript module specifiers of import, export-from,
//     require() and import()) or "includes: ..." (C, C++), then
//     "namespaces:", "types:", "functions:", "methods:", "constants:",
//     "variables:", "macros:" with symbol paths in source order.
//   - Any other file: "**EXT** — N lines" (TEXT without an extension) and
//     the first 8 non-blank lines, each cut at 200 bytes, in a fence longer
//     than any backtick run inside (the same fence as every ctx view).
package codeview
