#!/usr/bin/env bash
# Benchmark: code ingestion. On copies of Go's own source tree it times
#   1. snapshot only:   ctx add file . --force   vs  git add -A (fresh git init)
#   2. with semantics:  ctx add code             vs  ctags -R (universal-ctags)
#   3. no change:       a second ctx add code    vs  the first
# and prints the ratios measured in this run. See docs/benchmarks.md.
#
# Usage: bench/ingest/run.sh [--quick] [-n N]
#
#   --quick              smoke mode: only the BENCH_QUICK_DIR subtree (net)
#   -n N                 timed runs per operation (default 3; or BENCH_N)
#
# Environment:
#   BENCH_N=3            timed runs per operation
#   BENCH_SRC=DIR        tree to ingest (default: $(go env GOROOT)/src)
#   BENCH_QUICK=1        same as --quick
#   BENCH_QUICK_DIR=net  subtree of BENCH_SRC used by --quick
#   BENCH_MAX_FILE_BYTES=67108864
#                        config.toml max_file_bytes of the ctx stores: large
#                        enough that ctx stores the files git stores (the
#                        default, 1 MiB, would skip 16 MB of GOROOT/src);
#                        "default" keeps ctx's default
#   BENCH_GIT_DURABLE=1  also time git add -A with durable loose objects
#                        (core.fsync=loose-object,index, core.fsyncMethod=batch);
#                        informational, not part of the ratios
#   BENCH_ENFORCE=1      exit 3 if a target is missed (default: report only)
#   CTX_BIN=PATH         use this ctx binary (with ctx-core beside it) instead of building ./cmd/ctx and ./cmd/ctx-core
#   CTAGS=PATH           use this universal-ctags binary
#   TMPDIR               where the copies go (one file system)
#
# Every timed write gets its own fresh copy of the tree, all made before the
# first timed run: creating files right after deleting ~10k others is
# several times slower on these machines (ext4 skips recently freed inodes).
# For the same reason leave ~5 minutes between two runs of this script: its
# cleanup deletes about (3N+1) x 11.5k files. The machines are noisy and
# have 2 cores: compare the CPU times (user+sys) as well as the wall-clock
# ratios, and check the load average the report prints.
#
# Needs bash >= 5 (EPOCHREALTIME), coreutils, find, git, go and
# universal-ctags (installed with apt-get when missing, through sudo when
# not root). Exit status: 0 ok, 1 a tool failed or a check failed, 3 a
# target was missed with BENCH_ENFORCE=1.
set -euo pipefail
export LC_ALL=C
TIMEFORMAT='%3U %3S'
# shellcheck source=../lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

usage() { sed -n '2,13p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; }

QUICK=${BENCH_QUICK:-0}
N=${BENCH_N:-3}
while (($#)); do
	case $1 in
	--quick) QUICK=1 ;;
	-n) shift; N=${1:-} ;;
	-n*) N=${1#-n} ;;
	--n=*) N=${1#--n=} ;;
	-h | --help) usage; exit 0 ;;
	*) usage >&2; die "unknown argument $1" ;;
	esac
	shift
done

[[ ${BASH_VERSINFO[0]} -ge 5 ]] || die "needs bash >= 5 (EPOCHREALTIME)"
command -v git >/dev/null || die "git not found"
command -v go >/dev/null || die "go not found"
[[ $N =~ ^[1-9][0-9]*$ ]] || die "N must be a positive integer"
SRC=${BENCH_SRC:-$(go env GOROOT)/src}
if [[ $QUICK == 1 ]]; then SRC=$SRC/${BENCH_QUICK_DIR:-net}; fi
[[ -d $SRC ]] || die "source tree $SRC is not a directory"
MAX_FILE_BYTES=${BENCH_MAX_FILE_BYTES:-67108864}
[[ $MAX_FILE_BYTES == default || $MAX_FILE_BYTES =~ ^[1-9][0-9]*$ ]] || die "BENCH_MAX_FILE_BYTES must be a number or \"default\""
GIT_DURABLE=${BENCH_GIT_DURABLE:-0}

REPO_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)


# ---- universal-ctags ---------------------------------------------------------
is_uctags() { "$1" --version 2>/dev/null | head -n 1 | grep -q 'Universal Ctags'; }
find_ctags() {
	local c
	for c in ${CTAGS:-} ctags-universal universal-ctags ctags; do
		if command -v "$c" >/dev/null && is_uctags "$(command -v "$c")"; then
			command -v "$c"
			return 0
		fi
	done
	return 1
}
if ! CTAGS_BIN=$(find_ctags); then
	[[ -z ${CTAGS:-} ]] || die "CTAGS=$CTAGS is not universal-ctags"
	log "universal-ctags not found: installing it with apt-get"
	SUDO=()
	if [[ $(id -u) != 0 ]]; then
		command -v sudo >/dev/null || die "universal-ctags is missing, and installing it needs root or sudo"
		SUDO=(sudo)
	fi
	"${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y universal-ctags >&2 ||
		{ "${SUDO[@]}" apt-get update >&2 && "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y universal-ctags >&2; } ||
		die "apt-get install universal-ctags failed"
	CTAGS_BIN=$(find_ctags) || die "universal-ctags installed, but no ctags binary says it is Universal Ctags"
fi

WORK=$(mktemp -d "${TMPDIR:-/tmp}/ctx-ingest-bench.XXXXXX")
cleanup() {
	# Objects are written read-only; make everything writable, then delete.
	chmod -R u+w "$WORK" 2>/dev/null || true
	rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# Keep git independent of the user's and the system's configuration.
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE GIT_OBJECT_DIRECTORY GIT_ALTERNATE_OBJECT_DIRECTORIES CTX_DIR CTX_CPUPROFILE || true

LOAD_START=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo "?")

# ---- ctx binary --------------------------------------------------------------
if [[ -n ${CTX_BIN:-} ]]; then
	CTX=$CTX_BIN
else
	log "building ctx from $REPO_ROOT"
	(cd "$REPO_ROOT" && go build -o "$WORK/" ./cmd/ctx ./cmd/ctx-core)
	CTX=$WORK/ctx
fi
[[ -x $CTX ]] || die "ctx binary $CTX is not executable"

# ---- copies --------------------------------------------------------------------
log "copying $SRC to $WORK/src"
mkdir -p "$WORK/src" "$WORK/runs" "$WORK/out"
cp -R "$SRC/." "$WORK/src/"
chmod -R u+w "$WORK/src"
rm -rf "$WORK/src/.git" "$WORK/src/.ctx"
NFILES=$(find "$WORK/src" -type f | wc -l)
BYTES=$(find "$WORK/src" -type f -printf '%s\n' | awk '{s += $1} END {print s + 0}')
[[ $NFILES -gt 0 ]] || die "no files in $SRC"

# One fresh copy per timed write; the copies for `ctx add code` first, so
# that their files are well outside the stat cache's racy window (2 s)
# when the first run records them.
fresh() { # name: copy the tree to runs/name
	mkdir "$WORK/runs/$1"
	cp -R "$WORK/src/." "$WORK/runs/$1/"
}
ctx_store() { # dir: ctx init, with max_file_bytes set
	(cd "$1" && "$CTX" init . >/dev/null) || die "ctx init in $1 failed"
	if [[ $MAX_FILE_BYTES != default ]]; then
		sed -i "s/^max_file_bytes = .*/max_file_bytes = $MAX_FILE_BYTES/" "$1/.ctx/config.toml"
		grep -q "^max_file_bytes = $MAX_FILE_BYTES\$" "$1/.ctx/config.toml" || die "could not set max_file_bytes in $1"
	fi
}
log "making $((3 * N + GIT_DURABLE * N)) fresh copies ($NFILES files, $((BYTES / 1024 / 1024)) MiB each)"
for ((i = 1; i <= N; i++)); do fresh "code-$i"; ctx_store "$WORK/runs/code-$i"; done
for ((i = 1; i <= N; i++)); do fresh "file-$i"; ctx_store "$WORK/runs/file-$i"; done
for ((i = 1; i <= N; i++)); do fresh "git-$i"; git init -q "$WORK/runs/git-$i"; done
if [[ $GIT_DURABLE == 1 ]]; then
	for ((i = 1; i <= N; i++)); do fresh "gitd-$i"; git init -q "$WORK/runs/gitd-$i"; done
fi
# Warm the page cache: every tool reads the sources from memory.
find "$WORK/runs" "$WORK/src" -type f -not -path '*/.git/*' -not -path '*/.ctx/*' -print0 | xargs -0 cat >/dev/null
sleep 3 # out of the racy window, whatever the copying took




FAIL=0

# summary_num OUT SED-REGEX: the number the regex's group matches in the
# first line of ctx's output that it matches.
summary_num() { sed -n "s/$2/\\1/p" "$1" | head -n 1; }

declare -a T_GIT T_GITD T_FILE T_CTAGS T_CODE T_CODE2 C_GIT C_GITD C_FILE C_CTAGS C_CODE C_CODE2
run_git() {
	timed "$WORK/runs/git-$1" "$WORK/out/git-$1" git add -A
	[[ $RC -eq 0 ]] || fail "git add -A run $1 exited $RC: $(head -c 300 "$WORK/out/git-$1.err")"
	T_GIT+=("$ELAPSED") C_GIT+=("$CPU")
	log "  run $1 git add -A        $(secs "$ELAPSED") s (cpu $(msecs "$CPU") s)"
}
run_gitd() {
	timed "$WORK/runs/gitd-$1" "$WORK/out/gitd-$1" git -c core.fsync=loose-object,index -c core.fsyncMethod=batch add -A
	[[ $RC -eq 0 ]] || fail "git (durable) add -A run $1 exited $RC: $(head -c 300 "$WORK/out/gitd-$1.err")"
	T_GITD+=("$ELAPSED") C_GITD+=("$CPU")
	log "  run $1 git add -A, fsync $(secs "$ELAPSED") s (cpu $(msecs "$CPU") s)"
}
run_file() {
	timed "$WORK/runs/file-$1" "$WORK/out/file-$1" "$CTX" add file . --force -q
	[[ $RC -eq 0 ]] || fail "ctx add file run $1 exited $RC: $(head -c 300 "$WORK/out/file-$1.err")"
	T_FILE+=("$ELAPSED") C_FILE+=("$CPU")
	log "  run $1 ctx add file .    $(secs "$ELAPSED") s (cpu $(msecs "$CPU") s)"
}
run_ctags() {
	timed "$WORK/src" "$WORK/out/ctags-$1" "$CTAGS_BIN" -R -f "$WORK/out/tags-$1" .
	[[ $RC -eq 0 ]] || fail "ctags -R run $1 exited $RC: $(head -c 300 "$WORK/out/ctags-$1.err")"
	T_CTAGS+=("$ELAPSED") C_CTAGS+=("$CPU")
	log "  run $1 ctags -R          $(secs "$ELAPSED") s (cpu $(msecs "$CPU") s)"
}
run_code() { # the first and, at once, the second run in the same copy
	timed "$WORK/runs/code-$1" "$WORK/out/code-$1" "$CTX" add code -q
	[[ $RC -eq 0 ]] || fail "ctx add code run $1 exited $RC: $(head -c 300 "$WORK/out/code-$1.err")"
	T_CODE+=("$ELAPSED") C_CODE+=("$CPU")
	log "  run $1 ctx add code      $(secs "$ELAPSED") s (cpu $(msecs "$CPU") s)"
	timed "$WORK/runs/code-$1" "$WORK/out/code2-$1" "$CTX" add code -q
	[[ $RC -eq 0 ]] || fail "second ctx add code run $1 exited $RC: $(head -c 300 "$WORK/out/code2-$1.err")"
	T_CODE2+=("$ELAPSED") C_CODE2+=("$CPU")
	log "  run $1 ctx add code (2nd) $(secs "$ELAPSED") s (cpu $(msecs "$CPU") s)"
}

log "timing: $NFILES files, $BYTES bytes, N=$N (alternating order)"
for ((i = 1; i <= N; i++)); do
	if ((i % 2)); then
		run_git "$i"; run_file "$i"; run_ctags "$i"; run_code "$i"
		if [[ $GIT_DURABLE == 1 ]]; then run_gitd "$i"; fi
	else
		if [[ $GIT_DURABLE == 1 ]]; then run_gitd "$i"; fi
		run_code "$i"; run_ctags "$i"; run_file "$i"; run_git "$i"
	fi
done

# ---- checks (untimed) ------------------------------------------------------------
# git stores every file; ctx every file but those it withholds as secrets
# (and, with BENCH_MAX_FILE_BYTES=default, those over 1 MiB). The summary
# line is "F files: A added, …; S skipped; …".
GIT_FILES=$(git -C "$WORK/runs/git-1" ls-files | wc -l)
[[ $GIT_FILES -eq $NFILES ]] || fail "git add -A staged $GIT_FILES files of $NFILES"
for ((i = 1; i <= N; i++)); do
	for op in file code; do
		o=$WORK/out/$op-$i
		files=$(summary_num "$o" '^\([0-9]*\) files: .*')
		added=$(summary_num "$o" '^[0-9]* files: \([0-9]*\) added.*')
		skipped=$(summary_num "$o" '.*; \([0-9]*\) skipped.*')
		[[ -n $files && $files == "$added" ]] || fail "ctx add $op run $i: unexpected summary: $(head -n 1 "$o")"
		[[ $((files + ${skipped:-0})) -eq $NFILES ]] || fail "ctx add $op run $i stored $files files and skipped ${skipped:-0}, of $NFILES"
		grep -q '^\[main [0-9a-f]*\] ' "$o" || fail "ctx add $op run $i made no commit"
	done
	o=$WORK/out/code2-$i
	grep -q ' files: 0 added, 0 modified, 0 removed; 0 new objects' "$o" || fail "second ctx add code run $i changed something: $(head -n 1 "$o")"
	grep -q '^nothing changed' "$o" || fail "second ctx add code run $i made a commit"
	grep -q '; read [0-9]* (' "$WORK/out/code-$i" || fail "ctx add code run $i read no code"
	[[ -s $WORK/out/tags-$i ]] || fail "ctags run $i wrote no tags"
done
STORED=$(summary_num "$WORK/out/file-1" '^\([0-9]*\) files: .*')
SKIPPED=$(summary_num "$WORK/out/file-1" '.*; \([0-9]*\) skipped.*')
TAGS=$(grep -vc '^!_TAG_' "$WORK/out/tags-1" || true)
log "verifying the stores of run 1"
for op in file code; do
	"$CTX" --dir "$WORK/runs/$op-1" verify >"$WORK/out/verify-$op" 2>&1 || fail "ctx verify of the add $op store exited $?: $(head -c 300 "$WORK/out/verify-$op")"
done

# ---- report ----------------------------------------------------------------------
M_GIT=$(median "${T_GIT[@]}") M_FILE=$(median "${T_FILE[@]}")
M_CTAGS=$(median "${T_CTAGS[@]}") M_CODE=$(median "${T_CODE[@]}") M_CODE2=$(median "${T_CODE2[@]}")
MC_GIT=$(median "${C_GIT[@]}") MC_FILE=$(median "${C_FILE[@]}")
MC_CTAGS=$(median "${C_CTAGS[@]}") MC_CODE=$(median "${C_CODE[@]}") MC_CODE2=$(median "${C_CODE2[@]}")
R1=$(ratio_milli "$M_FILE" "$M_GIT")
R2=$(ratio_milli "$M_CODE" "$M_CTAGS")
R3=$(ratio_milli "$M_CODE2" "$M_CODE")
verdict() {
	if [[ $FAIL != 0 ]]; then echo INVALID; elif (($1 <= $2)); then echo met; else echo MISSED; fi
}
V1=$(verdict "$R1" 1000) V2=$(verdict "$R2" 2500) V3=$(verdict "$R3" 100)
cpu_ratio() { fmt_milli "$(ratio_milli "$1" "$(($2 > 0 ? $2 : 1))")"; }
row() { printf '| %-36s | %9s | %9s | %7s | %11s | %11s | %6s | %-7s |\n' "$@"; }

echo
echo "ctx ingestion vs git add / ctags — $NFILES files ($((BYTES / 1024 / 1024)) MiB) from $SRC$([[ $QUICK == 1 ]] && echo " [quick]")"
echo "machine: $(nproc) cores; $(go version); $(git --version); $("$CTAGS_BIN" --version | head -n 1 | cut -d, -f1); N=$N, medians"
echo "load average (1/5/15 min) at start: $LOAD_START, at end: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo "?")"
echo
row "operation (ctx vs baseline)" "base (s)" "ctx (s)" "ratio" "cpu base(s)" "cpu ctx (s)" "target" "result"
printf '|%s|%s|%s|%s|%s|%s|%s|%s|\n' "--------------------------------------" "-----------" "-----------" "---------" "-------------" "-------------" "--------" "---------"
row "add file . --force vs git add -A" "$(secs "$M_GIT")" "$(secs "$M_FILE")" "$(fmt_milli "$R1")" "$(msecs "$MC_GIT")" "$(msecs "$MC_FILE")" "<= 1.0" "$V1"
row "add code vs ctags -R" "$(secs "$M_CTAGS")" "$(secs "$M_CODE")" "$(fmt_milli "$R2")" "$(msecs "$MC_CTAGS")" "$(msecs "$MC_CODE")" "<= 2.5" "$V2"
row "add code again (no change) vs first" "$(secs "$M_CODE")" "$(secs "$M_CODE2")" "$(fmt_milli "$R3")" "$(msecs "$MC_CODE")" "$(msecs "$MC_CODE2")" "<= 0.1" "$V3"
echo
echo "ratios are of wall-clock medians; CPU (user+sys) ratios: add file/git $(cpu_ratio "$MC_FILE" "$MC_GIT"), add code/ctags $(cpu_ratio "$MC_CODE" "$MC_CTAGS"), second/first $(cpu_ratio "$MC_CODE2" "$MC_CODE")"
echo "all runs, wall-clock [CPU user+sys] (s):"
echo "  git add -A:          $(list_secs "${T_GIT[@]}") [$(list_msecs "${C_GIT[@]}")]"
echo "  ctx add file . :     $(list_secs "${T_FILE[@]}") [$(list_msecs "${C_FILE[@]}")]"
echo "  ctags -R:            $(list_secs "${T_CTAGS[@]}") [$(list_msecs "${C_CTAGS[@]}")]"
echo "  ctx add code:        $(list_secs "${T_CODE[@]}") [$(list_msecs "${C_CODE[@]}")]"
echo "  ctx add code, again: $(list_secs "${T_CODE2[@]}") [$(list_msecs "${C_CODE2[@]}")]"
if [[ $GIT_DURABLE == 1 ]]; then
	M_GITD=$(median "${T_GITD[@]}")
	echo "  git add -A, core.fsync=loose-object,index batch: $(list_secs "${T_GITD[@]}") [$(list_msecs "${C_GITD[@]}")] (median $(secs "$M_GITD"), add file/that $(fmt_milli "$(ratio_milli "$M_FILE" "$M_GITD")"))"
fi
echo "ctx add file said: $(head -n 1 "$WORK/out/file-1")"
echo "ctx add code said: $(head -n 1 "$WORK/out/code-1")"
echo "second add code:   $(head -n 1 "$WORK/out/code2-1")"
echo "ctags -R wrote $TAGS tags; max_file_bytes $MAX_FILE_BYTES"
if [[ $FAIL == 0 ]]; then
	echo "checks ok: git staged $GIT_FILES files; ctx stored $STORED and skipped ${SKIPPED:-0} (withheld secrets, see stderr of a run) in every run; every second run changed nothing; ctx verify exited 0 on both stores of run 1"
else
	echo "checks FAILED: see the FAIL lines on stderr; the timings above are not valid"
fi
echo "ctx verify (add file store): $(head -n 1 "$WORK/out/verify-file")"

if [[ $FAIL != 0 ]]; then exit 1; fi
if [[ ${BENCH_ENFORCE:-0} == 1 && ($V1 != met || $V2 != met || $V3 != met) ]]; then exit 3; fi
exit 0
