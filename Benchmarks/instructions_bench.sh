#!/usr/bin/env bash
# make instructions: instructions executed per line (valgrind's cachegrind, no cache simulation) for
# `stats`, `replay --format raw` and `replay --format json` over the first N lines of a log, with the
# start-up (the same command on an empty input) subtracted. Deterministic where wall time on a shared
# machine is not, so a change's effect shows in one run; it does not see cache misses (use the wall
# and CPU figures of `make bench` for those). valgrind cannot read Swift's DWARF, so it runs a copy of
# the binary stripped of debug information (symbols kept).
# With MANY (a log of many channels, the Makefile's 300,000 lines over 1,000), it then compares one
# channel holding every line with the same lines over their channels (`replay --format json
# --capacity` the line count, so that every line stays): the lines are the same but for the channel
# name, rewritten to one. Moderation finds its targets through an index, so the one channel may cost
# no more than the many (issue 26: within 1.1x; a pass over the ring per CLEARMSG/CLEARCHAT made it 1.42x).
set -euo pipefail
usage="usage: instructions_bench.sh CHATCAP LOG [LINES [MANY]]"
bin=${1:?$usage}
log=${2:?$usage}
lines=${3:-100000}
many=${4:-}
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
[ -n "$many" ] || exit 0
# The same lines in one channel: the first ` #channel` of each line (the channel parameter: tags hold
# no space, and the command comes before the text) becomes ` #one`.
sed -E 's/ #[^ ]+/ #one/' "$many" > "$work/one.irc"
m=$(wc -l < "$many")
echo "one channel holding $m lines against the same lines over their channels (replay --format json --capacity $m)"
empty=$(count replay --format json --capacity "$m" "$work/empty.irc")
spread=$(count replay --format json --capacity "$m" "$many")
one=$(count replay --format json --capacity "$m" "$work/one.irc")
awk -v n="$m" -v e="$empty" -v s="$spread" -v o="$one" 'BEGIN {
    printf "%-28s %8.0f instructions/line\n", "over its channels", (s - e) / n
    printf "%-28s %8.0f instructions/line  %.2fx  (target: within 1.1x)\n", "in one channel", (o - e) / n, (o - e) / (s - e) }'
