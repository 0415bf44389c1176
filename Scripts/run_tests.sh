#!/usr/bin/env bash
# Runs the built test suite, and when a part fails, repeats every failing test and its recorded issues
# at the end of the output, so a CI log that keeps only its tail still names what failed and why.
#
# Swift Testing runs synchronous tests on the cooperative thread pool, one thread per core (2 here),
# and a test's time limit counts from when it was scheduled, not from when it got a thread. The
# process-driving suites (target CLITests) hold those threads for seconds to minutes while their
# children run, mostly waiting: in one invocation, second-long unit suites queued behind them for
# 10 minutes and failed their limits on a busy machine, and the cores sat idle. So:
#   1. the in-process suites run first, alone;
#   2. then CLITests, its suites dealt by their times to CLI_SHARDS invocations that run side by side
#      (each its own process and pool), every suite whole in one of them; beside them the command
#      in $TSAN if set (`make test` gives `make tsan`: the ThreadSanitizer build of Tests/StressChecks
#      and its run, which fill the cores the process-driving tests leave idle).
# Every part always runs; the script fails if any did. Each part's output is kept in
# .build/test-output-PART.log and printed whole once the part ends. The parts run the built test
# bundle directly (`swift test` holds a lock on .build, so side-by-side invocations of it would wait
# for each other).
#
# Usage: Scripts/run_tests.sh [extra arguments for the test bundle, given to every part]
set -uo pipefail
cd "$(dirname "$0")/.."
SWIFT=${SWIFT:-swift}
CLI_SHARDS=${CLI_SHARDS:-3}
# TEST_OUTPUT_DIR and TEST_BUNDLE stand in for .build and the package's bundle (RunTestsScriptTests).
out=${TEST_OUTPUT_DIR:-.build}
mkdir -p "$out"
rm -f "$out"/test-output-*.log "$out"/test-output-*.status
bundle=${TEST_BUNDLE:-"$("$SWIFT" build --show-bin-path)/chatcapPackageTests.xctest"}
# Every run of the test bundle gets a temporary directory of its own (TMPDIR), checked once the parts end:
# whatever a test left there is named and fails the script (a suite's fixtures kept in a static, and the
# folder chromium keeps its singleton socket in, were left in /tmp by every run), and the directories go
# when the script ends (KEEP_TEST_DIRS=1 keeps them). Open to every user like /tmp (mode 1777): a test's
# child that drops root to nobody makes its files there.
run_tmp=$(mktemp -d "${TMPDIR:-/tmp}/chatcap-tests.XXXXXX")
chmod 1777 "$run_tmp"
trap '[ -n "${KEEP_TEST_DIRS:-}" ] || rm -rf "$run_tmp"' EXIT
if [ ! -x "$bundle" ]; then
	echo "── $bundle is missing: build it first (swift build --build-tests) ──"
	exit 1
fi

# failures LOG: the failing tests and their issues in LOG.
failures() {
	# Swift Testing marks a failed test and each recorded issue with ✘; XCTest prints "error:".
	grep -n -E '✘|: error:|Fatal error|Test Case .* failed|Expectation failed|crashed|signal code' "$1" |
		grep -v -E '^[0-9]+:✘ Test run with' | head -n 14
}

# part NAME ARGS...: one run of the test bundle, its output in $out/test-output-NAME.log; its exit
# status and time in $out/test-output-NAME.status.
#
# Every part runs under `timeout PART_LIMIT` (seconds, default 2400): many in-process suites have no
# time limit of their own (they take milliseconds), so a hang anywhere ends the part, marked as timed
# out, well inside CI's 90 minutes, instead of holding the run until CI kills it without a word.
# Each part runs under Scripts/reap_children.py: the peers a test leaves running when it traps (or
# when `timeout` ends the bundle) are stopped by PID when the part ends, and named at the end of its
# log ("reap_children: stopped pid …"), instead of running on, adopted by init, beside the next parts.
PART_LIMIT=${PART_LIMIT:-2400}
part() {
	local name=$1
	shift
	local start=$SECONDS
	mkdir -p -m 1777 "$run_tmp/$name"
	TMPDIR="$run_tmp/$name" python3 Scripts/reap_children.py timeout --kill-after=30 "$PART_LIMIT" "$bundle" \
		--testing-library swift-testing "$@" </dev/null >"$out/test-output-$name.log" 2>&1
	finished "$name" $? "$start"
}

# finished NAME STATUS START: records a part's exit status and time; says so when `timeout` ended it.
finished() {
	if [ "$2" -eq 124 ] || [ "$2" -eq 137 ]; then
		echo "✘ $1 timed out: still running after PART_LIMIT=$PART_LIMIT s (a hang; the log above shows what ran last)" \
			>>"$out/test-output-$1.log"
	fi
	echo "$2 $((SECONDS - $3))" >"$out/test-output-$1.status"
}

# report NAME: prints a finished part's output, its status line, and its failures.
report() {
	local name=$1 status seconds
	read -r status seconds <"$out/test-output-$name.status"
	cat "$out/test-output-$name.log"
	echo "── $name: exit $status after $seconds s ──"
	if [ "$status" -ne 0 ]; then
		echo "── failures of $name (from $out/test-output-$name.log) ──────────────────────────────"
		failures "$out/test-output-$name.log"
	fi
	return "$status"
}

# command NAME COMMAND: like `part`, for a shell command.
command_part() {
	local name=$1 start=$SECONDS
	timeout --kill-after=30 "$PART_LIMIT" bash -c "$2" </dev/null >"$out/test-output-$name.log" 2>&1
	finished "$name" $? "$start"
}

failed=()
echo "── unit: the in-process suites ──"
part unit --skip '^CLITests\.' "$@"
report unit || failed+=(unit)

# Suites with a make target of their own, too long for every run: left out here by name.
export SEPARATE_SUITES=${SEPARATE_SUITES:-ClusterLoadTests}
mapfile -t suites < <(Scripts/cli_suites.sh "$bundle")
echo "── left out (own make targets): $SEPARATE_SUITES ──"
if [ "${#suites[@]}" -eq 0 ]; then
	echo "── no CLITests suite found by swift test list ──"
	exit 1
fi
names=()
if [ -n "${TSAN:-}" ]; then
	echo "── tsan: $TSAN ──"
	command_part tsan "$TSAN" &
	names+=(tsan)
fi
# The suites are dealt by their times alone (Scripts/cli_suite_seconds.txt, `make suite-times`), the
# longest first, each to the part with the least so far (Scripts/deal_suites.py), so that the parts
# end together: dealt round-robin by name, one part ran 349 s and another 217 s (fresh-clone run Q13).
mapfile -t dealt < <(printf '%s\n' "${suites[@]}" | python3 Scripts/deal_suites.py "$CLI_SHARDS" Scripts/cli_suite_seconds.txt)
for ((shard = 0; shard < CLI_SHARDS; shard++)); do
	read -r -a picked <<<"${dealt[shard]:-}"
	seconds=${picked[0]:-0}
	picked=("${picked[@]:1}")
	[ "${#picked[@]}" -gt 0 ] || continue
	filter="^CLITests\\.($(
		IFS='|'
		echo "${picked[*]}"
	))/"
	echo "── processes-$shard: ${#picked[@]} suites, ${seconds} s alone: ${picked[*]} ──"
	part "processes-$shard" --filter "$filter" "$@" &
	names+=("processes-$shard")
done
wait
for name in "${names[@]}"; do report "$name" || failed+=("$name"); done

cat "$out"/test-output-*.log >"$out/test-output.log"
echo
for name in unit "${names[@]}"; do
	read -r status seconds <"$out/test-output-$name.status"
	echo "── $name: exit $status after $seconds s ──"
done
# What the parts left running, whether or not they failed (a passing test that leaks a peer too).
left=$(grep -h 'reap_children: stopped pid' "$out"/test-output-*.log)
if [ -n "$left" ]; then
	echo "── processes the tests left running, stopped when their part ended ──"
	echo "$left"
fi
littered=()
# What the parts left in their temporary directories (after the reaper: no test's peer writes any more).
for name in unit "${names[@]}"; do
	[ -d "$run_tmp/$name" ] || continue  # a command part (tsan: a build and its run) has none
	mapfile -t kept < <(find "$run_tmp/$name" -mindepth 1 -maxdepth 1 -printf '%f\n' | sort)
	if [ "${#kept[@]}" -gt 0 ]; then
		echo "── ✘ $name left ${#kept[@]} entries in its temporary directory (TMPDIR=$run_tmp/$name):" \
			"a test that does not remove what it made ──"
		printf '  %s\n' "${kept[@]:0:20}"
		[ "${#kept[@]}" -le 20 ] || echo "  … ($((${#kept[@]} - 20)) more)"
		# Asked to keep their directories (KEEP_TEST_DIRS), tests leave them on purpose.
		[ -n "${KEEP_TEST_DIRS:-}" ] || littered+=("$name")
	fi
done
if [ "${#failed[@]}" -gt 0 ]; then
	echo "── swift test failed in: ${failed[*]} ──"
	for name in "${failed[@]}"; do
		echo "── failures of $name ──"
		failures "$out/test-output-$name.log"
	done
fi
if [ "${#littered[@]}" -gt 0 ]; then
	echo "── tests left files in their temporary directory in: ${littered[*]} (listed above) ──"
fi
[ "${#failed[@]}" -eq 0 ] && [ "${#littered[@]}" -eq 0 ]
