#!/usr/bin/env bash
# The process-driving suites (target CLITests) that `make test` runs, one a line, sorted: every suite
# the test bundle BUNDLE lists, less those in SEPARATE_SUITES (default ClusterLoadTests), which have
# make targets of their own. Scripts/run_tests.sh deals them to its parts; Scripts/suite_seconds.sh
# times them.
set -uo pipefail
bundle=${1:?usage: cli_suites.sh BUNDLE}
SEPARATE_SUITES=${SEPARATE_SUITES:-ClusterLoadTests}
"$bundle" --testing-library swift-testing --list-tests 2>/dev/null |
	sed -n -E 's/^CLITests\.([A-Za-z0-9_]+)\/.*/\1/p' | sort -u | grep -v -x -E "${SEPARATE_SUITES// /|}"
exit 0
