#!/usr/bin/env bash
# The package graph is the architecture (README "Modules"): every import is a declared dependency,
# the pure modules import neither Glibc nor a C target, and no module grows past 4,000 lines of Swift
# (past that it holds two concerns: split it by concern, as ChatGzip, ChatInput and ChatArchive were).
# Part of `make lint`.
set -euo pipefail
cd "$(dirname "$0")/.."
SWIFT=${SWIFT:-swift}

# 1. SwiftPM refuses an import of a package target that is not a declared dependency.
$SWIFT build --build-tests -j "${JOBS:-2}" --explicit-target-dependency-import-check error > /dev/null

# 2. The pure core: standard library, Synchronization, the compiler's Builtin (IRCWire's ByteMask: the
#    vector primitives the standard library's SIMD types are written in) and other pure modules only.
pure="IRCWire WebSocketWire ChatMemory ChatIndex ChatStore TwitchSession ChatFormat"
status=0
for module in $pure; do
    while IFS= read -r line; do
        imported=${line##* }
        case " $pure Synchronization Builtin " in
            *" $imported "*) ;;
            *) echo "Sources/$module imports $imported: a pure module imports only pure modules" >&2; status=1 ;;
        esac
    done < <(grep -rhoE '^(public |package |internal |@testable )?import [A-Za-z_]+' "Sources/$module" | sort -u)
done

# 3. The size bound: no module under Sources/ past max_lines lines of Swift.
max_lines=4000
largest=0 largest_module=
for dir in Sources/*/; do
    module=$(basename "$dir")
    lines=$(find "$dir" -name '*.swift' -exec cat {} + | wc -l)
    [ "$lines" -gt "$largest" ] && largest=$lines largest_module=$module
    if [ "$lines" -gt "$max_lines" ]; then
        echo "Sources/$module has $lines lines of Swift, past the bound of $max_lines: split it by concern" >&2
        status=1
    fi
done
[ "$status" = 0 ] && echo "module graph: every import declared; pure modules ($pure) import no Glibc and no C target;" \
    "no module past $max_lines lines of Swift (largest: $largest_module, $largest)"
exit "$status"
