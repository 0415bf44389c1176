#!/usr/bin/env bash
# A ClickHouse cluster for tests and trials, on 127.0.0.1 only, everything in DIR: Debian's ZooKeeper
# (package zookeeper, run as a plain java process from a throwaway zoo.cfg) and four clickhouse-server
# 18.16 (Scripts/clickhouse_test_server.sh, each with a config.d/cluster.xml beside its config) as two
# shards of two replicas, cluster `chat`. It creates the tables of docs/clickhouse.sql on every server
# as ReplicatedReplacingMergeTree (ZooKeeper path /clickhouse/tables/<shard>/chat_<table>, replica
# ch<S>_<R>), and chat.lines_all, chat.records_all as Distributed tables over them, sharded by
# sipHash64(channel) (docs/scale.md). Usage:
#   clickhouse_cluster.sh start DIR [BASE_PORT]   starts it, prints one line per server:
#                                                 shard S replica R http://127.0.0.1:PORT/
#   clickhouse_cluster.sh stop DIR                stops every process it started, by PID
#   clickhouse_cluster.sh kill DIR S R            kill -9 of one server (a crash)
#   clickhouse_cluster.sh restart DIR S R         starts that server again (same data)
#   clickhouse_cluster.sh kill DIR zookeeper      kill -9 of ZooKeeper
#   clickhouse_cluster.sh restart DIR zookeeper   starts ZooKeeper again (same data, same port)
# Ports: BASE_PORT (default 19100) is ZooKeeper's; server (S, R) uses BASE+10*(2*(S-1)+R) for HTTP,
# +1 native, +2 interserver. A taken port is said plainly (exit 69). PIDs are in DIR/*.pid.
set -euo pipefail
# The servers outlive this script: they get none of its caller's descriptors past 0-2 (a test runner's
# pipes would stay open in them, and the caller would wait for their end).
for fd in /proc/$$/fd/*; do
    fd=${fd##*/}
    if [ "$fd" -gt 2 ] 2>/dev/null; then eval "exec $fd>&-" 2>/dev/null || true; fi
done
here=$(cd "$(dirname "$0")" && pwd)
command=${1:?usage: clickhouse_cluster.sh start|stop|kill|restart DIR ...}
dir=${2:?usage: clickhouse_cluster.sh $command DIR ...}
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
SHARDS=2 REPLICAS=2

port_of() { # shard replica offset
    local base; base=$(cat "$dir/base_port")
    echo $((base + 10 * (2 * ($1 - 1) + $2) + $3))
}

# The PID in FILE, if that process is alive.
alive() { [ -f "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null; }

# SIGTERM to the PIDs in FILES (those alive), then SIGKILL to those still running after SECONDS
# (a caller that started this script with signals blocked, as a test runner may, left them blocked in
# the servers too: SIGTERM then never arrives).
end() { # seconds files...
    local seconds=$1 pids=() f i
    shift
    for f in "$@"; do alive "$f" && pids+=("$(cat "$f")"); done
    [ ${#pids[@]} -gt 0 ] || return 0
    kill -TERM "${pids[@]}" 2>/dev/null || true
    for ((i = 0; i < seconds * 10; i++)); do
        kill -0 "${pids[@]}" 2>/dev/null || return 0
        sleep 0.1
    done
    kill -KILL "${pids[@]}" 2>/dev/null || true
}

# ZooKeeper from DIR/zookeeper/zoo.cfg, its data in DIR/zookeeper/data (kept across a restart).
start_zookeeper() {
    setsid java -Xmx256m -cp "/usr/share/java/zookeeper.jar:$dir/zookeeper" \
        org.apache.zookeeper.server.ZooKeeperServerMain "$dir/zookeeper/zoo.cfg" \
        >> "$dir/zookeeper/out.log" 2>&1 < /dev/null &
    echo $! > "$dir/zookeeper.pid"
}

# Until ZooKeeper serves requests: `ruok` answers imok as soon as the process runs, `srvr` says its
# Mode only once it has loaded its data (a server started before that loses its session at once).
# A ZooKeeper still starting may take the connection and never answer: the read ends after 1 s with
# SIGKILL, since the SIGTERM `timeout` sends by default never arrives when the caller blocked it (a test
# runner does, and the mask is inherited): the read then hung for 12 minutes in a ClusterLoadTests run.
wait_zookeeper() {
    local base answer="" deadline=$((SECONDS + 60))
    base=$(cat "$dir/base_port")
    while ((SECONDS < deadline)); do
        answer=$( (exec 3<>"/dev/tcp/127.0.0.1/$base" && echo srvr >&3 && timeout -s KILL 1 cat <&3) 2>/dev/null || true)
        [[ "$answer" == *"Mode: "* ]] && return 0
        sleep 0.1
    done
    echo "clickhouse_cluster.sh: ZooKeeper did not start on port $base; $dir/zookeeper/out.log:" >&2
    tail -n 5 "$dir/zookeeper/out.log" >&2
    exit 1
}

start_server() { # shard replica
    local s=$1 r=$2 name="ch$1_$2"
    # The server script runs in its own session, so that make's or a test's end does not take it along.
    setsid "$here/clickhouse_test_server.sh" "$dir/$name" "$(port_of "$s" "$r" 0)" "$(port_of "$s" "$r" 1)" \
        > "$dir/$name.out" 2>&1 < /dev/null &
    echo $! > "$dir/$name.script.pid"
}

# Up to 120 s: a server restarted after kill -9 on a busy machine may take most of a minute (it checks
# its parts and its replication queue); a server that exits is not waited for.
wait_up() { # shard replica
    local url="http://127.0.0.1:$(port_of "$1" "$2" 0)/" deadline=$((SECONDS + 120))
    while ((SECONDS < deadline)); do
        curl -sf -o /dev/null "${url}ping" && return 0
        alive "$dir/ch$1_$2.script.pid" || break
        sleep 0.1
    done
    echo "clickhouse_cluster.sh: shard $1 replica $2 did not start; $dir/ch$1_$2.out and its log:" >&2
    tail -n 5 "$dir/ch$1_$2.out" "$dir/ch$1_$2/log/clickhouse-server.err.log" >&2 2>/dev/null || true
    return 1
}

query() { # shard replica sql
    curl -sS --fail-with-body "http://127.0.0.1:$(port_of "$1" "$2" 0)/" --data-binary "$3"
}

# A statement that needs ZooKeeper, tried again for up to 10 s while the server's session to it starts.
ddl() { # shard replica sql
    local i
    for ((i = 0; i < 50; i++)); do
        query "$1" "$2" "$3" 2>/dev/null && return 0
        sleep 0.2
    done
    query "$1" "$2" "$3"
}

start() {
    local base=${3:-19100} port s r
    echo "$base" > "$dir/base_port"
    for port in "$base" $(for s in 1 2; do for r in 1 2; do for o in 0 1 2; do port_of $s $r $o; done; done; done); do
        if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
            echo "clickhouse_cluster.sh: port $port on 127.0.0.1 is taken: give another BASE_PORT" >&2
            exit 69
        fi
    done
    # From here on, a start that fails (a server that does not come up, say a port taken meanwhile by
    # another program's connection) stops what it started, by PID, before it exits.
    trap 'status=$?; [ $status -eq 0 ] || stop; exit $status' EXIT
    if ! [ -f /usr/share/java/zookeeper.jar ]; then
        sudo=$([ "$(id -u)" = 0 ] || echo sudo)
        $sudo apt-get update -qq
        DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq zookeeper > /dev/null
    fi
    mkdir -p "$dir/zookeeper/data"
    cat > "$dir/zookeeper/zoo.cfg" <<CONF
tickTime=500
initLimit=10
syncLimit=5
dataDir=$dir/zookeeper/data
clientPort=$base
clientPortAddress=127.0.0.1
maxSessionTimeout=60000
admin.enableServer=false
4lw.commands.whitelist=srvr
CONF
    start_zookeeper
    wait_zookeeper
    for s in $(seq 1 $SHARDS); do
        for r in $(seq 1 $REPLICAS); do
            mkdir -p "$dir/ch${s}_$r/config.d"
            {
                echo "<?xml version=\"1.0\"?><yandex>"
                echo "<interserver_http_port>$(port_of "$s" "$r" 2)</interserver_http_port>"
                echo "<interserver_http_host>127.0.0.1</interserver_http_host>"
                echo "<zookeeper><node><host>127.0.0.1</host><port>$base</port></node><session_timeout_ms>10000</session_timeout_ms></zookeeper>"
                echo "<macros><shard>$s</shard><replica>ch${s}_$r</replica></macros>"
                echo "<remote_servers><chat>"
                for ss in $(seq 1 $SHARDS); do
                    echo "<shard><internal_replication>true</internal_replication>"
                    for rr in $(seq 1 $REPLICAS); do
                        echo "<replica><host>127.0.0.1</host><port>$(port_of "$ss" "$rr" 1)</port></replica>"
                    done
                    echo "</shard>"
                done
                echo "</chat></remote_servers></yandex>"
            } > "$dir/ch${s}_$r/config.d/cluster.xml"
            start_server "$s" "$r"
        done
    done
    for s in $(seq 1 $SHARDS); do for r in $(seq 1 $REPLICAS); do wait_up "$s" "$r"; done; done
    # The tables of docs/clickhouse.sql, replicated; then the Distributed ones.
    local schema
    schema=$(sed 's/--.*$//' "$here/../docs/clickhouse.sql" | tr '\n' ' ' | tr ';' '\n')
    for s in $(seq 1 $SHARDS); do
        for r in $(seq 1 $REPLICAS); do
            while IFS= read -r statement; do
                [[ "$statement" =~ [^[:space:]] ]] || continue
                if [[ "$statement" =~ CREATE\ TABLE\ IF\ NOT\ EXISTS\ chat\.([a-z_]+) ]]; then
                    local engine="ReplicatedReplacingMergeTree('/clickhouse/tables/{shard}/chat_${BASH_REMATCH[1]}', '{replica}')"
                    statement=${statement/ReplacingMergeTree()/$engine}
                fi
                ddl "$s" "$r" "$statement"
            done <<< "$schema"
            for table in lines records; do
                ddl "$s" "$r" "CREATE TABLE IF NOT EXISTS chat.${table}_all AS chat.$table ENGINE = Distributed(chat, chat, $table, sipHash64(channel))"
            done
        done
    done
    for s in $(seq 1 $SHARDS); do
        for r in $(seq 1 $REPLICAS); do echo "shard $s replica $r http://127.0.0.1:$(port_of "$s" "$r" 0)/"; done
    done
}

stop() {
    end 10 "$dir"/ch*_*/server.pid
    end 5 "$dir"/ch*_*.script.pid "$dir/zookeeper.pid"
}

case $command:${3:-} in
start:*) start "$@" ;;
stop:*) stop ;;
kill:zookeeper) kill -KILL "$(cat "$dir/zookeeper.pid")" ;;
restart:zookeeper)
    end 5 "$dir/zookeeper.pid"
    start_zookeeper
    wait_zookeeper
    ;;
kill:*) kill -KILL "$(cat "$dir/ch${3}_$4/server.pid")" ;;
restart:*)
    end 5 "$dir/ch${3}_$4.script.pid"
    # A server killed between writing a part and committing it to ZooKeeper finds that part unexpected
    # when it starts, and 18.16 refuses to start when such parts are most of a table ("The local set of
    # parts of table chat.lines doesn't look like the set of parts in ZooKeeper"). That INSERT was never
    # acknowledged (load sends it again), so the server may set the part aside: the flag makes it move
    # unexpected parts to detached/ (the operator's remedy after a crash; the server removes the flag).
    mkdir -p "$dir/ch${3}_$4/data/flags"
    touch "$dir/ch${3}_$4/data/flags/force_restore_data"
    start_server "$3" "$4"
    wait_up "$3" "$4"
    ;;
*) echo "clickhouse_cluster.sh: unknown command $command (start, stop, kill, restart)" >&2; exit 64 ;;
esac
