#!/usr/bin/env bash
# Benchmark: pack files (issue 8). On a store holding Go's own source tree
# (ingested with `ctx add code`, untimed), it measures the store loose,
# runs `ctx gc --pack` (timed), and measures it packed:
#   - disk: bytes and files under .ctx/objects/
#   - latency of a new process, warm (page cache filled) and cold (page
#     cache dropped before each run, when the machine lets us: root and
#     /proc/sys/vm/drop_caches writable): ctx cat-object -p of a file, and
#     ctx query (a whole pack)
# and prints packed/loose ratios. See docs/benchmarks.md, "Pack files".
#
# Usage: bench/pack/run.sh [--quick] [-n N]
#
#   --quick   smoke mode: only the BENCH_QUICK_DIR subtree (net)
#   -n N      runs per latency measurement (default 7; or BENCH_N)
#
# Environment: BENCH_SRC=DIR (default $(go env GOROOT)/src), BENCH_QUICK=1,
# BENCH_QUICK_DIR=net, CTX_BIN=PATH, BENCH_KEEP=1, TMPDIR.
set -euo pipefail
export LC_ALL=C
# shellcheck source=../lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

usage() { sed -n '12,15p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; }

QUICK=${BENCH_QUICK:-0}
N=${BENCH_N:-7}
while (($#)); do
	case $1 in
	--quick) QUICK=1 ;;
	-n) shift; N=${1:-} ;;
	-h | --help) usage; exit 0 ;;
	*) usage >&2; die "unknown argument $1" ;;
	esac
	shift
done
[[ ${BASH_VERSINFO[0]} -ge 5 ]] || die "needs bash >= 5 (EPOCHREALTIME)"
[[ $N =~ ^[1-9][0-9]*$ ]] || die "N must be a positive integer"
command -v go >/dev/null || die "go not found"
SRC=${BENCH_SRC:-$(go env GOROOT)/src}
[[ $QUICK == 1 ]] && SRC=$SRC/${BENCH_QUICK_DIR:-net}
[[ -d $SRC ]] || die "source tree $SRC is not a directory"
REPO_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)

WORK=$(mktemp -d "${TMPDIR:-/tmp}/ctx-pack-bench.XXXXXX")
cleanup() { if [[ ${BENCH_KEEP:-0} == 1 ]]; then echo "kept $WORK" >&2; else rm -rf "$WORK"; fi; }
trap cleanup EXIT
CTX=${CTX_BIN:-$WORK/ctx}
if [[ -z ${CTX_BIN:-} ]]; then
	log "building ctx from $REPO_ROOT"
	(cd "$REPO_ROOT" && go build -o "$WORK/" ./cmd/ctx ./cmd/ctx-core) || die "building ctx failed"
fi

CAN_DROP=0
if [[ $(id -u) == 0 && -w /proc/sys/vm/drop_caches ]]; then CAN_DROP=1; fi
drop() { sync; echo 3 >/proc/sys/vm/drop_caches; }

STORE=$WORK/src
log "copying $SRC"
mkdir -p "$STORE"
cp -R "$SRC/." "$STORE/"
chmod -R u+w "$STORE"
rm -rf "$STORE/.git" "$STORE/.ctx"
(cd "$STORE" && "$CTX" init . >/dev/null) || die "ctx init failed"
sed -i 's/^max_file_bytes = .*/max_file_bytes = 67108864/' "$STORE/.ctx/config.toml"
log "ctx add code (untimed)"
(cd "$STORE" && "$CTX" add code -q >/dev/null) || die "ctx add code failed"

# A file to cat and a question to ask, from the tree itself.
# (awk reads all its input: head would end sort with SIGPIPE under pipefail)
FILE=$(cd "$STORE" && find . -name '*.go' -size +20k | sed 's|^\./||' | sort | awk 'NR == 1')
[[ -n $FILE ]] || FILE=$(cd "$STORE" && find . -name '*.go' | sed 's|^\./||' | sort | awk 'NR == 1')
QUESTION="How does the client retry a request when the connection is reset?"
(cd "$STORE" && "$CTX" query "$QUESTION" >/dev/null) || die "ctx query failed" # builds the index and the graph segment

# lat NAME CMD...: median wall ms of N runs, warm and (if possible) cold.
declare -A WARM COLD
lat() {
	local name=$1
	shift
	local -a w=() c=()
	local i t0
	(cd "$STORE" && "$@" >/dev/null) || die "$* failed"
	for ((i = 0; i < N; i++)); do
		t0=$(now_us)
		(cd "$STORE" && "$@" >/dev/null)
		w+=($(($(now_us) - t0)))
		if [[ $CAN_DROP == 1 ]]; then
			drop
			t0=$(now_us)
			(cd "$STORE" && "$@" >/dev/null)
			c+=($(($(now_us) - t0)))
		fi
	done
	WARM[$name]=$(median "${w[@]}")
	if [[ $CAN_DROP == 1 ]]; then COLD[$name]=$(median "${c[@]}"); else COLD[$name]=""; fi
}
ms() { [[ -z $1 ]] && { echo "n/a"; return; }; local t=$((($1 + 50) / 100)); printf '%d.%d' $((t / 10)) $((t % 10)); }
measure() { # PHASE
	SIZE[$1]=$(du -sb "$STORE/.ctx/objects" | cut -f1)
	FILES[$1]=$(find "$STORE/.ctx/objects" -type f | wc -l)
	lat "cat-$1" "$CTX" cat-object -p "main:$FILE"
	lat "query-$1" "$CTX" query "$QUESTION"
}
declare -A SIZE FILES
log "loose: sizes and latency ($N runs each)"
measure loose
log "ctx gc --pack"
timed "$STORE" "$WORK/gc" "$CTX" gc --pack
[[ $RC -eq 0 ]] || die "ctx gc --pack failed: $(head -c 300 "$WORK/gc.err")"
GC_US=$ELAPSED
(cd "$STORE" && "$CTX" verify >/dev/null) || die "ctx verify failed after packing"
log "packed: sizes and latency"
measure packed

echo
echo "pack files — $(grep -c . <<<"$(cd "$STORE" && find . -path ./.ctx -prune -o -type f -print)") files from $SRC$([[ $QUICK == 1 ]] && echo " [quick]")"
echo "machine: $(nproc) cores; $(go version); $N runs per latency, medians; cold = page cache dropped before each run$([[ $CAN_DROP == 1 ]] || echo " (not possible here: n/a)")"
printf '| %-34s | %12s | %12s | %7s |\n' "" "loose" "packed" "ratio"
printf '|%s|%s|%s|%s|\n' "------------------------------------" "--------------" "--------------" "---------"
printf '| %-34s | %12s | %12s | %7s |\n' "objects/ size (MiB)" "$(awk -v b="${SIZE[loose]}" 'BEGIN{printf "%.1f", b/1048576}')" "$(awk -v b="${SIZE[packed]}" 'BEGIN{printf "%.1f", b/1048576}')" "$(fmt_milli "$(ratio_milli "${SIZE[packed]}" "${SIZE[loose]}")")"
printf '| %-34s | %12s | %12s | %7s |\n' "objects/ files" "${FILES[loose]}" "${FILES[packed]}" "$(fmt_milli "$(ratio_milli "${FILES[packed]}" "${FILES[loose]}")")"
for k in cat query; do
	label="ctx cat-object -p (ms)"
	[[ $k == query ]] && label="ctx query (ms)"
	printf '| %-34s | %12s | %12s | %7s |\n' "$label, warm" "$(ms "${WARM[$k-loose]}")" "$(ms "${WARM[$k-packed]}")" "$(fmt_milli "$(ratio_milli "${WARM[$k-packed]}" "${WARM[$k-loose]}")")"
	if [[ $CAN_DROP == 1 ]]; then
		printf '| %-34s | %12s | %12s | %7s |\n' "$label, cold" "$(ms "${COLD[$k-loose]}")" "$(ms "${COLD[$k-packed]}")" "$(fmt_milli "$(ratio_milli "${COLD[$k-packed]}" "${COLD[$k-loose]}")")"
	fi
done
echo "ctx gc --pack: $(secs "$GC_US") s; it said: $(tail -n 1 "$WORK/gc")"
echo "file read: $FILE; question: $QUESTION"
