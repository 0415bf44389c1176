#!/usr/bin/env bash
# make instructions: instructions executed per line (valgrind's cachegrind, no cache simulation) for
# `stats`, `replay --format raw` and `replay --format json` over the first N lines of a log, with the
# start-up (the same command on an empty input) subtracted. Deterministic where wall time on a shared
# machine is not, so a change's effect shows in one run; it does not see cache misses (use the wall
# and CPU figures of `make bench` for those). valgrind cannot read Swift's DWARF, so it runs a copy of
# the binary stripped of debug information (symbols kept).
set -euo pipefail
bin=${1:?usage: instructions_bench.sh CHATCAP LOG [LINES]}
log=${2:?usage: instructions_bench.sh CHATCAP LOG [LINES]}
lines=${3:-100000}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
strip --strip-debug -o "$work/chatcap" "$bin"
head -n "$lines" "$log" > "$work/sample.irc"
: > "$work/empty.irc"
count() {  # instructions of: chatcap ARGS...
    valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null "$work/chatcap" "$@" 2>&1 >/dev/null \
        | sed -n 's/.*I *refs: *//p' | tr -d ,
}
n=$(wc -l < "$work/sample.irc")
echo "instructions per line: $n lines of $log, start-up subtracted"
for what in "stats" "replay --format raw" "replay --format json"; do
    # shellcheck disable=SC2086 # $what is split into arguments on purpose
    full=$(count $what "$work/sample.irc")
    # shellcheck disable=SC2086
    empty=$(count $what "$work/empty.irc")
    awk -v w="chatcap $what" -v f="$full" -v e="$empty" -v n="$n" \
        'BEGIN { printf "%-28s %8.0f instructions/line  (start-up %.1f M)\n", w, (f - e) / n, e / 1e6 }'
done
