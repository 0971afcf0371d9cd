#!/usr/bin/env bash
# Benchmark: retrieval quality of `ctx query` (issue 7), with the harness
# of ../shared/bench/retrieval (180 real commits of gin, testify and pgx:
# the query is the commit's description, the gold set the source files it
# changed, the corpus a tagged release before the change).
#
# It downloads the corpora (go mod download through the module proxy),
# computes the harness's baselines (BM25 variants and their RRF fusion),
# runs ctx over every case of the chosen split(s) with the full query and
# with the subject only, and prints the harness's tables: ctx beside bm25
# and rrf, the paired difference ctx − rrf with 95% bootstrap intervals,
# and the stratum of queries without a lexical hint. See
# docs/benchmarks.md, "Retrieval".
#
# Usage: bench/retrieval/run.sh [--quick] [--split dev|check|all]
#
#   --quick        smoke mode: the gin cases of dev only
#   --split S      dev (the default: develop on it), check (confirm only),
#                  or all
#
# Environment:
#   RETRIEVAL_DIR=DIR  the harness (default: ../shared/bench/retrieval
#                      beside the repository)
#   BENCH_DIR=DIR      where corpora and results go (default: a new
#                      temporary directory, removed at the end unless
#                      BENCH_KEEP=1)
#   CTX_BIN=PATH       use this ctx binary (with ctx-core beside it) instead of building ./cmd/ctx and ./cmd/ctx-core
#
# Needs python3 (standard library; its sqlite3 must have FTS5, as
# CPython's does) and go with access to a module proxy. Exit status: 0 ok,
# 1 a step failed.
set -euo pipefail
export LC_ALL=C
# shellcheck source=../lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

usage() { sed -n '16,20p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; }

QUICK=0
SPLIT=dev
while (($#)); do
	case $1 in
	--quick) QUICK=1 ;;
	--split) shift; SPLIT=${1:-} ;;
	--split=*) SPLIT=${1#--split=} ;;
	-h | --help) usage; exit 0 ;;
	*) usage >&2; die "unknown argument $1" ;;
	esac
	shift
done
case $SPLIT in dev | check | all) ;; *) die "--split must be dev, check or all" ;; esac

REPO_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
HARNESS=${RETRIEVAL_DIR:-$REPO_ROOT/../shared/bench/retrieval}
[[ -f $HARNESS/run_tool.py && -f $HARNESS/eval.py ]] || die "no retrieval harness in $HARNESS (set RETRIEVAL_DIR)"
command -v python3 >/dev/null || die "python3 not found"
command -v go >/dev/null || die "go not found"
python3 -c 'import sqlite3; c = sqlite3.connect(":memory:"); c.execute("CREATE VIRTUAL TABLE t USING fts5(a)")' 2>/dev/null ||
	die "python3's sqlite3 has no FTS5 (the baselines need it)"

B=${BENCH_DIR:-}
if [[ -z $B ]]; then
	B=$(mktemp -d "${TMPDIR:-/tmp}/ctx-retrieval.XXXXXX")
	[[ ${BENCH_KEEP:-0} == 1 ]] || trap 'rm -rf "$B"' EXIT
fi
mkdir -p "$B/bin" "$B/results"

if [[ -n ${CTX_BIN:-} ]]; then
	cp "$CTX_BIN" "$B/bin/ctx"
else
	log "building ctx from $REPO_ROOT"
	(cd "$REPO_ROOT" && go build -o "$B/bin/" ./cmd/ctx ./cmd/ctx-core) || die "building ctx failed"
fi
export PATH=$B/bin:$PATH

log "corpora (go mod download, checked against their h1: hashes)"
python3 "$HARNESS/corpus.py" --out "$B/corpora" >&2 || die "downloading the corpora failed"
log "baselines"
python3 "$HARNESS/baselines.py" --corpus-root "$B/corpora" --out "$B/results/{method}.jsonl" >&2 || die "the baselines failed"
python3 "$HARNESS/baselines.py" --corpus-root "$B/corpora" --query-field query_short --out "$B/results/{method}.short.jsonl" >&2 ||
	die "the baselines (query_short) failed"

SEL=()
[[ $SPLIT == all ]] || SEL+=(--split "$SPLIT")
[[ $QUICK == 1 ]] && SEL=(--split dev --module github.com/gin-gonic/gin)
run_ctx() { # NAME [run_tool options]
	local name=$1
	shift
	log "ctx query over the cases ($name)"
	python3 "$HARNESS/run_tool.py" --corpus-root "$B/corpora" --out "$B/results/$name.jsonl" \
		--setup 'ctx init && ctx add code .' \
		--cmd 'ctx query --format json {query}' --json-path 'retrieved[].path' \
		"${SEL[@]}" "$@" >&2 || die "run_tool.py failed ($name)"
}
run_ctx ctx
run_ctx ctx.short --query-field query_short

# eval.py scores every case of the harness; the cases ctx did not run
# (another split) score 0 in its "all" rows, so read the split's rows.
echo "== full query: ctx beside the baselines"
python3 "$HARNESS/eval.py" "$B/results/bm25.jsonl" "$B/results/rrf.jsonl" "$B/results/ctx.jsonl" 2>/dev/null
echo
echo "== full query: ctx − rrf and ctx − bm25, paired, 95% bootstrap CI (* = excludes 0)"
python3 "$HARNESS/eval.py" "$B/results/ctx.jsonl" --vs "$B/results/rrf.jsonl" 2>/dev/null | sed -n '/minus/,$p'
python3 "$HARNESS/eval.py" "$B/results/ctx.jsonl" --vs "$B/results/bm25.jsonl" 2>/dev/null | sed -n '/minus/,$p'
echo
echo "== by lexical hint (ctx, rrf)"
python3 "$HARNESS/eval.py" "$B/results/ctx.jsonl" "$B/results/rrf.jsonl" --by split,lexical_hint 2>/dev/null
echo
echo "== subject only (query_short): ctx beside the baselines"
python3 "$HARNESS/eval.py" "$B/results/bm25.short.jsonl" "$B/results/rrf.short.jsonl" "$B/results/ctx.short.jsonl" 2>/dev/null
python3 "$HARNESS/eval.py" "$B/results/ctx.short.jsonl" --vs "$B/results/rrf.short.jsonl" 2>/dev/null | sed -n '/minus/,$p'
[[ ${BENCH_KEEP:-0} == 1 ]] && echo "kept $B" >&2
exit 0
