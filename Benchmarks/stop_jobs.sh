# Sourced by the benches that start processes in the background (capture_bench.sh, http_flood_bench.sh).
#
# stop_jobs: stops the calling script's background jobs and their children, by PID, children first,
# and waits for them. A bench runs its capture under /usr/bin/time, which passes no signal on: killing
# the jobs alone left the capture running, writing into a tree being removed. A child gets SIGTERM (a
# capture then closes its files) and up to 10 s to end before its job is killed. Call it from the
# script's EXIT trap, before removing what the jobs write to.
stop_jobs() {
    local pids parents
    pids=$(jobs -p)
    [ -n "$pids" ] || return 0
    parents=${pids//$'\n'/,}
    pkill -P "$parents" 2> /dev/null || true
    for _ in $(seq 1 100); do pgrep -P "$parents" > /dev/null || break; sleep 0.1; done
    # shellcheck disable=SC2086
    kill $pids 2> /dev/null || true
    wait 2> /dev/null || true
}
