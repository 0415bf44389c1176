#!/usr/bin/env bash
# Runs the built test suite in two `swift test` invocations, and when one fails, repeats every failing
# test and its recorded issues at the end of the output, so a CI log that keeps only its tail still
# names what failed and why.
#
# Why two: Swift Testing runs synchronous tests on the cooperative thread pool, one thread per core
# (2 here). The process-driving suites (target CLITests) hold those threads for seconds to minutes
# while their children run, and a test's time limit counts from when it was scheduled, not from when
# it got a thread: in one invocation, second-long unit suites queued behind them for 10 minutes and
# failed their limits on a busy machine. So the in-process suites run first, alone, then CLITests.
# Both always run; the script fails if either did.
#
# Usage: Scripts/run_tests.sh [extra `swift test` arguments, given to both runs]
set -uo pipefail
cd "$(dirname "$0")/.."
SWIFT=${SWIFT:-swift}
mkdir -p .build

# run NAME ARGS...: one `swift test`, its output in .build/test-output-NAME.log; prints the failures.
run() {
	local name=$1
	shift
	local log=.build/test-output-$name.log
	local start=$SECONDS
	echo "── $name: swift test --skip-build $* ──"
	"$SWIFT" test --skip-build "$@" 2>&1 | tee "$log"
	local status=${PIPESTATUS[0]}
	echo "── $name: exit $status after $((SECONDS - start)) s ──"
	if [ "$status" -ne 0 ]; then
		echo
		echo "── failures of $name (from $log) ──────────────────────────────────────────"
		# Swift Testing marks a failed test and each recorded issue with ✘; XCTest prints "error:".
		grep -n -E '✘|: error:|Fatal error|Test Case .* failed|Expectation failed|crashed|signal code' "$log" |
			grep -v -E '^[0-9]+:✘ Test run with' | head -n 14
	fi
	return "$status"
}

run unit --skip '^CLITests\.' "$@"
unit=$?
run processes --filter '^CLITests\.' "$@"
processes=$?
cat .build/test-output-unit.log .build/test-output-processes.log >.build/test-output.log
if [ "$unit" -ne 0 ] || [ "$processes" -ne 0 ]; then
	echo "── swift test failed: in-process suites exit $unit, process-driving suites exit $processes ──"
	exit 1
fi
