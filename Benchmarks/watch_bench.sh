#!/usr/bin/env bash
# Full-screen `watch` under load: replays FILE at --speed max inside a private tmux server (120x40)
# with --stats, and reports redraws per second (must stay <= 30), bytes written to the terminal per
# second, and the ingest time against `replay FILE --format json > /dev/null` measured in the same run.
#
#   Benchmarks/watch_bench.sh .build/release/chatcap Fixtures/generated/bench.irc
set -euo pipefail
bin=${1:?usage: watch_bench.sh CHATCAP FILE}
log=${2:?usage: watch_bench.sh CHATCAP FILE}
limit=${WATCH_BENCH_TIMEOUT:-900}   # seconds to wait for the replay to end
command -v tmux > /dev/null || { echo "watch_bench: tmux is not installed" >&2; exit 2; }
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
log=$(cd "$(dirname "$log")" && pwd)/$(basename "$log")

work=$(mktemp -d)
socket="chatcap-watch-bench-$$"
cleanup() {
    local path
    path=$(tmux -L "$socket" display-message -p '#{socket_path}' 2> /dev/null || true)
    tmux -L "$socket" kill-server 2> /dev/null || true
    [ -n "$path" ] && rm -f "$path"  # tmux leaves its socket file behind
    rm -rf "$work"
}
trap cleanup EXIT

now() { date +%s%N; }

echo "watch bench: $log ($(wc -l < "$log") lines, $(($(wc -c < "$log") / 1000000)) MB)"

# 1. The same input through replay to NDJSON, as the reference.
t0=$(now)
"$bin" replay "$log" --format json > /dev/null
t1=$(now)
replay_ns=$((t1 - t0))

# 2. watch, full screen in tmux, until the footer says the replay ended; then q.
tmux -L "$socket" -u -f /dev/null new-session -d -x 120 -y 40 \
    "'$bin' watch '$log' --speed max --stats 2> '$work/stats'; echo \$? > '$work/status'; sleep 30"
t0=$(now)
ended=""
while [ $(( ($(now) - t0) / 1000000000 )) -lt "$limit" ]; do
    if tmux -L "$socket" capture-pane -p -t 0 | head -n 1 | grep -q "replay ended"; then ended=yes; break; fi
    sleep 0.05
done
t1=$(now)
[ -n "$ended" ] || { echo "watch_bench: the replay did not end within ${limit}s" >&2; exit 1; }
screen=$(tmux -L "$socket" capture-pane -p -t 0)
tmux -L "$socket" send-keys -t 0 q
for _ in $(seq 1 200); do [ -s "$work/status" ] && break; sleep 0.05; done
[ -s "$work/status" ] || { echo "watch_bench: watch did not quit on q" >&2; exit 1; }
[ "$(cat "$work/status")" = 0 ] || { echo "watch_bench: watch exited with $(cat "$work/status")" >&2; cat "$work/stats" >&2; exit 1; }
stats=$(grep -o 'watch stats: .*' "$work/stats")
field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<< " ${stats#watch stats: }"; }

echo "screen at the end (first 3 rows):"
head -n 3 <<< "$screen" | sed 's/^/  | /'
awk -v r="$replay_ns" -v w="$((t1 - t0))" \
    -v ingest="$(field ingest_seconds)" -v lines="$(field lines)" \
    -v feed="$(field feed_seconds)" -v fr="$(field feed_redraws_per_s)" -v fb="$(field feed_bytes_per_s)" \
    -v peak="$(field max_redraws_in_1s)" -v redraws="$(field redraws)" -v bytes="$(field bytes)" \
    -v rows="$(field rows_written)" -v scrolled="$(field scrolled_rows)" -v takes="$(field takes)" 'BEGIN {
    rs = r / 1e9
    printf "replay --format json > /dev/null   %8.3f s  %10.0f lines/s\n", rs, lines / rs
    printf "watch ingest (feed thread)         %8.3f s  %10.0f lines/s  (%.2fx the replay time)\n", ingest, lines / ingest, ingest / rs
    printf "watch until \"replay ended\" shown   %8.3f s  (polled every 50 ms)\n", w / 1e9
    printf "while feeding: %.1f redraws/s (peak %d in any second, cap 30), %.0f terminal bytes/s\n", fr, peak, fb
    printf "whole session: %d redraws, %d bytes, %d rows written, %d rows scrolled, %d change sets taken\n", redraws, bytes, rows, scrolled, takes
}'
echo "$stats"
peak=$(field max_redraws_in_1s)
if [ "$peak" -gt 30 ]; then echo "watch_bench: FAIL: $peak redraws within one second (cap 30)" >&2; exit 1; fi
