#!/usr/bin/env bash
# make bench, part 2: replay of a generated gzip log (decompressed by ISA-L) to typed NDJSON into /dev/null,
# against `zcat FILE | wc -l` (zlib-era floor) and `igzip -dc FILE | wc -l` (ISA-L's floor) measured in the
# same run. Prints lines/s, MB/s (uncompressed input) and CPU.
set -euo pipefail
bin=${1:?usage: replay_bench.sh CHATCAP FILE.gz}
log=${2:?usage: replay_bench.sh CHATCAP FILE.gz}
lines=$(zcat "$log" | wc -l)
bytes=$(zcat "$log" | wc -c)

measure() {  # best wall time of 3 runs, in seconds
    local best=999999999999999
    for _ in 1 2 3; do
        local t0 t1
        t0=$(date +%s%N)
        bash -c "$1" > /dev/null
        t1=$(date +%s%N)
        best=$(( (t1 - t0) < best ? (t1 - t0) : best ))
    done
    echo "$best"
}

report() {  # name nanoseconds
    awk -v n="$1" -v ns="$2" -v lines="$lines" -v bytes="$bytes" 'BEGIN {
        s = ns / 1e9
        printf "%-44s %7.3f s  %9.0f lines/s  %7.1f MB/s\n", n, s, lines / s, bytes / s / 1e6 }'
}

echo "replay: $log: $lines lines, $((bytes / 1000000)) MB uncompressed; best of 3 runs"
floor=$(measure "zcat '$log' | wc -l")
report "zcat | wc -l (floor)" "$floor"
if command -v igzip > /dev/null; then
    isal_floor=$(measure "igzip -dc '$log' | wc -l")
    report "igzip -dc | wc -l (ISA-L floor)" "$isal_floor"
else
    isal_floor=
    echo "igzip -dc | wc -l: igzip not installed (make deps installs isal)"
fi
for format in json irc raw; do
    t=$(measure "'$bin' replay '$log' --format $format > /dev/null")
    report "chatcap replay --format $format > /dev/null" "$t"
    if [ "$format" = json ]; then
        awk -v a="$t" -v b="$floor" 'BEGIN { printf "  json replay / zcat floor: %.2fx\n", a / b }'
        [ -n "$isal_floor" ] && awk -v a="$t" -v b="$isal_floor" 'BEGIN { printf "  json replay / igzip floor: %.2fx\n", a / b }'
        awk -v ns="$t" -v lines="$lines" 'BEGIN {
            r = lines / (ns / 1e9)
            printf "  json replay from .gz: %.0f lines/s (target >= 1000000: %s)\n", r, (r >= 1000000) ? "met" : "not met" }'
    fi
done

# The plain file next to it (if present): replay json/raw against `chatcap stats`, CPU time (user + sys,
# steadier than wall time on a shared machine), best of 3.
plain=${log%.gz}
[ -f "$plain" ] || exit 0
cpu() {  # best user+sys seconds of 3 runs
    local best=999999
    for _ in 1 2 3; do
        /usr/bin/time -f "%U %S" -o /tmp/replay_bench.$$ bash -c "$1" > /dev/null
        best=$(awk -v b="$best" '{ s = $1 + $2; print (s < b) ? s : b }' /tmp/replay_bench.$$)
    done
    rm -f /tmp/replay_bench.$$
    echo "$best"
}
echo "plain: $plain; CPU time, best of 3 runs"
for what in "stats" "replay --format json" "replay --format raw"; do
    c=$(cpu "'$bin' $what '$plain'")
    awk -v n="chatcap $what" -v s="$c" -v lines="$lines" 'BEGIN { printf "%-44s %7.3f s  %9.0f lines/s (CPU)\n", n, s, lines / s }'
done
