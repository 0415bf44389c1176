#!/usr/bin/env bash
# Runs the built test suite and, when it fails, repeats every failing test and its recorded issues at
# the end of the output, so a CI log that keeps only its tail still names what failed and why.
# Usage: Scripts/run_tests.sh [extra `swift test` arguments]
set -uo pipefail
cd "$(dirname "$0")/.."
SWIFT=${SWIFT:-swift}
mkdir -p .build
log=.build/test-output.log

"$SWIFT" test --skip-build "$@" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
if [ "$status" -ne 0 ]; then
	echo
	echo "── failures (from $log) ──────────────────────────────────────────────"
	# swift-testing marks a failed test and each recorded issue with ✘; XCTest prints "error:".
	grep -n -E '✘|: error:|Fatal error|Test Case .* failed|Expectation failed|crashed|signal code' "$log" |
		grep -v -E '^[0-9]+:✘ Test run with' | head -n 14
	echo "── swift test exited with $status ──"
fi
exit "$status"
