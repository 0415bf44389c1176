#!/usr/bin/env bash
# make bench, channel scaling on chat shaped like real chat (issue #39, item 1). channels_bench.sh's
# generated logs put most lines in a few channels (Zipf over 1/rank) and carry a 5-line join preamble per
# channel (a sixth of the log at 10,000), so they hide what a real 10,000-channel capture costs. Here
# 300,000 lines of ~377 bytes and ~14.8 tags each (generate_fixtures.py --membership 0.02: about 14% of
# the lines are JOIN/PART, as in real chat; --no-join-preamble: the same mix of lines at every channel
# count, so the bytes held are equal within 0.4%) are spread
#   even: every channel equally likely (~300 lines a channel at 1,000, ~30 at 10,000), and
#   skew: Zipf-like popularity (the busiest channel holds 10-13% of the lines),
# over 1,000 and over 10,000 channels, and replayed with `replay --format json --capacity LINES` (every
# line stays) into /dev/null. Printed side by side for the four logs: CPU time (user + sys from getrusage,
# steadier than wall time on a shared machine) and its ns a line, peak RSS, the bytes the rings hold at
# the end (replay's --memory-report) against the issue's goal RSS <= 1.3 x held + 30 MB; then, per
# shape, the ratio of CPU a line at 10,000 against 1,000 channels (issue #39: <= 1.15x), best against
# best, and the median of the rounds' own ratios with their middle half (first to third quartile).
# The runs alternate, REALCHAT_BENCH_ROUNDS rounds (default 15) of one run of each log, so that a busy
# moment of a shared machine falls on every row alike; each row keeps its best CPU time. Fifteen, not
# five: one run's CPU time varies by a third here, and five rounds could not tell 1.15x from 1.3x
# (README, "Five rounds cannot tell 1.15x from 1.3x"). A change narrower than the middle half does not
# show here (use `perf stat -r` or cachegrind for it).
# Heap allocations a line (issue #39: at 10,000 within 1.2x of 1,000): one more run of each log outside the
# timed rounds, under Benchmarks/malloc_count.c (an LD_PRELOAD counter of malloc, calloc, realloc and the
# aligned allocators, built here with cc), less a run of an empty log, over the lines.
# REALCHAT_BENCH_INSTRUCTIONS=1 adds instructions a line (valgrind's cachegrind, no cache simulation,
# start-up subtracted; deterministic, but blind to the cache misses that make the 10,000 rows dearer;
# about a minute a log). The logs are generated once into Fixtures/generated/ (never committed).
set -euo pipefail
bin=${1:?usage: realchat_channels_bench.sh CHATCAP}
lines=${REALCHAT_BENCH_LINES:-300000}
rounds=${REALCHAT_BENCH_ROUNDS:-15}
instructions=${REALCHAT_BENCH_INSTRUCTIONS:-0}
dir=Fixtures/generated
mkdir -p "$dir"
runs=(even-1000 even-10000 skew-1000 skew-10000)

log_of() { echo "$dir/realchat-$1-$lines.irc"; }
for run in "${runs[@]}"; do
    log=$(log_of "$run")
    spread=${run%-*}
    [ "$spread" = skew ] && spread=zipf
    [ -s "$log" ] || python3 Scripts/generate_fixtures.py --lines "$lines" --channels "${run#*-}" \
        --spread "$spread" --no-join-preamble --membership 0.02 --out "$log" >&2
done

# One run: "cpu_us maxrss_kb" on stdout; replay's --memory-report into $dir/.realchat-memory-RUN.
measure() {
    python3 - "$bin" replay "$(log_of "$1")" --format json --memory-report --capacity "$lines" \
        2> "$dir/.realchat-memory-$1" <<'PY'
import resource, subprocess, sys
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, check=True)
r = resource.getrusage(resource.RUSAGE_CHILDREN)
print(int((r.ru_utime + r.ru_stime) * 1e6), r.ru_maxrss)
PY
}

declare -A cpu rss insn allocs
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cc -O2 -shared -fPIC -o "$work/malloc_count.so" Benchmarks/malloc_count.c
: > "$work/empty.irc"
# Heap allocations of one replay of log $1 (the same options as measure's).
allocations() {
    MALLOC_COUNT_FILE="$work/count" LD_PRELOAD="$work/malloc_count.so" "$bin" replay "$1" --format json \
        --capacity "$lines" > /dev/null 2>&1
    cat "$work/count"
}
empty_allocations=$(allocations "$work/empty.irc")
for run in "${runs[@]}"; do allocs[$run]=$(($(allocations "$(log_of "$run")") - empty_allocations)); done
ratios_even="" ratios_skew=""
for _ in $(seq 1 "$rounds"); do
    declare -A this
    for run in "${runs[@]}"; do
        read -r c k < <(measure "$run")
        this[$run]=$c
        [ -n "${cpu[$run]:-}" ] && [ "${cpu[$run]}" -le "$c" ] || cpu[$run]=$c
        [ "${rss[$run]:-0}" -ge "$k" ] || rss[$run]=$k
    done
    ratios_even+="$(awk -v a="${this[even-10000]}" -v b="${this[even-1000]}" 'BEGIN { printf "%.3f ", a / b }')"
    ratios_skew+="$(awk -v a="${this[skew-10000]}" -v b="${this[skew-1000]}" 'BEGIN { printf "%.3f ", a / b }')"
done

if [ "$instructions" = 1 ]; then
    # valgrind cannot read Swift's DWARF: a copy stripped of debug information (symbols kept).
    strip --strip-debug -o "$work/chatcap" "$bin"
    count() {
        valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null "$work/chatcap" replay "$1" \
            --format json --capacity "$lines" 2>&1 > /dev/null | sed -n 's/.*I *refs: *//p' | tr -d ,
    }
    empty=$(count "$work/empty.irc")
    for run in "${runs[@]}"; do insn[$run]=$(($(count "$(log_of "$run")") - empty)); done
fi

echo "real-shaped chat: $lines lines (~377 bytes, ~14.8 tags each), replay --format json --capacity $lines, best of $rounds alternated rounds"
printf '%-11s %8s %8s %9s %11s %8s %8s %8s %s\n' log "cpu s" ns/line insn/line allocs/line "RSS MB" "held MB" \
    "goal MB" "(1.3 x held + 30)"
for run in "${runs[@]}"; do
    held=$(sed -n 's/.*entries, \([0-9.]*\) MB of lines held.*/\1/p' "$dir/.realchat-memory-$run")
    awk -v r="$run" -v cpu="${cpu[$run]}" -v n="$lines" -v kb="${rss[$run]}" -v held="$held" -v insn="${insn[$run]:-}" \
        -v allocs="${allocs[$run]}" 'BEGIN {
        rss = kb * 1024 / 1e6; goal = 1.3 * held + 30
        printf "%-11s %8.3f %8.0f %9s %11.3f %8.1f %8.1f %8.1f %s\n", r, cpu / 1e6, cpu * 1e3 / n,
            (insn == "") ? "-" : sprintf("%.0f", insn / n), allocs / n, rss, held, goal, (rss <= goal) ? "met" : "not met" }'
done
for shape in even skew; do
    ratios=ratios_$shape
    echo "${!ratios}" | tr ' ' '\n' | grep . | sort -n | awk -v shape="$shape" \
        -v best="$(awk -v a="${cpu[$shape-10000]}" -v b="${cpu[$shape-1000]}" 'BEGIN { printf "%.3f", a / b }')" \
        -v ia="${insn[$shape-10000]:-}" -v ib="${insn[$shape-1000]:-}" -v ra="${rss[$shape-10000]}" -v rb="${rss[$shape-1000]}" \
        -v aa="${allocs[$shape-10000]}" -v ab="${allocs[$shape-1000]}" \
        '{ r[NR] = $1 } END {
            q1 = r[int((NR + 3) / 4)]; q3 = r[NR + 1 - int((NR + 3) / 4)]
            printf "%s: 10,000 against 1,000 channels (issue #39: CPU <= 1.15x): CPU best against best %sx, median of the rounds %.3fx, middle half %.3f-%.3fx (rounds: ", shape, best, r[int((NR + 1) / 2)], q1, q3
            for (i = 1; i <= NR; i++) printf "%s%s", r[i], (i < NR ? " " : ")")
            printf "; RSS %.2fx", ra / rb
            printf "; allocations a line %.2fx (<= 1.2x)", (ab > 0) ? aa / ab : 0
            if (ia != "") printf "; instructions %.3fx", ia / ib
            printf "\n" }'
done
# What a channel count costs in RSS at equal bytes held: a store's ring keeps its bytes on the heap up to
# about 4 KB and then in pages of its own, where only written pages cost memory, so every such channel rounds
# its bytes up to a page. From replay's --memory-report (the store's own figures, StoreMemory): the part of
# the RSS goal's gap that no change short of storing several channels' bytes in one page can close.
for run in "${runs[@]}"; do
    sed -n 's/.*; \([0-9]*\) channels in pages of their own hold \([0-9.]*\) MB in \([0-9.]*\) MB of written pages.*/\1 \2 \3/p' \
        "$dir/.realchat-memory-$run" | awk -v r="$run" '{
        printf "%s: %d channels keep their lines in pages of their own: %.1f MB of pages for %.1f MB held, %.1f MB rounded up\n",
            r, $1, $3, $2, $3 - $2 }'
done
