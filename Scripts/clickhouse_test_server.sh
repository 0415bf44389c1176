#!/usr/bin/env bash
# Starts Debian's ClickHouse server (package clickhouse-server, 18.16) in the foreground for a test:
# everything it writes (data, metadata, temporary files, logs) goes into DIR, it listens on 127.0.0.1
# only, HTTP on HTTP_PORT and its native protocol on TCP_PORT, with one user `default` without a
# password. It runs as whoever starts it (root too: its files are all in DIR). The caller stops it by
# this script's PID (SIGTERM: the server is stopped and waited for; its own PID is in DIR/server.pid);
# started again with the same DIR it finds its tables as they were. Installs the package first when it
# is missing (apt-get, as root or with sudo).
#
# The script stays the server's parent instead of exec'ing it: clickhouse-server closes the descriptors
# it inherits, and a parent that watches a child through one (Foundation's Process does) would take
# that for the child's exit. Usage:
#   clickhouse_test_server.sh DIR HTTP_PORT TCP_PORT
# A port something already listens on is said plainly (exit 69) before anything is installed or started;
# a server that exits with an error has the end of its error log copied to stderr.
set -euo pipefail
dir=$1 http=$2 tcp=$3
for port in "$http" "$tcp"; do
    if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
        echo "clickhouse_test_server.sh: port $port on 127.0.0.1 is taken (something listens there): choose another" >&2
        exit 69
    fi
done
if ! command -v clickhouse-server >/dev/null 2>&1; then
    sudo=$([ "$(id -u)" = 0 ] || echo sudo)
    $sudo apt-get update -qq
    # The package's postinst tries to start the system service; a container without init refuses
    # (policy-rc.d), which is fine: this script runs its own server.
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq clickhouse-server >/dev/null
fi
mkdir -p "$dir/data" "$dir/tmp" "$dir/user_files" "$dir/format_schemas" "$dir/log"
cat > "$dir/config.xml" <<CONF
<?xml version="1.0"?>
<yandex>
    <logger>
        <level>warning</level>
        <log>$dir/log/clickhouse-server.log</log>
        <errorlog>$dir/log/clickhouse-server.err.log</errorlog>
        <size>10M</size>
        <count>1</count>
        <console>0</console>
    </logger>
    <listen_host>127.0.0.1</listen_host>
    <http_port>$http</http_port>
    <tcp_port>$tcp</tcp_port>
    <path>$dir/data/</path>
    <tmp_path>$dir/tmp/</tmp_path>
    <user_files_path>$dir/user_files/</user_files_path>
    <format_schema_path>$dir/format_schemas/</format_schema_path>
    <users_config>$dir/users.xml</users_config>
    <default_profile>default</default_profile>
    <default_database>default</default_database>
    <timezone>UTC</timezone>
    <mark_cache_size>268435456</mark_cache_size>
    <uncompressed_cache_size>268435456</uncompressed_cache_size>
    <max_concurrent_queries>50</max_concurrent_queries>
</yandex>
CONF
cat > "$dir/users.xml" <<CONF
<?xml version="1.0"?>
<yandex>
    <profiles><default><max_memory_usage>2000000000</max_memory_usage></default></profiles>
    <users>
        <default>
            <password></password>
            <networks><ip>127.0.0.1</ip></networks>
            <profile>default</profile>
            <quota>default</quota>
        </default>
    </users>
    <quotas><default></default></quotas>
</yandex>
CONF
cd "$dir"
clickhouse-server --config-file="$dir/config.xml" >> "$dir/log/stdout.log" 2>&1 &
server=$!
echo "$server" > "$dir/server.pid"
trap 'kill -TERM "$server" 2>/dev/null; wait "$server"; exit 0' TERM INT
status=0
wait "$server" || status=$?
if [ "$status" != 0 ]; then
    echo "clickhouse_test_server.sh: clickhouse-server exited with status $status; the end of its logs in $dir/log:" >&2
    tail -n 5 "$dir/log/clickhouse-server.err.log" "$dir/log/stdout.log" >&2 2>/dev/null || true
fi
exit "$status"
