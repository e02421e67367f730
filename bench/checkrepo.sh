#!/bin/sh
# checkrepo.sh: run ctx on any checkout, as a new user would, and print the
# checks ctx holds itself to on real repositories (a pass or FAIL per line,
# with the figure). It never writes into the checkout: it works on a copy.
#
#   bench/checkrepo.sh DIR [CTX]     # CTX: the ctx binary (default: ctx on PATH)
#
# It exits 1 when a check fails. The checks:
#   - ctx audit --check passes with no ctx.toml (a healthy repository);
#   - ctx init, then ctx audit --check, passes (init never writes a config its
#     own check fails on), and ctx.toml sets at most one of agent and profile;
#   - in a subdirectory, ctx audit finds the root's ctx.toml;
#   - ctx verify of a --relative manifest passes when ~/.config/agents/GLOBAL.md
#     appears (a teammate's own file is not drift);
#   - ctx aggregate --max-tokens N emits at most N tokens, for N = 1000 and 8000;
#   - the audit tables fit 80 and 100 columns, without a profile, with each and with all;
#   - ctx aggregate leaves a .gitignore in its output directory;
#   - ctx aggregate missing-file exits 2 and writes nothing;
#   - ctx audit --format github and sarif name paths relative to the repository;
#   - ctx discover --profile claude lists every CLAUDE.md below the root,
#     conditional, and --profile codex every AGENTS.md below it;
#   - ctx diff sees a line added to the instruction file the agent loads
#     (Codex's AGENTS.md, else Claude's CLAUDE.md): its tokens go up;
#   - an audit with every file in [files] lists a finding code in at most 3
#     rows (more are one row with a count) and fits 80 columns;
#   - ctx report on every file writes a page with no script and a folded
#     "What was cut";
#   - ctx discover's tables fit 80 columns and cut no id or path.
# It also prints the credentials a plain pack would hold (warnings, not a fail).
set -u

src=${1:?usage: checkrepo.sh DIR [CTX]}
ctx=${2:-ctx}
command -v "$ctx" >/dev/null 2>&1 || { echo "checkrepo: no ctx binary: $ctx" >&2; exit 2; }
ctx=$(command -v "$ctx")

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
repo=$work/repo
home=$work/home
mkdir -p "$home"
# a copy: a shallow clone of the committed tree, else the directory as it is
if git -C "$src" rev-parse --verify -q HEAD >/dev/null 2>&1; then
	git clone -q --depth 1 "file://$(cd "$src" && pwd)" "$repo" 2>/dev/null || { rm -rf "$repo"; cp -R "$src" "$repo"; }
else
	cp -R "$src" "$repo"
fi
[ -d "$repo/.git" ] || mkdir -p "$repo/.git"
rm -f "$repo/ctx.toml"
cd "$repo" || exit 2
export HOME="$home" XDG_CONFIG_HOME="$home/.config" XDG_CACHE_HOME="$work/cache" AGENTS_GLOBAL_MD=

failed=0
pass() { printf 'pass  %s\n' "$*"; }
fail() { printf 'FAIL  %s\n' "$*"; failed=1; }
# widest prints the widest line of a file, in characters
widest() { python3 -c 'import sys; print(max((len(l.rstrip("\n")) for l in open(sys.argv[1], encoding="utf-8")), default=0))' "$1"; }

echo "$("$ctx" version 2>/dev/null | head -1) on $(basename "$(cd "$src" && pwd)") ($(find . -path ./.git -prune -o -type f -print | wc -l | tr -d ' ') files)"

if "$ctx" audit --check >"$work/a.txt" 2>&1; then pass "audit --check, no ctx.toml"
else fail "audit --check, no ctx.toml: $(grep -E 'error|warning' "$work/a.txt" | head -3 | tr '\n' ' ')"; fi

"$ctx" init >/dev/null 2>&1
if "$ctx" audit --check >"$work/a.txt" 2>&1; then pass "init, then audit --check"
else fail "init, then audit --check: $(grep -E 'error|warning' "$work/a.txt" | head -3 | tr '\n' ' ')"; fi
if grep -q '^agent *=' ctx.toml && grep -q '^profile *=' ctx.toml; then fail "ctx init wrote both agent and profile"
else pass "ctx init wrote at most one of agent and profile"; fi

# the first directory with files, in path order
sub=$(python3 -c '
import os
for d, dirs, files in os.walk("."):
    dirs[:] = sorted(x for x in dirs if not x.startswith("."))
    if d != "." and files:
        print(d[2:]); break')
# the configuration in effect: the agent and the limits (ctx init wrote
# them), the same below the root as at it
conf() { python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["agent"], d["thresholds"])' 2>/dev/null; }
if [ -n "$sub" ]; then
	root=$("$ctx" audit --format json 2>/dev/null | conf)
	below=$(cd "$sub" && "$ctx" audit --format json 2>/dev/null | conf)
	if [ -n "$root" ] && [ "$below" = "$root" ]; then pass "audit in $sub finds the root's ctx.toml ($below)"
	else fail "audit in $sub: '$below', at the root '$root'"; fi
fi

"$ctx" manifest --relative -o "$work/m.json" 2>/dev/null
mkdir -p "$home/.config/agents" && echo "# a teammate's own rules" >"$home/.config/agents/GLOBAL.md"
if "$ctx" verify "$work/m.json" >/dev/null 2>&1; then pass "verify with a teammate's GLOBAL.md"
else fail "verify fails when GLOBAL.md appears"; fi
rm -rf "$home/.config/agents"

for n in 1000 8000; do
	if ! "$ctx" aggregate --stdout --quiet --no-scan --max-tokens "$n" >"$work/pack.md" 2>"$work/e.txt"; then
		fail "aggregate --max-tokens $n failed: $(head -1 "$work/e.txt")"
		continue
	fi
	# ctx's default estimator: ceiling(characters / 4)
	got=$(python3 -c 'import sys,math; print(math.ceil(len(open(sys.argv[1],encoding="utf-8",errors="replace").read())/4))' "$work/pack.md")
	if [ "$got" -le "$n" ]; then pass "aggregate --max-tokens $n: $got tokens"
	else fail "aggregate --max-tokens $n: $got tokens"; fi
done

profiles="generic claude codex gemini copilot cursor"
for cols in 80 100; do
	worst=0; where=
	for p in $profiles; do
		if [ "$p" = generic ]; then COLUMNS=$cols "$ctx" audit >"$work/t.txt" 2>/dev/null
		else COLUMNS=$cols "$ctx" audit --profile "$p" >"$work/t.txt" 2>/dev/null; fi
		w=$(widest "$work/t.txt"); l=$(wc -l <"$work/t.txt" | tr -d ' ')
		[ "$w" -gt "$worst" ] && worst=$w && where="$p ($l lines)"
	done
	COLUMNS=$cols "$ctx" audit --profile all >"$work/t.txt" 2>/dev/null
	w=$(widest "$work/t.txt"); [ "$w" -gt "$worst" ] && worst=$w && where="all"
	if [ "$worst" -le "$cols" ]; then pass "audit tables fit $cols columns (widest $worst: $where; profiles: $profiles)"
	else fail "audit tables at $cols columns: $worst wide ($where)"; fi
done

out=$("$ctx" aggregate --quiet --no-scan 2>/dev/null)
if [ -n "$out" ] && [ -f "$(dirname "$out")/.gitignore" ]; then pass "aggregate output directory ignores itself ($(dirname "$out")/.gitignore)"
else fail "no .gitignore beside ${out:-the output}"; fi
before=$(find . -path ./.git -prune -o -type f -print | wc -l)
"$ctx" aggregate no-such-file.py >/dev/null 2>"$work/e.txt"; rc=$?
after=$(find . -path ./.git -prune -o -type f -print | wc -l)
if [ "$rc" -eq 2 ] && [ "$before" -eq "$after" ]; then pass "aggregate no-such-file.py exits 2, writes nothing"
else fail "aggregate no-such-file.py: exit $rc, $((after - before)) files written"; fi

"$ctx" audit --format github >"$work/g.txt" 2>/dev/null
"$ctx" audit --format sarif >"$work/s.json" 2>/dev/null
if grep -q "file=/" "$work/g.txt" || grep -q "\"uri\": \"/" "$work/s.json"; then fail "github or sarif name an absolute path"
else pass "github and sarif paths are relative ($(grep -c '^::' "$work/g.txt") annotations)"; fi

# nested instruction files, which the agents load when they work there
nested() { find . -path ./.git -prune -o -path ./.claude -prune -o -path '*/node_modules' -prune -o -name "$1" -type f -print | sed 's|^\./||' | grep / | sort; }
for pair in claude:CLAUDE.md codex:AGENTS.md; do
	p=${pair%%:*} name=${pair#*:}
	files=$(nested "$name")
	[ -n "$files" ] || continue
	COLUMNS=1000 "$ctx" discover --profile "$p" >"$work/d.txt" 2>/dev/null
	missing=0 total=0
	for f in $files; do
		total=$((total + 1))
		grep -qF "| native:$f " "$work/d.txt" || { missing=$((missing + 1)); [ $missing -le 3 ] && echo "        not listed: $f"; }
	done
	cond=$(COLUMNS=1000 "$ctx" audit --profile "$p" 2>/dev/null | grep -c 'conditional')
	if [ $missing -eq 0 ]; then pass "discover --profile $p lists the nested $name files ($total) ($cond conditional rows in the audit)"
	else fail "discover --profile $p leaves out $missing of $total nested $name files"; fi
done

# discover at 80 columns: every id and path whole, the table within
for p in generic claude codex; do
	if [ "$p" = generic ]; then COLUMNS=80 "$ctx" discover >"$work/d80.txt" 2>/dev/null
	else COLUMNS=80 "$ctx" discover --profile "$p" >"$work/d80.txt" 2>/dev/null; fi
	w=$(widest "$work/d80.txt")
	if [ "$w" -le 80 ] && ! grep -q '…' "$work/d80.txt"; then pass "discover --profile $p at 80 columns: widest $w, nothing cut"
	else fail "discover --profile $p at 80 columns: widest $w$(grep -q '…' "$work/d80.txt" && echo ', a cell cut')"; fi
done

# ctx diff: a line added to the file the agent loads by itself
for pair in codex:AGENTS.md claude:CLAUDE.md; do
	p=${pair%%:*} name=${pair#*:}
	[ -f "$name" ] || continue
	"$ctx" manifest --relative --profile "$p" -o "$work/before.json" 2>/dev/null
	cp "$name" "$work/orig"
	printf '\n- one more rule for the checks of ctx, to be seen by ctx diff\n' >>"$name"
	"$ctx" manifest --relative --profile "$p" -o "$work/after.json" 2>/dev/null
	cp "$work/orig" "$name"
	COLUMNS=100 "$ctx" diff "$work/before.json" "$work/after.json" >"$work/diff.txt" 2>&1
	gets=$(grep -E '^(the agent gets|emitted tokens):' "$work/diff.txt" | head -1)
	if grep -qE '^the agent gets: .*\(\+[0-9]' "$work/diff.txt"; then pass "diff sees $name grow for $p: $gets"
	else fail "diff of $name for $p: ${gets:-no summary}"; fi
	break
done

# every file in [files]: the findings are grouped, the table fits, the
# report folds
printf '[files]\npaths = ["**/*"]\nmax_tokens = 20000\n' >"$work/files.toml"
COLUMNS=80 "$ctx" audit --config "$work/files.toml" >"$work/f.txt" 2>/dev/null
findings=$(sed -n '/^Findings/,/^Total/p' "$work/f.txt")
dup=$(printf '%s\n' "$findings" | awk -F'|' 'NF > 4 && $3 !~ /^ *$/ { gsub(/ /, "", $3); n[$3]++ } END { for (c in n) if (n[c] > 3 && c != "code") print c }' | head -3 | tr '\n' ' ')
w=$(widest "$work/f.txt"); l=$(wc -l <"$work/f.txt" | tr -d ' ')
if [ -z "$dup" ] && [ "$w" -le 80 ]; then pass "audit with every file in [files]: findings grouped by code, $l lines, widest $w"
else fail "audit with every file in [files]: codes on more than 3 rows: ${dup:-none}; widest $w"; fi
if "$ctx" report --config "$work/files.toml" -o "$work/report.html" >/dev/null 2>&1; then
	size=$(wc -c <"$work/report.html" | tr -d ' ')
	if grep -q '<script' "$work/report.html"; then fail "report holds a script"
	else pass "report on every file: $size bytes, no script$(grep -q 'more cut</summary>' "$work/report.html" && echo ', what was cut folded')"; fi
else fail "report on every file failed"; fi

"$ctx" aggregate --stdout --quiet >/dev/null 2>"$work/w.txt"
# every one, from the JSON (stderr names the first ten)
n=$("$ctx" aggregate --format json --quiet 2>/dev/null | python3 -c 'import json,sys; d=json.load(sys.stdin); print(sum(len(i.get("secrets") or []) for i in d["items"]) + len(d.get("section_secrets") or []))' 2>/dev/null)
printf 'info  a plain pack of the repository holds %s credential(s) by ctx'"'"'s rules\n' "$n"
grep 'a credential is in the pack\|more credentials' "$work/w.txt" | head -5 | sed 's/^/        /'

exit $failed
