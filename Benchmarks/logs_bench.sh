#!/usr/bin/env bash
# `make bench-logs`: chatcap logs over a generated capture directory (Benchmarks/generate_logs_archive.py:
# DAYS days of one busy channel of LINES lines a day plus QUIET quiet channels), the requests issue #36
# names, each ROUNDS times; prints each one's answer size, first byte and total (p50 and worst), and
# for the day lines per second; then 100 concurrent clients (p50 and p99).
# The files are in the page cache (just written). The month indexes are built ahead in the background
# from start (the time is printed); "first request of a new process" is a fresh process over the index
# on disk, not a cold disk. Then the same archive loaded (chatcap load --once) into a throwaway ClickHouse
# (Scripts/clickhouse_test_server.sh: Debian's 18.16 on free ports of 127.0.0.1) and the same requests
# of `chatcap logs --clickhouse`, side by side; CLICKHOUSE=0 skips that side.
set -euo pipefail
bin=${1:?usage: logs_bench.sh CHATCAP [DAYS] [LINES] [QUIET] [ROUNDS]}
days=${2:-30}
lines=${3:-100000}
quiet=${4:-200}
rounds=${5:-5}
dir=$(mktemp -d)
pid=""
chpid=""
chlogs=""
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; [ -n "$chlogs" ] && kill "$chlogs" 2>/dev/null;
      [ -n "$chpid" ] && kill "$chpid" 2>/dev/null && wait "$chpid" 2>/dev/null; rm -rf "$dir"' EXIT
here=$(cd "$(dirname "$0")" && pwd)
start=$(date +%s)
python3 "$here/generate_logs_archive.py" "$dir/archive" "$days" "$lines" "$quiet"
echo "archive: $(du -sh "$dir/archive" | cut -f1) gzip in $(( $(date +%s) - start )) s"

# start_dir: chatcap logs --dir over the archive in the background ($pid, $url).
start_dir() {
    "$bin" logs --dir "$dir/archive" --http-port 0 2> "$dir/err" &
    pid=$!
    for _ in $(seq 1 200); do grep -q "listening on" "$dir/err" 2>/dev/null && break; sleep 0.05; done
    url=$(grep -o 'http://[^ ]*/' "$dir/err")
}
start_dir

# measure NAME PATH [LINES]: ROUNDS requests of $url; p50 of the first byte, p50 and worst of the total, the
# size, and with LINES the lines per second at the p50 total.
measure() {
    local name=$1 path=$2 count=${3:-0}
    for _ in $(seq 1 "$rounds"); do
        curl -s -o /dev/null -w '%{time_starttransfer} %{time_total} %{size_download}\n' "$url$path"
    done > "$dir/times"
    local ttfb total worst size
    ttfb=$(cut -d' ' -f1 "$dir/times" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] * 1000 }')
    total=$(cut -d' ' -f2 "$dir/times" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] * 1000 }')
    worst=$(cut -d' ' -f2 "$dir/times" | sort -n | tail -1 | awk '{ print $1 * 1000 }')
    size=$(tail -1 "$dir/times" | cut -d' ' -f3)
    printf '%-54s %11d B  first byte p50 %7.1f ms  total p50 %8.1f ms  worst %8.1f ms' \
        "$name" "$size" "$ttfb" "$total" "$worst"
    if [ "$count" -gt 0 ]; then awk -v n="$count" -v t="$total" 'BEGIN { printf "  %.2f M lines/s", n / t / 1000 }'; fi
    printf '\n'
}
# A day in the middle of the archive (its last day is 2025-11-29).
day=$(date -u -d "@$((1764460800 - (days / 2 + 1) * 86400))" +%Y/%-m/%-d)
quietday=$day
# The month indexes are built ahead in the background from start ("month index: built N in S s").
for _ in $(seq 1 1200); do grep -q "month index: built" "$dir/err" 2>/dev/null && break; sleep 0.1; done
echo "month indexes built ahead after start: $(grep -o 'built [0-9]* in [0-9.]* s' "$dir/err" | head -1)"
first=$(curl -s -o /dev/null -w '%{time_total}' "${url}channel/busy/user/user1/2025/11")
awk -v t="$first" 'BEGIN { printf "%-54s first request of the process: %.1f ms\n", "user'"'"'s month (user1, busy)", t * 1000 }'
# Cold: a new process, the index on disk, its first request.
kill -INT "$pid"
wait "$pid" || true
start_dir
first=$(curl -s -o /dev/null -w '%{time_total}' "${url}channel/busy/user/user4242/2025/11")
awk -v t="$first" 'BEGIN { printf "%-54s first request of a new process: %.1f ms\n", "user'"'"'s month (user4242, busy)", t * 1000 }'
measure "user's month (user1, busy)" "channel/busy/user/user1/2025/11"
measure "user's month (user4242, busy)" "channel/busy/user/user4242/2025/11"
measure "channel's day (busy, text)" "channel/busy/$day" "$lines"
measure "channel's day (busy, ?json)" "channel/busy/$day?json" "$lines"
measure "channel's day (busy, ?reverse&limit=50)" "channel/busy/$day?reverse&limit=50"
measure "search in a user's logs (user1)" "channel/busy/user/user1/search?q=based"
measure "quiet channel's day" "channel/quiet$(printf %03d $((7 % quiet)))/$day"

# concurrent NAME: 100 concurrent clients, each asking for a quiet channel's day.
concurrent() {
    for i in $(seq 0 99); do printf 'quiet%03d\n' $((i % quiet)); done \
        | xargs -P 100 -I{} curl -s -o /dev/null -w '%{time_total}\n' "${url}channel/{}/$quietday" 2>/dev/null \
        | sort -n | awk -v name="$1" '{ t[NR] = $1 } END { printf "%-54s p50 %.1f ms  p99 %.1f ms  (%d answers)\n", name, t[int((NR + 1) / 2)] * 1000, t[int(NR * 0.99 + 0.5)] * 1000, NR }'
}
concurrent "100 concurrent clients (quiet days)"
echo "peak RSS of chatcap logs: $(grep VmHWM /proc/$pid/status | awk '{print $2 / 1024 " MiB"}')"
kill -INT "$pid"
wait "$pid" || true
pid=""

[ "${CLICKHOUSE:-1}" = 0 ] && exit 0
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
http=$(free_port)
tcp=$(free_port)
"$here/../Scripts/clickhouse_test_server.sh" "$dir/clickhouse" "$http" "$tcp" 2> "$dir/ch.err" &
chpid=$!
churl="http://127.0.0.1:$http/"
for _ in $(seq 1 300); do curl -sf -o /dev/null "${churl}ping" && break; sleep 0.1; done
"$here/../Scripts/clickhouse_schema.sh" "$churl"
start=$(date +%s)
"$bin" load "$dir/archive" --clickhouse "$churl" --once --status none
rows=$(curl -s "$churl" --data-binary 'SELECT count() FROM chat.lines')
echo "clickhouse: $rows rows loaded in $(( $(date +%s) - start )) s (18.16, $churl)"
"$bin" logs --clickhouse "$churl" --http-port 0 2> "$dir/cherr" &
chlogs=$!
for _ in $(seq 1 200); do grep -q "listening on" "$dir/cherr" 2>/dev/null && break; sleep 0.05; done
churl=$(grep -o 'http://[^ ]*/' "$dir/cherr" | head -1)
# The same requests of both stores, one after the other: dir, then clickhouse.
for store in dir clickhouse; do
    if [ "$store" = dir ]; then
        "$bin" logs --dir "$dir/archive" --http-port 0 2> "$dir/err" &
        pid=$!
        for _ in $(seq 1 200); do grep -q "listening on" "$dir/err" 2>/dev/null && break; sleep 0.05; done
        url=$(grep -o 'http://[^ ]*/' "$dir/err")
    else
        url=$churl
    fi
    measure "$store: user's month (user1, busy)" "channel/busy/user/user1/2025/11"
    measure "$store: user's month (user4242, busy)" "channel/busy/user/user4242/2025/11"
    measure "$store: channel's day (busy, text)" "channel/busy/$day" "$lines"
    measure "$store: channel's day (busy, ?json)" "channel/busy/$day?json" "$lines"
    measure "$store: channel's day (busy, ?reverse&limit=50)" "channel/busy/$day?reverse&limit=50"
    measure "$store: quiet channel's day" "channel/quiet$(printf %03d $((7 % quiet)))/$day"
    measure "$store: search in a user's logs (user1)" "channel/busy/user/user1/search?q=based"
    concurrent "$store: 100 concurrent clients (quiet days)"
done
echo "peak RSS of chatcap logs --clickhouse: $(grep VmHWM /proc/$chlogs/status | awk '{print $2 / 1024 " MiB"}')"
kill -INT "$pid" "$chlogs"
wait "$pid" "$chlogs" || true
pid=""
chlogs=""
