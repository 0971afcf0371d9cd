#!/usr/bin/env bash
# Benchmark: ctx hash-object / verify against git hash-object / fsck --full
# on a copy of Go's own source tree. See docs/benchmarks.md.
#
# Usage: bench/hashobject/run.sh
#
# Environment:
#   BENCH_N=5            timed runs per tool (default 5; 3 in quick mode)
#   BENCH_SRC=DIR        tree to hash (default: $(go env GOROOT)/src)
#   BENCH_QUICK=1        smoke mode: only the first BENCH_QUICK_FILES files
#   BENCH_QUICK_FILES=2000
#   BENCH_GIT_DURABLE=1  also time git with durable loose objects
#                        (core.fsync=loose-object, core.fsyncMethod=batch);
#                        informational, not part of the ratios
#   BENCH_ENFORCE=1      exit 3 if a target is missed (default: report only)
#   CTX_BIN=PATH         use this ctx binary (with ctx-core beside it) instead of building ./cmd/ctx and ./cmd/ctx-core
#   TMPDIR               where the temporary trees go (same file system for
#                        the source copy and the stores)
#
# The machines are noisy: results are only comparable when the load average
# (printed in the report) stays below the number of cores. Creating files is
# also several times slower for a few minutes after many files were deleted
# (ext4 skips recently freed inodes; the kernel shows up as recently_deleted
# in perf), so leave ~5 minutes between two runs of this script: its own
# cleanup deletes ~120k files.
#
# Only bash (>= 5 for EPOCHREALTIME), coreutils, find, git and go are used.
# Exit status: 0 ok, 1 a tool failed or the outputs disagree, 3 a target
# was missed with BENCH_ENFORCE=1.
set -euo pipefail
export LC_ALL=C
TIMEFORMAT='%3U %3S'
# shellcheck source=../lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"


[[ ${BASH_VERSINFO[0]} -ge 5 ]] || die "needs bash >= 5 (EPOCHREALTIME)"
command -v git >/dev/null || die "git not found"
command -v go >/dev/null || die "go not found"

QUICK=${BENCH_QUICK:-0}
QUICK_FILES=${BENCH_QUICK_FILES:-2000}
if [[ $QUICK == 1 ]]; then N=${BENCH_N:-3}; else N=${BENCH_N:-5}; fi
[[ $N =~ ^[1-9][0-9]*$ ]] || die "BENCH_N must be a positive integer"
SRC=${BENCH_SRC:-$(go env GOROOT)/src}
[[ -d $SRC ]] || die "source tree $SRC is not a directory"
GIT_DURABLE=${BENCH_GIT_DURABLE:-0}

REPO_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)

WORK=$(mktemp -d "${TMPDIR:-/tmp}/ctx-hashobject-bench.XXXXXX")
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
unset GIT_DIR GIT_WORK_TREE GIT_OBJECT_DIRECTORY GIT_ALTERNATE_OBJECT_DIRECTORIES CTX_DIR || true


LOAD_START=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo "?")

# ---- ctx binary ------------------------------------------------------------
if [[ -n ${CTX_BIN:-} ]]; then
	CTX=$CTX_BIN
else
	log "building ctx from $REPO_ROOT"
	(cd "$REPO_ROOT" && go build -o "$WORK/" ./cmd/ctx ./cmd/ctx-core)
	CTX=$WORK/ctx
fi
[[ -x $CTX ]] || die "ctx binary $CTX is not executable"

# ---- source copy and file list -------------------------------------------
# The list holds absolute paths of regular files (no symlinks), sorted; both
# tools read exactly the same list.
log "listing $SRC"
(cd "$SRC" && find . -type f -print0) | sort -z >"$WORK/all.lst0"
if [[ $QUICK == 1 ]]; then
	head -z -n "$QUICK_FILES" "$WORK/all.lst0" >"$WORK/sel.lst0"
else
	cp "$WORK/all.lst0" "$WORK/sel.lst0"
fi
if tr '\0' '\n' <"$WORK/sel.lst0" | grep -q $'\r'; then
	die "file names with carriage returns are not supported"
fi
NL_NAMES=$(tr -cd '\n' <"$WORK/sel.lst0" | wc -c)
[[ $NL_NAMES -eq 0 ]] || die "file names with newlines are not supported"

log "copying $SRC to $WORK/src"
mkdir -p "$WORK/src"
if [[ $QUICK == 1 ]]; then
	(cd "$SRC" && xargs -0 cp --parents -t "$WORK/src" <"$WORK/sel.lst0")
else
	cp -R "$SRC/." "$WORK/src/"
fi
chmod -R u+w "$WORK/src"
tr '\0' '\n' <"$WORK/sel.lst0" | sed "s|^\./|$WORK/src/|" >"$WORK/files.lst"
STDIN=$WORK/files.lst # what every timed command reads (hash-object --stdin-paths)
NFILES=$(wc -l <"$WORK/files.lst")
BYTES=$(tr '\n' '\0' <"$WORK/files.lst" | du -cb --files0-from=- | tail -n 1 | cut -f1)
[[ $NFILES -gt 0 ]] || die "no files to hash"
# Warm the page cache so that both tools read the sources from memory.
tr '\n' '\0' <"$WORK/files.lst" | xargs -0 cat >/dev/null

# ---- fresh targets, all created before any timed run ----------------------
# Creating files right after deleting many others is much slower on these
# machines, so every timed write goes into its own fresh directory and
# nothing is deleted until the end.
log "creating $N fresh git repositories and $N fresh ctx stores"
mkdir -p "$WORK/runs" "$WORK/out"
for ((i = 1; i <= N; i++)); do
	git init -q "$WORK/runs/git-$i"
	if [[ $GIT_DURABLE == 1 ]]; then git init -q "$WORK/runs/gitd-$i"; fi
	mkdir "$WORK/runs/ctx-$i"
	"$CTX" init "$WORK/runs/ctx-$i" >/dev/null || die "ctx init $WORK/runs/ctx-$i failed"
done




FAIL=0

check_ids() { # name out expected-count
	local n
	n=$(grep -c . "$2" || true)
	[[ $n -eq $3 ]] || fail "$1 printed $n ids for $3 files"
}

# ---- hash-object -----------------------------------------------------------
log "timing hash-object: $NFILES files, $BYTES bytes, N=$N (alternating)"
declare -a T_GIT T_CTX T_GITD C_GIT C_CTX C_GITD
run_git() {
	timed . "$WORK/out/git-$1" env GIT_DIR="$WORK/runs/git-$1/.git" git hash-object -w --stdin-paths
	[[ $RC -eq 0 ]] || fail "git hash-object run $1 exited $RC: $(head -c 300 "$WORK/out/git-$1.err")"
	T_GIT+=("$ELAPSED")
	C_GIT+=("$CPU")
	check_ids "git hash-object run $1" "$WORK/out/git-$1" "$NFILES"
	log "  run $1 git  $(secs "$ELAPSED") s (cpu $(msecs "$CPU") s)"
}
run_gitd() {
	timed . "$WORK/out/gitd-$1" env GIT_DIR="$WORK/runs/gitd-$1/.git" \
		git -c core.fsync=loose-object -c core.fsyncMethod=batch hash-object -w --stdin-paths
	[[ $RC -eq 0 ]] || fail "git (durable) hash-object run $1 exited $RC: $(head -c 300 "$WORK/out/gitd-$1.err")"
	T_GITD+=("$ELAPSED")
	C_GITD+=("$CPU")
	check_ids "git (durable) hash-object run $1" "$WORK/out/gitd-$1" "$NFILES"
	log "  run $1 gitd $(secs "$ELAPSED") s (cpu $(msecs "$CPU") s)"
}
run_ctx() {
	timed . "$WORK/out/ctx-$1" "$CTX" --dir "$WORK/runs/ctx-$1" hash-object -w --stdin-paths
	[[ $RC -eq 0 ]] || fail "ctx hash-object run $1 exited $RC: $(head -c 300 "$WORK/out/ctx-$1.err")"
	T_CTX+=("$ELAPSED")
	C_CTX+=("$CPU")
	check_ids "ctx hash-object run $1" "$WORK/out/ctx-$1" "$NFILES"
	if [[ -s $WORK/out/ctx-$1.err ]]; then
		echo "note: ctx hash-object run $1 wrote to stderr: $(head -c 300 "$WORK/out/ctx-$1.err")" >&2
	fi
	log "  run $1 ctx  $(secs "$ELAPSED") s (cpu $(msecs "$CPU") s)"
}
for ((i = 1; i <= N; i++)); do
	if ((i % 2)); then
		run_git "$i"
		run_ctx "$i"
		if [[ $GIT_DURABLE == 1 ]]; then run_gitd "$i"; fi
	else
		if [[ $GIT_DURABLE == 1 ]]; then run_gitd "$i"; fi
		run_ctx "$i"
		run_git "$i"
	fi
done

# The same files give the same number of distinct objects in both stores,
# and every run of a tool prints the same ids.
UNIQ_GIT=$(sort -u "$WORK/out/git-1" | wc -l)
UNIQ_CTX=$(sort -u "$WORK/out/ctx-1" | wc -l)
[[ $UNIQ_GIT -eq $UNIQ_CTX ]] || fail "distinct objects differ: git $UNIQ_GIT, ctx $UNIQ_CTX"
for ((i = 2; i <= N; i++)); do
	cmp -s "$WORK/out/git-1" "$WORK/out/git-$i" || fail "git run $i printed different ids from run 1"
	cmp -s "$WORK/out/ctx-1" "$WORK/out/ctx-$i" || fail "ctx run $i printed different ids from run 1"
done

# ---- verify / fsck -----------------------------------------------------------
# Read-only, so both use the stores of run 1 every time.
log "timing ctx verify vs git fsck --full, N=$N (alternating)"
declare -a V_GIT V_CTX CV_GIT CV_CTX
run_fsck() {
	timed . "$WORK/out/fsck-$1" env GIT_DIR="$WORK/runs/git-1/.git" git fsck --full
	[[ $RC -eq 0 ]] || fail "git fsck --full run $1 exited $RC: $(head -c 300 "$WORK/out/fsck-$1.err")"
	V_GIT+=("$ELAPSED")
	CV_GIT+=("$CPU")
	log "  run $1 git fsck   $(secs "$ELAPSED") s"
}
run_verify() {
	timed . "$WORK/out/verify-$1" "$CTX" --dir "$WORK/runs/ctx-1" verify
	[[ $RC -eq 0 ]] || fail "ctx verify run $1 exited $RC: $(head -c 300 "$WORK/out/verify-$1.err")"
	V_CTX+=("$ELAPSED")
	CV_CTX+=("$CPU")
	log "  run $1 ctx verify $(secs "$ELAPSED") s"
}
for ((i = 1; i <= N; i++)); do
	if ((i % 2)); then run_fsck "$i"; run_verify "$i"; else run_verify "$i"; run_fsck "$i"; fi
done
# ctx verify reports the blobs it checked: the distinct files, nothing lost.
VERIFY_BLOBS=$(sed -n 's/^checked [0-9]* objects*: \([0-9]*\) blobs*.*/\1/p' "$WORK/out/verify-1")
[[ $VERIFY_BLOBS == "$UNIQ_CTX" ]] || fail "ctx verify checked ${VERIFY_BLOBS:-?} blobs, expected $UNIQ_CTX"
FSCK_DANGLING=$(grep -c '^dangling blob' "$WORK/out/fsck-1" || true)
[[ $FSCK_DANGLING -eq $UNIQ_GIT ]] || fail "git fsck saw $FSCK_DANGLING dangling blobs, expected $UNIQ_GIT"

# ---- report ------------------------------------------------------------------
MH_GIT=$(median "${T_GIT[@]}")
MH_CTX=$(median "${T_CTX[@]}")
MV_GIT=$(median "${V_GIT[@]}")
MV_CTX=$(median "${V_CTX[@]}")
RH=$(ratio_milli "$MH_CTX" "$MH_GIT")
RV=$(ratio_milli "$MV_CTX" "$MV_GIT")
verdict() {
	if [[ $FAIL != 0 ]]; then echo INVALID; elif (($1 <= $2)); then echo met; else echo MISSED; fi
}
VH=$(verdict "$RH" 1000)
VV=$(verdict "$RV" 500)

echo
echo "ctx hash-object / verify vs git — $NFILES files ($((BYTES / 1024 / 1024)) MiB, $UNIQ_CTX distinct) from $SRC$([[ $QUICK == 1 ]] && echo " [quick]")"
echo "machine: $(nproc) cores; $(go version); $(git --version); N=$N, medians of wall-clock seconds"
echo "load average (1/5/15 min) at start: $LOAD_START, at end: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo "?")"
echo
printf '| %-34s | %9s | %9s | %15s | %8s | %-6s |\n' "operation" "git (s)" "ctx (s)" "ratio ctx/git" "target" "result"
printf '|%s|%s|%s|%s|%s|%s|\n' "------------------------------------" "-----------" "-----------" "-----------------" "----------" "--------"
printf '| %-34s | %9s | %9s | %15s | %8s | %-6s |\n' "hash-object -w --stdin-paths" "$(secs "$MH_GIT")" "$(secs "$MH_CTX")" "$(fmt_milli "$RH")" "<= 1.0" "$VH"
printf '| %-34s | %9s | %9s | %15s | %8s | %-6s |\n' "verify vs fsck --full" "$(secs "$MV_GIT")" "$(secs "$MV_CTX")" "$(fmt_milli "$RV")" "<= 0.5" "$VV"
echo
echo "all runs (s):"
echo "  git hash-object: $(list_secs "${T_GIT[@]}")"
echo "  ctx hash-object: $(list_secs "${T_CTX[@]}")"
if [[ $GIT_DURABLE == 1 ]]; then
	MH_GITD=$(median "${T_GITD[@]}")
	echo "  git hash-object, core.fsync=loose-object batch: $(list_secs "${T_GITD[@]}") (median $(secs "$MH_GITD"), ctx/that $(fmt_milli "$(ratio_milli "$MH_CTX" "$MH_GITD")"))"
fi
echo "  git fsck --full: $(list_secs "${V_GIT[@]}")"
echo "  ctx verify:      $(list_secs "${V_CTX[@]}")"
echo "CPU time, user+system (s), median [all runs] (not part of the targets; ctx uses both cores):"
echo "  git hash-object: $(msecs "$(median "${C_GIT[@]}")") [$(list_msecs "${C_GIT[@]}")]"
echo "  ctx hash-object: $(msecs "$(median "${C_CTX[@]}")") [$(list_msecs "${C_CTX[@]}")]"
if [[ $GIT_DURABLE == 1 ]]; then
	echo "  git hash-object, durable: $(msecs "$(median "${C_GITD[@]}")") [$(list_msecs "${C_GITD[@]}")]"
fi
echo "  git fsck --full: $(msecs "$(median "${CV_GIT[@]}")") [$(list_msecs "${CV_GIT[@]}")]"
echo "  ctx verify:      $(msecs "$(median "${CV_CTX[@]}")") [$(list_msecs "${CV_CTX[@]}")]"
if [[ $FAIL == 0 ]]; then
	echo "checks ok: every run of both tools printed $NFILES ids (same ids each run), $UNIQ_CTX distinct in both; ctx verify exited 0 and checked $VERIFY_BLOBS blobs; git fsck --full exited 0"
else
	echo "checks FAILED: see the FAIL lines on stderr; the timings above are not valid"
fi
echo "ctx verify said: $(head -n 1 "$WORK/out/verify-1")"

if [[ $FAIL != 0 ]]; then exit 1; fi
if [[ ${BENCH_ENFORCE:-0} == 1 && ($VH != met || $VV != met) ]]; then exit 3; fi
exit 0
