#!/usr/bin/env python3
"""Runs a command as a child subreaper, then stops whatever it left running (Scripts/run_tests.sh).

A test that traps, or a test bundle that `timeout` ends, leaves its peers running: the capture,
serve and Python peers it started are orphaned, adopted by init, and go on holding ports, files and
CPU while the next parts of `make test` run beside them. Here the command runs under
prctl(PR_SET_CHILD_SUBREAPER): every process it leaves behind, at any depth, is adopted by this
script instead of init. Orphans that end while the command runs are reaped at once (as init would,
so that a test waiting for a stopped peer's PID to go sees it go). Once the command ends, every
process still running under this script is stopped with SIGKILL, by the PID it has as this
script's child, and named on stderr with its command line, with what it left in turn, until none
is left. The exit status is the command's (128 + N for a command that signal N ended).
SIGTERM, SIGINT and SIGHUP are passed on to the command.

Usage: reap_children.py COMMAND [ARGUMENT...]
"""
import ctypes
import os
import signal
import subprocess
import sys
import time

PR_SET_CHILD_SUBREAPER = 36


def running_children(me):
    """(pid, command line) of every live (not zombie) process whose parent is `me`."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as f:
                stat = f.read()
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                cmdline = f.read()
        except OSError:
            continue  # gone meanwhile
        # After the command name, which is in parentheses and may hold spaces: state, then parent.
        fields = stat[stat.rfind(b")") + 2:].split()
        if int(fields[1]) != me or fields[0] == b"Z":
            continue
        words = cmdline.rstrip(b"\0").split(b"\0")
        found.append((int(entry), b" ".join(words).decode("utf-8", "replace")[:200]))
    return found


def reap_exited():
    """Reaps every child that has ended, without waiting."""
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def main():
    if len(sys.argv) < 2:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        print(f"reap_children: prctl(PR_SET_CHILD_SUBREAPER) failed: {os.strerror(ctypes.get_errno())}",
              file=sys.stderr)
        return 2
    command = subprocess.Popen(sys.argv[1:])

    def forward(signum, _frame):
        try:
            os.kill(command.pid, signum)
        except ProcessLookupError:
            pass

    for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(signum, forward)
    # Wait for the command, reaping adopted orphans as they end.
    while True:
        pid, status = os.waitpid(-1, 0)
        if pid == command.pid:
            code = os.waitstatus_to_exitcode(status)
            status = code if code >= 0 else 128 - code
            break
    me = os.getpid()
    named = set()
    deadline = time.monotonic() + 60
    while True:
        reap_exited()
        left = running_children(me)
        if not left:
            break
        for pid, cmdline in left:
            if pid not in named:
                named.add(pid)
                print(f"reap_children: stopped pid {pid}, left running by `{sys.argv[1]}`: {cmdline}",
                      file=sys.stderr)
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        if time.monotonic() > deadline:
            print(f"reap_children: {len(left)} processes still running after SIGKILL", file=sys.stderr)
            break
        time.sleep(0.05)
    if named:
        print(f"reap_children: {len(named)} process{'es' if len(named) != 1 else ''} left running, stopped",
              file=sys.stderr)
    return status


if __name__ == "__main__":
    sys.exit(main())
