#!/usr/bin/env bash
# `make bench-http`: does a hostile HTTP client slow capture's ingest? A local `chatcap serve --speed max
# --loop` into `chatcap capture` (every channel of the log joined) for SECONDS, three ways, each run
# ROUNDS times interleaved (a shared machine drifts; compare rounds, not single runs):
#   plain     no --http-port (no listener, no rings, no counters)
#   http      --http-port, nobody asking (the rings and counters on the ingest path)
#   flood     --http-port with 1,000 idle connections (re-opened as the listener closes them), 100
#             slowloris connections (a request header line every 2 s, never finished), and a scrape of
#             /metrics and a recent-messages request every second
# Prints lines/s into the files, the capture's CPU per wall second and lines per CPU second (on a busy
# machine serve often sets the pace: capture below one core, so lines/CPU-s is the steadier figure), and
# for the flood the most descriptors capture held (libmicrohttpd keeps at most 512 connections, 256 from
# one address); then each mode's medians against plain's and http's.
set -euo pipefail
bin=${1:?usage: http_flood_bench.sh CHATCAP LOG [SECONDS] [ROUNDS]}
log=${2:?usage: http_flood_bench.sh CHATCAP LOG [SECONDS] [ROUNDS]}
seconds=${3:-8}
rounds=${4:-3}
dir=$(mktemp -d)
# shellcheck source=Benchmarks/stop_jobs.sh
source "$(dirname "$0")/stop_jobs.sh"
trap 'stop_jobs; rm -rf "$dir"' EXIT
channels=$(set +o pipefail; head -c 4000000 "$log" | grep -o 'PRIVMSG #[a-z0-9_]*' | cut -d'#' -f2 | sort -u | tr '\n' ' ')
first=$(echo "$channels" | cut -d' ' -f1)
"$bin" serve "$log" --port 0 --speed max --loop > "$dir/serve.out" 2> /dev/null &
for _ in $(seq 1 100); do [ -s "$dir/serve.out" ] && break; sleep 0.05; done
port=$(head -1 "$dir/serve.out" | sed 's/.*://')

cat > "$dir/flood.py" <<'EOF'
import resource, socket, sys, time, urllib.request
port, seconds, channel = int(sys.argv[1]), float(sys.argv[2]), sys.argv[3]
resource.setrlimit(resource.RLIMIT_NOFILE, (4096, 4096))
def connect():
    s = socket.socket()
    s.setblocking(False)
    try:
        s.connect(("127.0.0.1", port))
    except BlockingIOError:
        pass
    return s
idle = [connect() for _ in range(1000)]
slow = [connect() for _ in range(100)]
end = time.time() + seconds
tick = 0
while time.time() < end:
    time.sleep(1)
    tick += 1
    for i, s in enumerate(idle):          # re-open what the listener closed
        try:
            if s.recv(1, socket.MSG_PEEK) == b"":
                s.close(); idle[i] = connect()
        except BlockingIOError:
            pass
        except OSError:
            s.close(); idle[i] = connect()
    if tick % 2 == 0:
        for i, s in enumerate(slow):
            try:
                s.send(b"GET /metrics HTTP/1.1\r\n" if tick == 2 else b"X-Slow: %d\r\n" % tick)
            except OSError:
                s.close(); slow[i] = connect()
    for url in ("/metrics", "/api/v2/recent-messages/" + channel):
        try:
            urllib.request.urlopen("http://127.0.0.1:%d%s" % (port, url), timeout=1).read()
        except Exception:
            pass
EOF

run() {
    local mode=$1
    rm -rf "$dir/cap"
    local args=()
    [ "$mode" != plain ] && args=(--http-port 0)
    local peak=0
    # shellcheck disable=SC2086
    /usr/bin/time -f "%U %S %e" -o "$dir/cpu" "$bin" capture $channels --dir "$dir/cap" --host 127.0.0.1 \
        --port "$port" --plain --duration "$seconds" "${args[@]}" 2> "$dir/capture.err" &
    local pid=$!
    if [ "$mode" = flood ]; then
        local http=""
        for _ in $(seq 1 100); do
            http=$(grep -o 'listening on http://127.0.0.1:[0-9]*' "$dir/capture.err" | sed 's/.*://' || true)
            [ -n "$http" ] && break
            sleep 0.05
        done
        python3 "$dir/flood.py" "$http" "$seconds" "$first" &
        local child
        child=$(pgrep -P "$pid" chatcap || echo "$pid")
        while kill -0 "$pid" 2> /dev/null; do
            local n
            n=$(ls "/proc/$child/fd" 2> /dev/null | wc -l || echo 0)
            [ "$n" -gt "$peak" ] && peak=$n
            sleep 0.5
        done
    fi
    wait "$pid"
    # Elapsed as time(1) saw it: the descriptor polling above notices the exit up to 0.5 s late.
    read -r user sys elapsed < "$dir/cpu"
    local lines
    lines=$(zcat "$dir"/cap/*/*.gz | wc -l)
    awk -v l="$lines" -v e="$elapsed" -v u="$user" -v k="$sys" -v m="$mode" -v p="$peak" 'BEGIN {
        s = e
        printf "  %-6s %9d lines in %.2f s = %8.0f lines/s; %.2f cores = %7.0f lines/CPU-s%s\n", m, l, s, l / s,
            (u + k) / s, l / (u + k), (m == "flood" ? sprintf("; at most %d descriptors", p) : "") }' \
        | tee -a "$dir/results"
}
echo "http flood: serve $log --speed max → capture ($channels) for ${seconds}s, $rounds rounds"
for _ in $(seq 1 "$rounds"); do
    run plain
    run http
    run flood
done
median() { grep "^  $1 " "$dir/results" | awk -v f="$2" '{ print $f }' | sort -n | sed -n "$(((rounds + 1) / 2))p"; }
for field in 8 13; do
    unit=$([ "$field" = 8 ] && echo "lines/s" || echo "lines/CPU-s")
    awk -v p="$(median plain $field)" -v h="$(median http $field)" -v f="$(median flood $field)" -v u="$unit" 'BEGIN {
        printf "  median %s: plain %.0f, http %.0f (%.3f of plain), flood %.0f (%.3f of plain, %.3f of http)\n",
            u, p, h, h / p, f, f / p, f / h }'
done
