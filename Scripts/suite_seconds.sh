#!/usr/bin/env bash
# Times each process-driving suite (target CLITests) run alone, one after another, and writes
# `seconds suite` lines, the longest first, to Scripts/cli_suite_seconds.txt: the weights
# Scripts/run_tests.sh deals the suites to its side-by-side parts by. A suite's wall time in a part
# cannot be read from its log or event stream: Swift Testing stamps a test when it is scheduled, not
# when a thread takes it up, and the parts' suites wait for each other's threads. Run it (`make
# suite-times`, about 17 minutes on a quiet machine) when suites were added or changed much; a suite
# missing from the file is dealt with the median weight.
set -euo pipefail
cd "$(dirname "$0")/.."
SWIFT=${SWIFT:-swift}
bundle="$("$SWIFT" build --show-bin-path)/chatcapPackageTests.xctest"
out=${1:-Scripts/cli_suite_seconds.txt}
# The suites make test runs (Scripts/cli_suites.sh: SEPARATE_SUITES left out, as there).
mapfile -t suites < <(Scripts/cli_suites.sh "$bundle")
work=$(mktemp)
trap 'rm -f "$work"' EXIT
for suite in "${suites[@]}"; do
	start=$(date +%s.%N)
	status=0
	"$bundle" --testing-library swift-testing --filter "^CLITests\\.$suite/" </dev/null >/dev/null 2>&1 || status=$?
	seconds=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.0f", b - a }')
	echo "$seconds $suite" | tee -a "$work"
	[ "$status" -eq 0 ] || echo "  ($suite failed: exit $status; its time is still counted)" >&2
done
sort -k1,1nr -k2,2 "$work" >"$out"
echo "wrote $out (${#suites[@]} suites)"
