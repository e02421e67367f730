#!/usr/bin/env bash
# bench/compare.sh: time ctx and repomix side by side on this machine.
#
# Installs repomix with npm into a temporary directory, builds ctx from this
# checkout (or takes CTX=/path/to/ctx), and runs each command RUNS times,
# printing the medians of wall time, CPU time (user + system) and peak
# memory (maximum resident set size), as GNU time measures them, with the
# ratios. Every corpus is made in a temporary directory that is removed at
# the end, also when the script is interrupted. See BENCHMARKS.md.
#
#   bench/compare.sh                  # every row
#   RUNS=3 ONLY=two,sources bench/compare.sh
#
# Environment:
#   RUNS=5              runs of each command (medians are printed)
#   SLOW_RUNS=1         runs of the slow rows (Go's tree with --max-tokens)
#   ONLY=a,b            only these rows: two, python-full, python-skeleton,
#                       go-full, go-max-tokens, sources-100, sources-1000,
#                       sources-10000; python, go and sources name groups
#   CTX=path            the ctx binary to time (default: built from here)
#   REPOMIX=path        a repomix to use instead of installing one
#   REPOMIX_VERSION     the version npm installs (default 1.18.1)
#   REPOMIX_GO=1        also time repomix on Go's source tree (slow)
#   PYTHON_STDLIB=dir   the Python standard library (default: python3's)
#   GO_SRC=dir          Go's source tree (default: $(go env GOROOT)/src)
set -euo pipefail

RUNS=${RUNS:-5}
SLOW_RUNS=${SLOW_RUNS:-1}
ONLY=${ONLY:-}
REPOMIX_VERSION=${REPOMIX_VERSION:-1.18.1}
REPOMIX_GO=${REPOMIX_GO:-0}

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/ctx-bench.XXXXXX")
cleanup() { rm -rf "$work"; }
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

die() { echo "compare.sh: $*" >&2; exit 2; }
note() { echo "compare.sh: $*" >&2; }

[[ -x /usr/bin/time ]] && /usr/bin/time -f '%e' true 2>/dev/null || die "needs GNU time at /usr/bin/time (apt-get install time)"

# wanted NAME: whether ONLY selects NAME (a row, or a group of rows such as
# "python" when ONLY names one of its rows).
wanted() {
	[[ -z $ONLY ]] && return 0
	local p ps
	IFS=, read -ra ps <<<"$ONLY"
	for p in "${ps[@]}"; do
		[[ $1 == "$p" || $1 == "$p"-* || $p == "$1"-* ]] && return 0
	done
	return 1
}

# --- the tools ---------------------------------------------------------------

if [[ -z ${CTX:-} ]]; then
	note "building ctx"
	(cd "$here" && go build -o "$work/ctx" ./cmd/ctx)
	CTX=$work/ctx
fi
[[ -x $CTX ]] || die "no ctx binary at $CTX"

if [[ -z ${REPOMIX:-} ]]; then
	command -v npm >/dev/null || die "needs npm (Node.js) to install repomix, or REPOMIX=path"
	note "installing repomix $REPOMIX_VERSION with npm"
	npm install --prefix "$work/npm" --no-audit --no-fund --loglevel=error "repomix@$REPOMIX_VERSION" >&2
	REPOMIX=$work/npm/node_modules/.bin/repomix
fi
[[ -x $REPOMIX ]] || die "no repomix at $REPOMIX"

# ctx's cache of derived views: used when this ctx has the flags.
cache=0
if "$CTX" aggregate --help 2>&1 | grep -q -- '--cache-dir'; then
	cache=1
fi

# --- measuring ---------------------------------------------------------------

# run [--pre SHELL] DIR N CMD...: runs CMD in DIR N times, after one
# untimed run that warms the page cache, its output discarded, and prints
# the medians "wall cpu peak_kb" (seconds, seconds, KiB). --pre runs SHELL
# (untimed) before each run. Exit status 1 (a check that failed) counts as
# a run; any other failure stops the script.
run() {
	local pre=
	if [[ $1 == --pre ]]; then
		pre=$2
		shift 2
	fi
	local dir=$1 n=$2
	shift 2
	local t=$work/time.txt i st
	: >"$t"
	for ((i = 0; i <= n; i++)); do
		[[ -n $pre ]] && eval "$pre"
		st=0
		(cd "$dir" && exec /usr/bin/time -f '%e %U %S %M' -o "$work/one.txt" "$@" >/dev/null 2>"$work/run.err") || st=$?
		if ((st > 1)); then
			cat "$work/run.err" >&2
			die "exit status $st: $*"
		fi
		((i == 0)) || grep -v '^Command' "$work/one.txt" >>"$t"
	done
	awk '{ w[NR] = $1; c[NR] = $2 + $3; m[NR] = $4 }
		function median(a, n,   i, j, x) {
			for (i = 2; i <= n; i++) { x = a[i]; for (j = i - 1; j > 0 && a[j] > x; j--) a[j + 1] = a[j]; a[j + 1] = x }
			return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
		}
		END { printf "%.3f %.3f %d\n", median(w, NR), median(c, NR), median(m, NR) }' "$t"
}

rows=()
# row NAME CTX_FIGURES REPOMIX_FIGURES FLOOR_FIGURES NOTE
row() { rows+=("$1"$'\x1f'"$2"$'\x1f'"$3"$'\x1f'"$4"$'\x1f'"$5"); }

fmt_time() { awk -v s="$1" 'BEGIN { if (s < 1) printf "%.0f ms", s * 1000; else printf "%.2f s", s }'; }
fmt_mem() { awk -v k="$1" 'BEGIN { printf "%.0f MiB", k / 1024 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a <= 0 || b <= 0) print "-"; else if (a / b >= 10) printf "%.0f×", a / b; else printf "%.1f×", a / b }'; }

# --- corpora -----------------------------------------------------------------

# a two-file project: an instruction file and a source file
two=$work/two
mkdir -p "$two"
printf '# Rules\n\nRun the tests before committing; keep functions small.\n' >"$two/AGENTS.md"
printf 'def main():\n    print("hello")\n\n\nif __name__ == "__main__":\n    main()\n' >"$two/main.py"

# the Python standard library's .py files (site-packages and __pycache__ left
# out), copied: pyenv's install sits in a git repository that ignores it
py=$work/python
python_stdlib() {
	local src=${PYTHON_STDLIB:-}
	if [[ -z $src ]]; then
		command -v python3 >/dev/null || return 1
		src=$(python3 -c 'import sysconfig; print(sysconfig.get_paths()["stdlib"])')
	fi
	[[ -d $src ]] || return 1
	mkdir -p "$py"
	(cd "$src" && find . \( -name __pycache__ -o -name site-packages \) -prune -o -type f -name '*.py' -print0 |
		tar --null -T - -cf -) | tar -C "$py" -xf -
}

# Go's source tree, copied only when it lies in a git work tree (whose
# ignore rules would change what is packed)
gosrc=
go_tree() {
	local src=${GO_SRC:-}
	if [[ -z $src ]]; then
		command -v go >/dev/null || return 1
		src=$(go env GOROOT)/src
	fi
	[[ -d $src ]] || return 1
	if git -C "$src" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
		gosrc=$work/gosrc
		mkdir -p "$gosrc"
		cp -R "$src/." "$gosrc/"
	else
		gosrc=$src
	fi
}

# N instruction sources in ctx.toml: half files, half inline texts
sources() {
	local n=$1 d=$work/sources-$1 i
	mkdir -p "$d/src"
	{
		echo 'shared_path = false'
		echo 'discover = false'
		for ((i = 1; i <= n; i++)); do
			if ((i % 2)); then
				printf '# Source %d\n\nRun the tests before committing.\n' "$i" >"$d/src/s$i.md"
				printf '[[sources]]\nid = "s%d"\nkind = "memory"\npath = "src/s%d.md"\n\n' "$i" "$i"
			else
				printf '[[sources]]\nid = "s%d"\nkind = "runtime"\ntext = "inline rule %d"\n\n' "$i" "$i"
			fi
		done
	} >"$d/ctx.toml"
	echo "$d"
}

# floor DIR: the figures of reading every file (find | xargs cat);
# b3floor DIR: of hashing every file with b3sum, when it is installed.
floor() { run "$1" "$RUNS" sh -c 'find . -type f -print0 | xargs -0 cat >/dev/null'; }
b3floor() {
	if command -v b3sum >/dev/null; then
		local b
		b=$(run "$1" "$RUNS" sh -c 'find . -type f -print0 | xargs -0 b3sum >/dev/null')
		echo "b3sum of every file $(fmt_time "${b%% *}")"
	else
		echo "b3sum not installed"
	fi
}

# --- the rows ----------------------------------------------------------------

q=(--quiet)

if wanted two; then
	note "two-file project"
	c=$(run "$two" "$RUNS" "$CTX" audit --no-shared)
	r=$(run "$two" "$RUNS" "$REPOMIX" --stdout)
	row "two-file project: \`ctx audit\` vs \`repomix --stdout\`" "$c" "$r" "" ""
fi

have_py=0
if wanted python; then
	if python_stdlib; then
		have_py=1
		files=$(find "$py" -type f | wc -l | tr -d ' ')
		size=$(du -sm "$py" | cut -f1)
		pynote="$files files, $size MB"
	else
		note "no Python standard library found: the python rows are skipped (PYTHON_STDLIB=dir)"
	fi
fi

if ((have_py)) && wanted python-full; then
	note "Python standard library, full"
	c=$(run "$py" "$RUNS" "$CTX" aggregate --stdout "${q[@]}")
	r=$(run "$py" "$RUNS" "$REPOMIX" --stdout)
	f=$(floor "$py")
	row "Python stdlib, full: \`ctx aggregate --stdout\` vs \`repomix --stdout\`" "$c" "$r" "$f" "$pynote; $(b3floor "$py")"
fi

if ((have_py)) && wanted python-skeleton; then
	note "Python standard library, skeleton"
	r=$(run "$py" "$RUNS" "$REPOMIX" --stdout --compress)
	if ((cache)); then
		# cold: an empty cache for every run; warm: the cache of an earlier run
		c=$(run --pre 'rm -rf "$work/cache"' "$py" "$RUNS" "$CTX" aggregate --stdout "${q[@]}" --view skeleton --cache-dir "$work/cache" '**/*')
		row "Python stdlib, skeleton, cold cache: \`ctx aggregate --view skeleton\` vs \`repomix --compress\`" "$c" "$r" "" "$pynote"
		"$CTX" aggregate -C "$py" --stdout "${q[@]}" --view skeleton --cache-dir "$work/cache" '**/*' >/dev/null
		c=$(run "$py" "$RUNS" "$CTX" aggregate --stdout "${q[@]}" --view skeleton --cache-dir "$work/cache" '**/*')
		row "Python stdlib, skeleton, warm cache: \`ctx aggregate --view skeleton\` vs \`repomix --compress\`" "$c" "$r" "" "repomix has no cache: its figures are the cold ones"
	else
		c=$(run "$py" "$RUNS" "$CTX" aggregate --stdout "${q[@]}" --view skeleton '**/*')
		row "Python stdlib, skeleton: \`ctx aggregate --view skeleton\` vs \`repomix --compress\`" "$c" "$r" "" "$pynote; this ctx has no --cache-dir: no warm row"
	fi
fi

have_go=0
if wanted go; then
	if go_tree; then
		have_go=1
		files=$(find "$gosrc" -type f | wc -l | tr -d ' ')
		size=$(du -sm "$gosrc" | cut -f1)
		gonote="$files files, $size MB"
	else
		note "no Go source tree found: the go rows are skipped (GO_SRC=dir)"
	fi
fi

if ((have_go)) && wanted go-full; then
	note "Go's source tree, full"
	c=$(run "$gosrc" "$RUNS" "$CTX" aggregate --stdout "${q[@]}")
	r="- - -"
	if ((REPOMIX_GO)); then
		r=$(run "$gosrc" "$RUNS" "$REPOMIX" --stdout)
	fi
	f=$(floor "$gosrc")
	out=$("$CTX" aggregate -C "$gosrc" --stdout "${q[@]}" 2>/dev/null | wc -c)
	row "Go src, full: \`ctx aggregate --stdout\` vs \`repomix --stdout\`" "$c" "$r" "$f" "$gonote; output $((out / 1048576)) MiB$( ((REPOMIX_GO)) || echo "; repomix not run (REPOMIX_GO=1)")"
fi

if ((have_go)) && wanted go-max-tokens; then
	note "Go's source tree, --max-tokens 1000"
	# cold: without the cache the untimed run would fill; the target is
	# the skeleton of every file computed once, measured the same way
	nc=()
	if ((cache)); then
		nc=(--no-cache)
	fi
	c=$(run "$gosrc" "$SLOW_RUNS" "$CTX" aggregate --stdout "${q[@]}" "${nc[@]}" --max-tokens 1000 '**/*.go')
	row "Go src, \`ctx aggregate --stdout --max-tokens 1000 '**/*.go'\`$( ((cache)) && echo ", no cache")" "$c" "- - -" "" "$SLOW_RUNS run(s)"
	c=$(run "$gosrc" "$SLOW_RUNS" "$CTX" aggregate --stdout "${q[@]}" "${nc[@]}" --view skeleton '**/*.go')
	row "Go src, the skeleton of every file once: \`ctx aggregate --stdout --view skeleton '**/*.go'\`$( ((cache)) && echo ", no cache")" "$c" "- - -" "" "$SLOW_RUNS run(s); the reference of the --max-tokens target"
fi

if wanted sources; then
	for n in 100 1000 10000; do
		wanted "sources-$n" || continue
		note "$n instruction sources"
		d=$(sources "$n")
		c=$(run "$d" "$RUNS" "$CTX" audit)
		row "$n instruction sources in ctx.toml: \`ctx audit\`" "$c" "- - -" "" ""
	done
fi

# --- the report --------------------------------------------------------------

mem=$(awk '/MemTotal/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo 2>/dev/null || echo "?")
echo "machine: $(uname -sm), $(nproc) cores, $mem, load average $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo ?)"
echo "tools: $("$CTX" version), repomix $("$REPOMIX" --version), $(go version 2>/dev/null | cut -d' ' -f3), node $(node --version 2>/dev/null)"
echo "medians of $RUNS runs (slow rows: $SLOW_RUNS) after one untimed run; CPU is user + system; peak is the maximum resident set size"
echo
printf '| %s | %s | %s | %s | %s | %s | %s |\n' "work" "ctx wall / CPU / peak" "repomix wall / CPU / peak" "repomix ÷ ctx (wall, CPU, peak)" "floor: find \\| xargs cat" "ctx ÷ floor (wall)" "note"
printf '|---|---|---|---|---|---|---|\n'
for x in "${rows[@]}"; do
	IFS=$'\x1f' read -r name c r f note <<<"$x"
	read -r cw cc cm <<<"$c"
	read -r rw rc rm_ <<<"$r"
	cs="$(fmt_time "$cw") / $(fmt_time "$cc") / $(fmt_mem "$cm")"
	rs="-" rt="-" fs="-" ft="-"
	if [[ $rw != - ]]; then
		rs="$(fmt_time "$rw") / $(fmt_time "$rc") / $(fmt_mem "$rm_")"
		rt="$(ratio "$rw" "$cw"), $(ratio "$rc" "$cc"), $(ratio "$rm_" "$cm")"
	fi
	if [[ -n $f ]]; then
		read -r fw _ _ <<<"$f"
		fs=$(fmt_time "$fw")
		ft=$(ratio "$cw" "$fw")
	fi
	printf '| %s | %s | %s | %s | %s | %s | %s |\n' "$name" "$cs" "$rs" "$rt" "$fs" "$ft" "${note:--}"
done
if ((!cache)); then
	echo
	echo "ctx aggregate has no --cache-dir here: the warm-cache row is left out."
fi
