#!/usr/bin/env bash
# make bench, channel scaling: the same 300,000-line log generated with 1, 1,000 and 10,000 channels,
# replayed to typed NDJSON into /dev/null. Prints, side by side, wall time, ns/line, the ratio to the
# 1-channel run (issue #16: within 1.15x), CPU time (user + sys, steadier than wall time on a shared
# machine) and its ns/line and ratio, peak RSS, the bytes the rings hold at the end (replay's hidden
# --memory-report) and the issue's memory goal, RSS <= 1.3 x held + 30 MB.
# The 1,000- and 10,000-channel runs pass --capacity as large as the log, so that every line stays
# (issue #26: "at equal bytes held, --capacity large enough to hold every line"): the generated channels'
# popularity is Zipf-like, and at the default 2,500 entries a channel the busiest ones evicted (the runs
# held 207,000 and 250,000 of the 300,000 lines). A control row, "1 all", replays the 1-channel log with
# the same --capacity, so that one channel holds every line as they do (the "1" row, at the default
# capacity, holds 2,500): it separates the cost of holding more memory from the cost of having more channels.
# The runs alternate, CHANNELS_BENCH_ROUNDS rounds (default 5) of one run of each row, so that a busy
# moment of a shared machine falls on every row alike; each row keeps its best wall and CPU time (CPU
# from getrusage, in microseconds: /usr/bin/time's hundredths were 1.4% of a run). The last line gives
# the ratio of CPU a line at 10,000 against 1,000 channels (issue #26: <= 1.15x), best against best and
# the median of the rounds' own ratios.
# The logs are generated once into Fixtures/generated/ (never committed).
set -euo pipefail
bin=${1:?usage: channels_bench.sh CHATCAP}
lines=${CHANNELS_BENCH_LINES:-300000}
rounds=${CHANNELS_BENCH_ROUNDS:-5}
dir=Fixtures/generated
mkdir -p "$dir"
runs=(1 1000 10000 all)

log_of() { echo "$dir/channels-$([ "$1" = all ] && echo 1 || echo "$1").irc"; }
for run in "${runs[@]}"; do
    log=$(log_of "$run")
    [ -s "$log" ] || python3 Scripts/generate_fixtures.py --lines "$lines" --channels "${log//[^0-9]/}" --out "$log" >&2
done

# One run: "wall_ns cpu_us maxrss_kb" on stdout; replay's --memory-report into $dir/.memory-RUN.
measure() {
    local run=$1 log
    log=$(log_of "$run")
    local extra=(--capacity "$lines")
    [ "$run" = 1 ] && extra=()
    python3 - "$bin" replay "$log" --format json --memory-report "${extra[@]}" 2> "$dir/.memory-$run" <<'PY'
import resource, subprocess, sys, time
t0 = time.monotonic_ns()
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, check=True)
t1 = time.monotonic_ns()
r = resource.getrusage(resource.RUSAGE_CHILDREN)
print(t1 - t0, int((r.ru_utime + r.ru_stime) * 1e6), r.ru_maxrss)
PY
}

declare -A wall cpu rss
round_ratios=""
for _ in $(seq 1 "$rounds"); do
    declare -A this
    for run in "${runs[@]}"; do
        read -r w c k < <(measure "$run")
        this[$run]=$c
        [ -n "${wall[$run]:-}" ] && [ "${wall[$run]}" -le "$w" ] || wall[$run]=$w
        [ -n "${cpu[$run]:-}" ] && [ "${cpu[$run]}" -le "$c" ] || cpu[$run]=$c
        [ "${rss[$run]:-0}" -ge "$k" ] || rss[$run]=$k
    done
    round_ratios+="$(awk -v a="${this[10000]}" -v b="${this[1000]}" 'BEGIN { printf "%.3f ", a / b }')"
done

printf '%-9s %8s %8s %7s %8s %8s %7s %8s %8s %8s %s\n' channels "wall s" ns/line "x 1ch" "cpu s" ns/line "x 1ch" \
    "RSS MB" "held MB" "goal MB" "(1.3 x held + 30)"
n=$(wc -l < "$(log_of 1)")
for run in "${runs[@]}"; do
    held=$(sed -n 's/.*entries, \([0-9.]*\) MB of lines held.*/\1/p' "$dir/.memory-$run")
    awk -v c="$([ "$run" = all ] && echo "1 all" || echo "$run")" -v ns="${wall[$run]}" -v n="$n" -v base="${wall[1]}" \
        -v cpu="${cpu[$run]}" -v cbase="${cpu[1]}" -v kb="${rss[$run]}" -v held="$held" 'BEGIN {
        per = ns / n; cper = cpu * 1e3 / n; rss = kb * 1024 / 1e6; goal = 1.3 * held + 30
        printf "%-9s %8.3f %8.0f %6.2fx %8.3f %8.0f %6.2fx %8.1f %8.1f %8.1f %s\n", c, ns / 1e9, per, per / (base / n),
            cpu / 1e6, cper, cpu / cbase, rss, held, goal, (c == "1 all") ? "(control, no goal)" : (rss <= goal) ? "met" : "not met" }'
    sed 's/^chatcap: memory: /    rings: /' "$dir/.memory-$run"
done
echo "(per-line ratio target: within 1.15x of the 1-channel run; best of $rounds alternated rounds)"
echo "$round_ratios" | tr ' ' '\n' | grep . | sort -n | awk -v best="$(awk -v a="${cpu[10000]}" -v b="${cpu[1000]}" 'BEGIN { printf "%.3f", a / b }')" \
    '{ r[NR] = $1 } END { printf "CPU a line, 10,000 against 1,000 channels (issue #26: <= 1.15x): best against best %sx, median of the rounds %.3fx (rounds: ", best, r[int((NR + 1) / 2)]; for (i = 1; i <= NR; i++) printf "%s%s", r[i], (i < NR ? " " : ")\n") }'
