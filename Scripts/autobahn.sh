#!/usr/bin/env bash
# Runs the Autobahn testsuite's fuzzing client (PyPI autobahntestsuite 0.8.2, Python 2.7 only) against
# `chatcap serve --ws-port` and summarises its report per case group (Scripts/autobahn_summary.py);
# exits non-zero when a case FAILED that Scripts/autobahn_accepted.txt does not list. `make autobahn`
# runs it. Usage:
#   autobahn.sh CHATCAP [CASES]
# CHATCAP is the built binary; CASES the fuzzing client's case pattern (default `*`). Python 2.7 is
# pyenv's (`pyenv prefix 2.7`, or ~/.pyenv/versions/2.7.*) or `python2.7` on PATH; without one the
# script says so and exits 69. The suite is installed once into the virtualenv .build/autobahn
# (versions pinned in Scripts/autobahn_requirements.txt); the report stays in .build/autobahn/report.
set -euo pipefail
chatcap=$1 cases=${2:-*}
root=$(cd "$(dirname "$0")/.." && pwd)
venv=$root/.build/autobahn

find_python27() {
    local candidate
    if command -v pyenv >/dev/null 2>&1 && candidate=$(pyenv prefix 2.7 2>/dev/null); then
        [ -x "$candidate/bin/python" ] && { echo "$candidate/bin/python"; return; }
    fi
    for candidate in "${PYENV_ROOT:-$HOME/.pyenv}"/versions/2.7*/bin/python; do
        [ -x "$candidate" ] && { echo "$candidate"; return; }
    done
    command -v python2.7 2>/dev/null || return 1
}

if [ ! -x "$venv/bin/wstest" ]; then
    if ! python27=$(find_python27); then
        echo "autobahn.sh: no Python 2.7 found (neither pyenv's nor python2.7 on PATH); the Autobahn" \
            "testsuite (autobahntestsuite 0.8.2) runs only on Python 2.7: install one, e.g." \
            "'pyenv install 2.7.18', and run again" >&2
        exit 69
    fi
    echo "installing the Autobahn testsuite into $venv with $python27"
    rm -rf "$venv"
    # Python 2.7 has no venv module; virtualenv before 20.22 still creates 2.7 environments.
    "$python27" -m pip install -q --disable-pip-version-check --target "$venv.tool" 'virtualenv<20.22' 2>&1 \
        | grep -v DEPRECATION || true
    PYTHONPATH=$venv.tool "$python27" -m virtualenv -q "$venv"
    rm -rf "$venv.tool"
    "$venv/bin/pip" install -q --disable-pip-version-check -r "$root/Scripts/autobahn_requirements.txt" 2>&1 \
        | grep -v DEPRECATION || true
    [ -x "$venv/bin/wstest" ] || { echo "autobahn.sh: installing autobahntestsuite failed" >&2; exit 69; }
fi

work=$(mktemp -d)
serve_pid=
cleanup() {
    if [ -n "$serve_pid" ]; then
        kill "$serve_pid" 2>/dev/null || true
        wait "$serve_pid" 2>/dev/null || true
    fi
    rm -rf "$work"
}
trap cleanup EXIT

# A small fixture; the fuzzing client never logs in to IRC, so the login timeout is raised past any
# case's length (a few seconds at most) for no case to be cut by it.
"$chatcap" serve "$root/Fixtures/lines/privmsg.irc" --port 0 --ws-port 0 --login-timeout 600 \
    >"$work/serve.out" 2>"$work/serve.err" &
serve_pid=$!
url=
for _ in $(seq 100); do
    url=$(grep -o 'ws://[0-9.]*:[0-9]*' "$work/serve.out" || true)
    [ -n "$url" ] && break
    kill -0 "$serve_pid" 2>/dev/null || { cat "$work/serve.err" >&2; exit 70; }
    sleep 0.1
done
[ -n "$url" ] || { echo "autobahn.sh: serve did not say where it listens" >&2; cat "$work/serve.err" >&2; exit 70; }
echo "serve listens on $url (PID $serve_pid)"

rm -rf "$venv/report"
# Not applicable to serve (docs/serve.md): 9.* time echoes of messages up to 16 MiB (serve echoes
# nothing and refuses a message past 64 KiB with 1009); 12.* and 13.* are permessage-deflate, which
# serve does not negotiate (the suite rates each UNIMPLEMENTED at once).
cat >"$work/fuzzingclient.json" <<JSON
{
  "outdir": "$venv/report",
  "servers": [{"agent": "chatcap-serve", "url": "$url"}],
  "cases": ["$cases"],
  "exclude-cases": ["9.*", "12.*", "13.*"],
  "exclude-agent-cases": {}
}
JSON
(cd "$work" && "$venv/bin/wstest" -m fuzzingclient -s fuzzingclient.json >"$work/wstest.log" 2>&1) || {
    tail -20 "$work/wstest.log" >&2
    exit 70
}
kill "$serve_pid"
status=0
wait "$serve_pid" || status=$?
serve_pid=
if [ "$status" != 0 ]; then
    echo "autobahn.sh: serve exited with $status on SIGTERM; its standard error ends:" >&2
    tail -20 "$work/serve.err" >&2
    exit 70
fi
echo "serve stopped (exit 0); its last word: $(tail -1 "$work/serve.err")"
python3 "$root/Scripts/autobahn_summary.py" "$venv/report/index.json" "$root/Scripts/autobahn_accepted.txt"
