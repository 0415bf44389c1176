#!/usr/bin/env bash
# The memory budget (issue #26 item 8): `chatcap tail` of every channel of LOG, served by a local
# `chatcap serve LOG --speed max --loop`, for SECONDS once every channel is joined, with
# `--memory-budget BUDGET` (1G is the default; 1024G is in effect none). Prints tail's lines/s, its
# peak RSS (VmHWM, sampled every 10 s too) and what the budget trimmed (its summary line), and the
# lines serve sent on the connections tail closed against the lines tail read.
#   Benchmarks/budget_bench.sh .build/release/chatcap LOG 1G 40
set -euo pipefail
bin=${1:?usage: budget_bench.sh CHATCAP LOG BUDGET [SECONDS]}
log=${2:?usage: budget_bench.sh CHATCAP LOG BUDGET [SECONDS]}
budget=${3:?usage: budget_bench.sh CHATCAP LOG BUDGET [SECONDS]}
seconds=${4:-40}
dir=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$dir"' EXIT
grep -o 'PRIVMSG #[a-z0-9_]*' "$log" | cut -d'#' -f2 | sort -u > "$dir/channels.txt"
count=$(wc -l < "$dir/channels.txt")
rss_of() { awk '/VmHWM/ { printf "%.1f", $2 / 1024 }' "/proc/$1/status"; }

"$bin" serve "$log" --port 0 --speed max --loop > "$dir/serve.out" 2> "$dir/serve.err" &
server=$!
for _ in $(seq 1 200); do [ -s "$dir/serve.out" ] && break; sleep 0.05; done
port=$(head -1 "$dir/serve.out" | sed 's/.*://')
"$bin" tail --channels-file "$dir/channels.txt" --host 127.0.0.1 --port "$port" --plain --join-rate 10000 \
    --connect-interval 0 --format json --stats --memory-budget "$budget" --duration $((seconds + 120)) \
    > /dev/null 2> "$dir/tail.err" &
tail_pid=$!
for _ in $(seq 1 2400); do grep -q 'channels joined in' "$dir/tail.err" && break; sleep 0.05; done
for i in $(seq 1 "$seconds"); do
    sleep 1
    if [ $((i % 10)) -eq 0 ]; then echo "  at ${i} s: tail VmHWM $(rss_of "$tail_pid") MiB"; fi
done
tail_rss=$(rss_of "$tail_pid")
kill -INT "$tail_pid"
wait "$tail_pid" || true
echo "tail of $count channels, --memory-budget $budget, ${seconds} s after all joined: peak RSS $tail_rss MiB"
grep -E 'channels joined in|stats:|memory budget' "$dir/tail.err" | sed 's/^chatcap: /  /'
sleep 1
# serve says, for each connection that closed, how many lines it sent: against tail's lines read.
sent=$(grep -o 'disconnected: [0-9]* lines sent' "$dir/serve.err" | awk '{ s += $2 } END { print s + 0 }')
read=$(grep -o 'stats: [0-9]* lines in' "$dir/tail.err" | head -1 | awk '{ print $2 }')
echo "  serve sent $sent lines on the connections tail closed; tail read $read"
kill -INT "$server"
wait "$server" 2> /dev/null || true
