#!/usr/bin/env bash
# make bench, channel scaling: the same 300,000-line log generated with 1, 1,000 and 10,000 channels,
# replayed to typed NDJSON into /dev/null. Prints, side by side, wall time (best of 2), ns/line, the
# ratio to the 1-channel run (issue #16: within 1.15x), CPU time (user + sys, steadier than wall time
# on a shared machine) and its ns/line and ratio, peak RSS (/usr/bin/time -f %M) and the input bytes. The logs are generated once into Fixtures/generated/ (never committed).
set -euo pipefail
bin=${1:?usage: channels_bench.sh CHATCAP}
lines=${CHANNELS_BENCH_LINES:-300000}
dir=Fixtures/generated
mkdir -p "$dir"

printf '%-9s %8s %8s %7s %8s %8s %7s %8s %9s %7s\n' channels "wall s" ns/line "x 1ch" "cpu s" ns/line "x 1ch" "RSS MB" "input MB" "RSS/in"
base=""
cbase=""
for channels in 1 1000 10000; do
    log=$dir/channels-$channels.irc
    [ -s "$log" ] || python3 Scripts/generate_fixtures.py --lines "$lines" --channels "$channels" --out "$log" >&2
    bytes=$(stat -c %s "$log")
    n=$(wc -l < "$log")
    best=999999999999999
    cpu=999999999
    rss=0
    for _ in 1 2; do
        t0=$(date +%s%N)
        /usr/bin/time -f "%M %U %S" -o "$dir/.time" "$bin" replay "$log" --format json > /dev/null
        t1=$(date +%s%N)
        read -r kb user sys < <(tail -n 1 "$dir/.time")
        c=$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%d", (u + s) * 1000 }')  # ms
        cpu=$(( c < cpu ? c : cpu ))
        best=$(( (t1 - t0) < best ? (t1 - t0) : best ))
        rss=$(( kb > rss ? kb : rss ))
    done
    [ -n "$base" ] || base=$(( best / n ))
    [ -n "$cbase" ] || cbase=$cpu
    awk -v c="$channels" -v ns="$best" -v n="$n" -v base="$base" -v cpu="$cpu" -v cbase="$cbase" -v kb="$rss" \
        -v bytes="$bytes" 'BEGIN {
        per = ns / n; cper = cpu * 1e6 / n
        printf "%-9s %8.3f %8.0f %6.2fx %8.3f %8.0f %6.2fx %8.1f %9.1f %6.2fx\n", c, ns / 1e9, per, per / base,
            cpu / 1e3, cper, cper / (cbase * 1e6 / n), kb * 1024 / 1e6, bytes / 1e6, kb * 1024 / bytes }'
done
echo "(every line of these logs stays in its ring unless a channel passes --capacity: bytes held ~ input bytes at 1,000 and 10,000 channels)"
