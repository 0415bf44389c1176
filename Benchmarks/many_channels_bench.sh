#!/usr/bin/env bash
# make bench, part 5: many channels live. A local `chatcap serve LOG --speed max --loop` (plain TCP) of a
# log of CHANNELS channels, read
#   1. by `chatcap tail --channels-file --format json > /dev/null` (pooled: ≤ 90 channels a connection),
#   2. by Benchmarks/raw_reader.py (the same connections and JOINs, lines only counted),
# each for SECONDS once every channel is joined, against a fresh server. Prints lines/s once all are
# joined, the time to join all, and the CPU and peak RSS of both processes, so that it is clear which
# side limits. The JOIN pace is raised for the local server (--join-rate 2000 --connect-interval 0.1,
# what a verified bot may do); against Twitch keep the defaults.
set -euo pipefail
bin=${1:?usage: many_channels_bench.sh CHATCAP LOG [SECONDS]}
log=${2:?usage: many_channels_bench.sh CHATCAP LOG [SECONDS]}
seconds=${3:-10}
here=$(cd "$(dirname "$0")" && pwd)
dir=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$dir"' EXIT
grep -o 'PRIVMSG #[a-z0-9_]*' "$log" | cut -d'#' -f2 | sort -u > "$dir/channels.txt"
count=$(wc -l < "$dir/channels.txt")

# CPU seconds (user + system) and peak RSS (MiB) of a running process, from /proc.
cpu_of() { awk -v hz="$(getconf CLK_TCK)" '{ printf "%.2f", ($14 + $15) / hz }' "/proc/$1/stat"; }
rss_of() { awk '/VmHWM/ { printf "%.1f", $2 / 1024 }' "/proc/$1/status"; }

start_server() {
    "$bin" serve "$log" --port 0 --speed max --loop > "$dir/serve.out" 2> /dev/null &
    server=$!
    for _ in $(seq 1 200); do [ -s "$dir/serve.out" ] && break; sleep 0.05; done
    port=$(head -1 "$dir/serve.out" | sed 's/.*://')
}

report_server() {
    echo "  serve: CPU $(cpu_of "$server") s over the whole run ($1 s), peak RSS $(rss_of "$server") MiB"
    kill "$server"
    wait "$server" 2> /dev/null || true
}

echo "many channels: serve $log ($count channels) --speed max --loop, plain TCP; ${seconds} s after all are joined"

start_server
t0=$(date +%s.%N)
"$bin" tail --channels-file "$dir/channels.txt" --host 127.0.0.1 --port "$port" --plain --join-rate 2000 \
    --connect-interval 0.1 --format json --stats --duration $((seconds + 30)) > /dev/null 2> "$dir/tail.err" &
tail_pid=$!
# Stop tail SECONDS after it reported that every channel is joined (or at its --duration).
for _ in $(seq 1 600); do grep -q 'channels joined in' "$dir/tail.err" && break; sleep 0.05; done
sleep "$seconds"
tail_cpu=$(cpu_of "$tail_pid"); tail_rss=$(rss_of "$tail_pid")
kill -INT "$tail_pid"; wait "$tail_pid" || true
t1=$(date +%s.%N)
echo "chatcap tail --channels-file (json > /dev/null):"
grep -E 'channels joined in|stats:' "$dir/tail.err" | sed 's/^chatcap: /  /'
echo "  tail: CPU $tail_cpu s, peak RSS $tail_rss MiB"
report_server "$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')"

start_server
t0=$(date +%s.%N)
echo "raw reader (Benchmarks/raw_reader.py, same connections, lines counted only):"
python3 "$here/raw_reader.py" 127.0.0.1 "$port" "$dir/channels.txt" --seconds "$seconds" | sed 's/^/  /'
t1=$(date +%s.%N)
report_server "$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')"
