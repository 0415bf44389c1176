#!/usr/bin/env bash
# Every time limit in the process-driving suites (Tests/CLITests) is at least MIN minutes. Swift Testing
# counts a test's limit from when it was scheduled, not from when it got a thread, and `make test`'s
# side-by-side parts run for 5 to 8 minutes on a busy machine: a small suite dealt to a part behind long
# ones waited past its 5-minute limit (ReapChildrenScriptTests and DealSuitesScriptTests, beside two
# `yes` hogs) though each of its tests takes a second. A limit there guards against a hang; it never
# measures speed. Part of `make lint`.
set -euo pipefail
cd "$(dirname "$0")/.."
MIN=${MIN:-20}
status=0
while IFS=: read -r file line text; do
    minutes=$(sed -E 's/.*timeLimit\(\.minutes\(([0-9]+)\)\).*/\1/' <<<"$text")
    if [ "$minutes" -lt "$MIN" ]; then
        echo "$file:$line: a time limit of $minutes minutes in a process-driving suite: at least $MIN (it counts from scheduling)" >&2
        status=1
    fi
done < <(grep -rnE 'timeLimit\(\.minutes\([0-9]+\)\)' Tests/CLITests)
if grep -rnE 'timeLimit\(\.seconds' Tests/CLITests >&2; then
    echo "a time limit in seconds in a process-driving suite: use minutes, at least $MIN" >&2
    status=1
fi
[ "$status" = 0 ] && echo "time limits: every one in Tests/CLITests is at least $MIN minutes"
exit "$status"
