#!/usr/bin/env bash
# make bench, channel scaling: the same 300,000-line log generated with 1, 1,000 and 10,000 channels,
# replayed to typed NDJSON into /dev/null. Prints, side by side, wall time (best of 2), ns/line, the
# ratio to the 1-channel run (issue #16: within 1.15x), CPU time (user + sys, steadier than wall time
# on a shared machine) and its ns/line and ratio, peak RSS (/usr/bin/time -f %M), the bytes the rings hold
# at the end (replay's hidden --memory-report) and the issue's memory goal, RSS <= 1.3 x held + 30 MB.
# The 1,000- and 10,000-channel runs pass --capacity as large as the log, so that every line stays
# (issue #26: "at equal bytes held, --capacity large enough to hold every line"): the generated channels'
# popularity is Zipf-like, and at the default 2,500 entries a channel the busiest ones evicted (the runs
# held 207,000 and 250,000 of the 300,000 lines). A control row, "1 all", replays the 1-channel log with
# the same --capacity, so that one channel holds every line as they do (the "1" row, at the default
# capacity, holds 2,500): it separates the cost of holding more memory from the cost of having more channels.
# The logs are generated once into Fixtures/generated/ (never committed).
set -euo pipefail
bin=${1:?usage: channels_bench.sh CHATCAP}
lines=${CHANNELS_BENCH_LINES:-300000}
dir=Fixtures/generated
mkdir -p "$dir"

printf '%-9s %8s %8s %7s %8s %8s %7s %8s %8s %8s %s\n' channels "wall s" ns/line "x 1ch" "cpu s" ns/line "x 1ch" \
    "RSS MB" "held MB" "goal MB" "(1.3 x held + 30)"
base=""
cbase=""
for run in 1 1000 10000 all; do
    channels=$run
    extra=(--capacity "$lines")
    if [ "$run" = all ]; then
        channels=1
    elif [ "$run" = 1 ]; then
        extra=()
    fi
    log=$dir/channels-$channels.irc
    [ -s "$log" ] || python3 Scripts/generate_fixtures.py --lines "$lines" --channels "$channels" --out "$log" >&2
    n=$(wc -l < "$log")
    best=999999999999999
    cpu=999999999
    rss=0
    for _ in 1 2; do
        t0=$(date +%s%N)
        /usr/bin/time -f "%M %U %S" -o "$dir/.time" "$bin" replay "$log" --format json --memory-report "${extra[@]}" \
            > /dev/null 2> "$dir/.memory"
        t1=$(date +%s%N)
        read -r kb user sys < <(tail -n 1 "$dir/.time")
        c=$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%d", (u + s) * 1000 }')  # ms
        cpu=$(( c < cpu ? c : cpu ))
        best=$(( (t1 - t0) < best ? (t1 - t0) : best ))
        rss=$(( kb > rss ? kb : rss ))
    done
    held=$(sed -n 's/.*entries, \([0-9.]*\) MB of lines held.*/\1/p' "$dir/.memory")
    [ -n "$base" ] || base=$(( best / n ))
    [ -n "$cbase" ] || cbase=$cpu
    awk -v c="$([ "$run" = all ] && echo "1 all" || echo "$channels")" -v ns="$best" -v n="$n" -v base="$base" -v cpu="$cpu" -v cbase="$cbase" -v kb="$rss" \
        -v held="$held" 'BEGIN {
        per = ns / n; cper = cpu * 1e6 / n; rss = kb * 1024 / 1e6; goal = 1.3 * held + 30
        printf "%-9s %8.3f %8.0f %6.2fx %8.3f %8.0f %6.2fx %8.1f %8.1f %8.1f %s\n", c, ns / 1e9, per, per / base,
            cpu / 1e3, cper, cper / (cbase * 1e6 / n), rss, held, goal, (c == "1 all") ? "(control, no goal)" : (rss <= goal) ? "met" : "not met" }'
    sed 's/^chatcap: memory: /    rings: /' "$dir/.memory"
done
echo "(per-line ratio target: within 1.15x of the 1-channel run)"
