# Shared helpers of the benchmark scripts under bench/ (sourced, not run).
# Each script sets WORK before calling timed with a relative OUT, and
# FAIL=0 before calling fail.

die() { echo "run.sh: $*" >&2; exit 1; }
log() { echo "# $*" >&2; }
fail() { echo "FAIL: $*" >&2; FAIL=1; }

now_us() { local t=$EPOCHREALTIME; echo "${t//[!0-9]/}"; }

# timed DIR OUT CMD...: runs CMD in DIR with stdin from $STDIN (default
# /dev/null) and stdout to OUT, after a sync (untimed) so that no run pays
# for the previous run's write-back (ctx ends with syncfs(2), which
# flushes the whole file system). Sets ELAPSED (wall-clock microseconds),
# CPU (user+system milliseconds) and RC.
timed() {
	local dir=$1 out=$2
	shift 2
	sync
	local t0 t1 tf=$out.time
	t0=$(now_us)
	set +e
	{ time (cd "$dir" && "$@" <"${STDIN:-/dev/null}" >"$out" 2>"$out.err"); } 2>"$tf"
	RC=$?
	set -e
	t1=$(now_us)
	ELAPSED=$((t1 - t0))
	if ((RC == 130 || RC == 143 || RC == 137)); then
		echo "run.sh: interrupted: $* exited $RC: $(head -c 300 "$out.err")" >&2
		exit "$RC"
	fi
	# user+system CPU seconds of the command, from bash's time (ms precision)
	local u=0 s=0
	read -r u s <"$tf" || true
	u=${u//[!0-9]/} s=${s//[!0-9]/}
	CPU=$((10#${u:-0} + 10#${s:-0})) # 0 when time printed nothing

}

# median of integers given as arguments
median() {
	local -a s
	mapfile -t s < <(printf '%s\n' "$@" | sort -n)
	local n=${#s[@]}
	if ((n % 2)); then echo "${s[n / 2]}"; else echo $(((s[n / 2 - 1] + s[n / 2]) / 2)); fi
}
secs() { local ms=$((($1 + 500) / 1000)); printf '%d.%03d' $((ms / 1000)) $((ms % 1000)); }
msecs() { printf '%d.%03d' $(($1 / 1000)) $(($1 % 1000)); }
# ratio_milli A B: A/B in thousandths, rounded (B of 0 counts as 1)
ratio_milli() { echo $((($1 * 1000 + $2 / 2) / ($2 > 0 ? $2 : 1))); }
fmt_milli() { printf '%d.%03d' $(($1 / 1000)) $(($1 % 1000)); }
list_secs() { local s="" v; for v in "$@"; do s+="$(secs "$v") "; done; echo "${s% }"; }
list_msecs() { local s="" v; for v in "$@"; do s+="$(msecs "$v") "; done; echo "${s% }"; }
