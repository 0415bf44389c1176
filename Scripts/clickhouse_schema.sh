#!/usr/bin/env bash
# Creates the database and table of docs/clickhouse.sql (or SQL_FILE) through ClickHouse's HTTP
# interface at URL, one request per statement (18.16 takes one statement per request; --multiquery
# is clickhouse-client's). Comments (--) are dropped first; the statements end with ';'. Usage:
#   clickhouse_schema.sh URL [SQL_FILE]
set -euo pipefail
url=${1:?usage: clickhouse_schema.sh URL [SQL_FILE]}
file=${2:-$(dirname "$0")/../docs/clickhouse.sql}
sed 's/--.*$//' "$file" | tr '\n' ' ' | tr ';' '\n' | while IFS= read -r statement; do
    [[ "$statement" =~ [^[:space:]] ]] || continue
    curl -sS --fail-with-body "$url" --data-binary "$statement"
done
