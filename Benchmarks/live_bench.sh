#!/usr/bin/env bash
# make bench, part 3: a local `chatcap serve --speed max --loop` into `chatcap tail --format json >
# /dev/null`, over TLS (test CA made here) and plain TCP. Prints messages/s on the ingest thread and
# the CPU it used (tail --stats).
set -euo pipefail
bin=${1:?usage: live_bench.sh CHATCAP LOG [SECONDS]}
log=${2:?usage: live_bench.sh CHATCAP LOG [SECONDS]}
seconds=${3:-10}
dir=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$dir"' EXIT
(cd "$dir" && openssl req -x509 -newkey rsa:2048 -nodes -days 2 -keyout ca.key -out ca.pem -subj "/CN=bench CA" \
  && openssl req -newkey rsa:2048 -nodes -keyout server.key -out server.csr -subj "/CN=localhost" \
  && printf "subjectAltName=DNS:localhost,IP:127.0.0.1\n" > ext.cnf \
  && openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out server.pem -days 2 -extfile ext.cnf) 2>/dev/null
# Join every channel of the log, so that the server sends (nearly) every line it reads.
channels=$(set +o pipefail; head -c 4000000 "$log" | grep -o 'PRIVMSG #[a-z0-9_]*' | cut -d'#' -f2 | sort -u | tr '\n' ' ')
for mode in tls plain; do
    args=()
    [ "$mode" = tls ] && args=(--tls-cert "$dir/server.pem" --tls-key "$dir/server.key")
    "$bin" serve "$log" --port 0 --speed max --loop "${args[@]}" > "$dir/serve.out" 2> /dev/null &
    for _ in $(seq 1 100); do [ -s "$dir/serve.out" ] && break; sleep 0.05; done
    port=$(head -1 "$dir/serve.out" | sed 's/.*://')
    targs=(--plain)
    [ "$mode" = tls ] && targs=(--ca-file "$dir/ca.pem")
 echo "live ($mode): serve $log (channels: $channels) --speed max → tail --format json > /dev/null for ${seconds}s"
    # shellcheck disable=SC2086
    "$bin" tail $channels --host 127.0.0.1 --port "$port" "${targs[@]}" --format json --duration "$seconds" --stats 2>&1 >/dev/null | grep 'stats:'
    kill %1; wait %1 2>/dev/null || true
done
