#!/usr/bin/env bash
# make bench, part 5: a local `chatcap serve --speed max --loop` into `chatcap capture` (gzip on the ingest
# thread, at the default level 1 (ISA-L) and at --level 6 (zlib); the spool thread only writes), every channel
# of the log joined. Prints lines/s and MB/s into the files and the compression ratio achieved, the capture's
# CPU time per wall second (about 1.0: one core) and lines per CPU second (what a busy machine changes least),
# and serve's CPU per wall second (when neither is near 1.0, other load on the machine sets the pace), then
# the zlib-era figures of the default level for comparison. Every channel of the log is joined (from a
# channels file, at --join-rate 10000 --connect-interval 0, so that 10,000 channels are joined within
# seconds); each row also gives capture's peak RSS and the load average when it ended.
# A second line per run gives the figures once joined (issue #39 item 5): lines/s and lines per CPU
# second from the first --status json object (every 2 s) at which every channel of the log has stored a
# line (its directory and file exist) to the last one before the end. Until then capture mostly creates
# 10,000 directories and files, and on ext4 without a journal (this VM's /tmp) each new inode skips past
# every inode deleted in the last minute or more (perf: find_inode_bit → recently_deleted): right after
# the tree of a run was deleted, creating the next run's takes 5 to 13 s (2 to 5 s some minutes later), so
# the whole-run row says more about the filesystem than about capture. The status objects cost capture
# little (one object of ~1 MB at 10,000 channels every 2 s).
# Each run writes a tree of its own, and every tree is deleted only when the script ends: a run that began by
# deleting the last one's tree paid for it in its own time (ext4's recently_deleted again: three 20 s
# captures one after the other, each after deleting the last tree, stored 5.6 M, 4.3 M and 2.5 M lines, with
# 6.8, 9.7 and 13.7 s of system time; into new trees beside the kept ones, 6.4 M and 6.3 M lines with 6.5
# and 6.9 s). The first run still follows whatever was deleted before the script started. Each row gives
# capture's system time as a share of its CPU, where the filesystem's part shows.
# CAPTURE_BENCH_DIR: where the trees go (default: a new directory under $TMPDIR or /tmp); /dev/shm (tmpfs)
# takes the filesystem out of the figures.
# CAPTURE_BENCH_RUNS: the option sets to run, separated by ';' (default: "; --level 6", the default level
# and level 6), e.g. CAPTURE_BENCH_RUNS='--flush-interval 0.5;--flush-interval 2'.
set -euo pipefail
bin=${1:?usage: capture_bench.sh CHATCAP LOG [SECONDS]}
log=${2:?usage: capture_bench.sh CHATCAP LOG [SECONDS]}
seconds=${3:-10}
dir=$(mktemp -d "${CAPTURE_BENCH_DIR:-${TMPDIR:-/tmp}}/capture-bench.XXXXXX")
# shellcheck source=Benchmarks/stop_jobs.sh
source "$(dirname "$0")/stop_jobs.sh"
trap 'stop_jobs; rm -rf "$dir"' EXIT
grep -o 'PRIVMSG #[a-z0-9_]*' "$log" | cut -d'#' -f2 | sort -u > "$dir/channels"
channel_count=$(wc -l < "$dir/channels")
"$bin" serve "$log" --port 0 --speed max --loop > "$dir/serve.out" 2> /dev/null &
serve_pid=$!
for _ in $(seq 1 100); do [ -s "$dir/serve.out" ] && break; sleep 0.05; done
port=$(head -1 "$dir/serve.out" | sed 's/.*://')
serve_ticks() { awk '{ print $14 + $15 }' "/proc/$serve_pid/stat"; }  # user + system, in clock ticks
runs_done=0
run() {
    runs_done=$((runs_done + 1))
    local cap="$dir/cap-$runs_done"
    local start end lines raw compressed serve0 serve1 user sys rss load
    serve0=$(serve_ticks)
    start=$(date +%s%N)
    /usr/bin/time -f "%U %S %M" -o "$dir/cpu" \
        "$bin" capture --channels-file "$dir/channels" --dir "$cap" --host 127.0.0.1 --port "$port" --plain \
        --join-rate 10000 --connect-interval 0 --duration "$seconds" --status json --status-interval 2 "$@" \
        2> "$dir/status" &
    local time_pid=$! capture_pid=""
    : > "$dir/ticks"
    while kill -0 "$time_pid" 2> /dev/null; do
        # Until time has forked the capture, ps finds no child and fails: not an error (under set -e
        # it ended the bench at random, its capture left running).
        [ -n "$capture_pid" ] || capture_pid=$(ps -o pid= --ppid "$time_pid" | tr -d ' ' || true)
        # Capture's CPU (user + system, clock ticks) against the wall clock, for the joined window.
        [ -z "$capture_pid" ] || awk -v t="$(date +%s.%N)" '{ print t, $14 + $15 }' "/proc/$capture_pid/stat" \
            >> "$dir/ticks" 2> /dev/null || true
        sleep 0.1
    done
    wait "$time_pid"
    end=$(date +%s%N)
    serve1=$(serve_ticks)
    read -r user sys rss < "$dir/cpu"
    load=$(cut -d' ' -f1-3 /proc/loadavg)
    lines=$(zcat "$cap"/*/*.gz | wc -l)
    raw=$(zcat "$cap"/*/*.gz | wc -c)
    compressed=$(cat "$cap"/*/*.gz | wc -c)
    awk -v l="$lines" -v r="$raw" -v c="$compressed" -v ns="$((end - start))" -v what="$*" -v u="$user" -v k="$sys" \
        -v st="$((serve1 - serve0))" -v hz="$(getconf CLK_TCK)" -v rss="$rss" -v load="$load" 'BEGIN {
        s = ns / 1e9
        printf "  %-10s %d lines in %.2f s = %.0f lines/s; %.1f MB/s of log text into %.1f MB of gzip (ratio %.2f:1); %.2f cores (%.0f%% system); %.0f lines/CPU-s; peak RSS %.0f MB; serve %.2f cores; load %s\n",
            (what == "" ? "default" : what), l, s, l / s, r / s / 1e6, c / 1e6, r / c, (u + k) / s, (u + k > 0 ? 100 * k / (u + k) : 0), l / (u + k), rss / 1024, st / hz / s, load }'
    python3 - "$dir/status" "$dir/ticks" "$start" "$channel_count" "$(getconf CLK_TCK)" << 'PY'
import json, sys
status, ticks, start, channels, hz = sys.argv[1], sys.argv[2], int(sys.argv[3]) / 1e9, int(sys.argv[4]), int(sys.argv[5])
points = []  # (uptime s, lines, channels with a line)
for line in open(status):
    if line.startswith('{"type":"capture_status"'):
        o = json.loads(line)
        points.append((o["uptime_s"], o["lines"], sum(1 for c in o["channels"] if c["lines"] > 0 and c["channel"] != "_session")))
cpu = [tuple(map(float, l.split())) for l in open(ticks) if l.strip()]
joined = [i for i, p in enumerate(points) if p[2] >= channels]
# The last object is written at the end (after the files are closed): the window ends at the one before.
if not joined or not cpu or joined[0] >= len(points) - 2:
    print("  once joined: no window (not every channel stored a line two status intervals before the end)")
    sys.exit(0)
a, b = points[joined[0]], points[-2]
def cpu_at(uptime):  # capture's CPU seconds at `uptime` s after the run started (the nearest sample)
    return min(cpu, key=lambda c: abs(c[0] - start - uptime))[1] / hz
lines, wall, used = b[1] - a[1], b[0] - a[0], cpu_at(b[0]) - cpu_at(a[0])
print(f"  once joined ({a[0]:.1f} to {b[0]:.1f} s): {lines / wall:.0f} lines/s; {used / wall:.2f} cores; "
      f"{lines / used if used > 0 else 0:.0f} lines/CPU-s")
PY
    if [ $# -eq 0 ]; then
        # The default level before ISA-L (zlib level 1, issue #16): 252,256 lines/s at 3.67:1.
        awk -v l="$lines" -v r="$raw" -v c="$compressed" -v ns="$((end - start))" 'BEGIN {
            rate = l / (ns / 1e9)
            printf "  %-10s 252256 lines/s (ratio 3.67:1) with zlib level 1; now %.2fx the lines/s at ratio %.2f:1\n",
                "before", rate / 252256, r / c }'
    fi
}
echo "capture: serve $log --speed max → capture of its $channel_count channels for ${seconds}s each, gzip on the ingest thread"
IFS=';' read -r -a runs <<< "${CAPTURE_BENCH_RUNS-; --level 6}"
for options in "${runs[@]}"; do
    # shellcheck disable=SC2086
    run $options
done
