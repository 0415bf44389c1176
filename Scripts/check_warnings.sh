#!/usr/bin/env bash
# The build `make test` just ran (its output in LOG) warned about nothing in the project's own code
# (Sources, Tests, Benchmarks; the dependencies' are not ours). A warning there has been a test that
# computed what it never checked (CaptureOptOutCLITests' `missing`, "never used") and unsafe code left
# unmarked in the strict-memory-safety modules. A build only compiles what changed, so an incremental run
# sees the warnings of the files it recompiled; a fresh clone (CI) sees them all. Part of `make test`.
set -euo pipefail
log=${1:?usage: check_warnings.sh BUILD-LOG}
root=$(cd "$(dirname "$0")/.." && pwd)
warnings=$(grep -E "^$root/(Sources|Tests|Benchmarks)/[^:]+:[0-9]+:[0-9]+: warning: " "$log" | sort -u || true)
if [ -n "$warnings" ]; then
    echo "$warnings" >&2
    echo "build warnings in the project's code: $(wc -l <<<"$warnings") (fix them; see above)" >&2
    exit 1
fi
echo "build warnings: none in the project's code"
