#!/usr/bin/env bash
# The package graph is the architecture (README "Modules"): every import is a declared dependency,
# and the pure modules import neither Glibc nor a C target. Part of `make lint`.
set -euo pipefail
cd "$(dirname "$0")/.."
SWIFT=${SWIFT:-swift}

# 1. SwiftPM refuses an import of a package target that is not a declared dependency.
$SWIFT build --build-tests -j "${JOBS:-2}" --explicit-target-dependency-import-check error > /dev/null

# 2. The pure core: standard library, Synchronization and other pure modules only.
pure="IRCWire WebSocketWire ChatStore TwitchSession ChatFormat"
status=0
for module in $pure; do
    while IFS= read -r line; do
        imported=${line##* }
        case " $pure Synchronization " in
            *" $imported "*) ;;
            *) echo "Sources/$module imports $imported: a pure module imports only pure modules" >&2; status=1 ;;
        esac
    done < <(grep -rhoE '^(public |package |internal |@testable )?import [A-Za-z_]+' "Sources/$module" | sort -u)
done
[ "$status" = 0 ] && echo "module graph: every import declared; pure modules ($pure) import no Glibc and no C target"
exit "$status"
