#!/usr/bin/env bash
# Instructions per line of the parser's steps (valgrind's cachegrind, no cache simulation), from
# ChatBench's rows run once each over the first N lines of a log: framing alone, then frame + parse,
# + every tag split (spans plus each tag's key and raw value, split in the parse's own pass over the
# tag section: the like-for-like row against tmi-rs's parser), the same spans and tags in two passes
# (parse, then a TagCursor walk), + Twitch tags (the tag slots every command reads), + the Twitch
# view. Reading the input is subtracted (`--step read`). Deterministic, unlike wall time on a shared
# machine. The last column leaves out, as well, the copy of the input into the framer's buffer that
# ChatBench makes (`--step copy`; a real run's read(2) writes there, in the kernel): memcpy's
# `rep movsb`, which valgrind counts once per byte.
set -euo pipefail
bench=${1:?usage: parser_instructions.sh CHATBENCH LOG [LINES]}
log=${2:?usage: parser_instructions.sh CHATBENCH LOG [LINES]}
lines=${3:-100000}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
strip --strip-debug -o "$work/ChatBench" "$bench"
head -n "$lines" "$log" > "$work/sample.irc"
count() {  # instructions of: ChatBench sample --step STEP
    valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null \
        "$work/ChatBench" "$work/sample.irc" --step "$1" 2>&1 >/dev/null | sed -n 's/.*I *refs: *//p' | tr -d ,
}
n=$(wc -l < "$work/sample.irc")
base=$(count read)
copy=$(count copy)
frame=$(count frame)
echo "parser instructions per line: $n lines of $log (reading the input subtracted)"
for step in frame parse split cursor twitch view; do
    total=$(count "$step")
    awk -v s="$step" -v t="$total" -v b="$base" -v c="$copy" -v f="$frame" -v n="$n" \
        'BEGIN { printf "%-8s %7.0f instructions/line  (%7.0f without framing, %7.0f without the copy into the framer)\n", s, (t - b) / n, (t - f) / n, (t - c) / n }'
done
