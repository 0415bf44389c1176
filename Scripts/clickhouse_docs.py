#!/usr/bin/env python3
"""Checks the ClickHouse docs against two engines: ClickHouse 18.16 (Debian's clickhouse-server, run by
Scripts/clickhouse_test_server.sh) and a current release (chdb-core from PyPI: ClickHouse in-process).

For each engine: docs/clickhouse.sql (one HTTP request per statement, as Scripts/clickhouse_schema.sh
sends it), its documented migration of an older chat.lines (the `--   ALTER` lines), `chatcap load` of a
real capture with gaps and backfilled lines (`serve --drop-after` of a generated log, its recent-messages
API as the service → `capture --recent-messages`), every line a row and every record a row of
chat.records, and every `sql` block of the docs (docs/*.md, README.md; each must start with
`-- query: name`; every one answers rows); the two engines must give the same answers. On the current
release also docs/clickhouse-current.sql (the DateTime64 tables) loaded with `load --times datetime64`:
every row there with its milliseconds, and the queries without `time_ms` give as many rows; plain `load`
into it is refused before any INSERT (exit 78, naming --times datetime64). 18.16 refuses that table
and `--times datetime64` with an error. The cluster form of docs/clickhouse-current.sql (docs/scale.md,
"The same cluster on a current release") is parsed by the current release, and the settings of its
load URL exist there (chdb runs no Keeper and no replicated INSERT, so no more of it is checked).

`--fast` checks ClickHouse 18.16 alone (about 20 s; `ClickHouseDocsTests` runs it in `make test`). chdb has no HTTP
interface of its own: this script serves one on 127.0.0.1 that runs each request in a chdb session, so
`load` sends exactly what it sends a server (gzip JSONEachRow INSERTs), with strict field checking
(input_format_skip_unknown_fields = 0, 18.16's default): a column `load` sends and the table lacks
fails the INSERT. Usage:
  clickhouse_docs.py CHATCAP [--fast] [--keep DIR]
Exit 0 when every check holds; 1 with what differed; 69 when chdb or clickhouse-server is missing.
"""

import argparse
import gzip
import http.server
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CHANNELS = ["pixelharbor", "lunafrost", "grimfang_tv", "velvetspeedruns", "ottertech", "mossyforge"]
failures = []


def check(ok, what):
    print(("ok    " if ok else "FAIL  ") + what, flush=True)
    if not ok:
        failures.append(what)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def statements(path):
    """The statements of an SQL file, comments dropped (as Scripts/clickhouse_schema.sh splits them)."""
    text = re.sub(r"--.*$", "", open(path).read(), flags=re.M)
    return [s.strip() for s in text.split(";") if s.strip()]


def documented_queries():
    """Every `sql` block of the docs (docs/*.md, README.md), by the name of its first line
    (`-- query: name`); a block without one is a failure (nothing would run it)."""
    queries = {}
    paths = sorted(os.path.join(ROOT, "docs", f) for f in os.listdir(os.path.join(ROOT, "docs")) if f.endswith(".md"))
    for path in paths + [os.path.join(ROOT, "README.md")]:
        for block in open(path).read().split("```sql\n")[1:]:
            body = block.split("\n```")[0]
            name, _, sql = body.partition("\n")
            check(name.startswith("-- query: "), "%s: an sql block starts with '-- query: name' (%s)"
                  % (os.path.relpath(path, ROOT), name[:60]))
            queries[name[len("-- query: "):]] = sql
    return queries


def migrations():
    """The documented ALTERs of docs/clickhouse.sql (its `--   ALTER …;` lines)."""
    return [line[len("--   "):].rstrip(";") for line in open(os.path.join(ROOT, "docs/clickhouse.sql")).read().splitlines()
            if line.startswith("--   ALTER ")]


class ChdbFront:
    """ClickHouse's HTTP interface over a chdb session: POST a query (body), or `?query=INSERT … FORMAT X`
    with the data as body (gzip when Content-Encoding says so). 200 with the result, else 500 with
    ClickHouse's `Code: N. DB::Exception: …` text (what a server answers)."""

    def __init__(self, path):
        from chdb import session

        self.session = session.Session(path)
        self.version = self.run("SELECT version()").strip()
        front = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                if self.headers.get("Content-Encoding") == "gzip":
                    body = gzip.decompress(body)
                query = urllib.parse.parse_qs(urllib.parse.urlparse(self.path).query).get("query", [""])[0]
                sql = query + "\n" + body.decode() if query else body.decode()
                try:
                    answer, status = front.run(sql).encode(), 200
                except Exception as error:  # chdb raises its ClickHouse error as text
                    answer, status = str(error).encode(), 500
                self.send_response(status)
                self.send_header("Content-Length", str(len(answer)))
                self.end_headers()
                self.wfile.write(answer)

        self.server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
        self.url = "http://127.0.0.1:%d/" % self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    strict = True

    def run(self, sql):
        self.session.query("SET input_format_skip_unknown_fields = %d" % (0 if self.strict else 1))
        return str(self.session.query(sql, "TSVRaw"))

    def stop(self):
        self.server.shutdown()
        self.session.close()


def post(url, sql):
    request = urllib.request.Request(url, data=sql.encode(), method="POST")
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return response.read().decode()
    except urllib.error.HTTPError as error:
        raise RuntimeError(error.read().decode()[:300]) from None


def make_capture(chatcap, work, seconds):
    """A capture directory of the six channels of a generated log, as ClickHouseLoadTests makes it:
    `serve` paces the log (a lead-in line, then one per channel, so that every channel is joined before
    the chat starts) and `capture` stores it. serve drops the connection every 700 lines and answers
    as the recent-messages service (`--http-port`): the capture holds gaps, closed ones with recovered
    lines (historical=1). Returns the directory, its chat lines and its records."""
    log = os.path.join(work, "served.irc")
    subprocess.run(
        [sys.executable, os.path.join(ROOT, "Scripts/generate_fixtures.py"), "--lines", "3000", "--channels", "6",
         "--out", log + ".gen"], check=True, stdout=subprocess.DEVNULL)
    generated = open(log + ".gen", "rb").read()
    first = int(re.search(rb"tmi-sent-ts=(\d+)", generated).group(1))
    lead = b"@room-id=1;tmi-sent-ts=%d :tmi.twitch.tv ROOMSTATE #leadin\r\n" % (first - 3000)
    lead += b"".join(b"@room-id=1;tmi-sent-ts=%d :tmi.twitch.tv ROOMSTATE #%s\r\n" % (first - 1500, c.encode())
                     for c in CHANNELS)
    open(log, "wb").write(lead + generated)
    port, http_port = free_port(), free_port()
    serve = subprocess.Popen([chatcap, "serve", log, "--port", str(port), "--speed", "3", "--keep-time",
                              "--drop-after", "700", "--http-port", str(http_port)],
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        for _ in range(100):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                time.sleep(0.1)
        capture = os.path.join(work, "cap")
        subprocess.run([chatcap, "capture", *CHANNELS, "--dir", capture, "--host", "127.0.0.1", "--port", str(port),
                        "--plain", "--duration", str(seconds), "--status", "none", "--quiet", "--recent-messages",
                        "http://127.0.0.1:%d" % http_port, "--reconnect-base", "0.05", "--reconnect-max", "0.1",
                        "--join-rate", "1000"], check=True)
    finally:
        serve.send_signal(signal.SIGTERM)
        serve.wait()
    lines = 0
    for channel in CHANNELS:
        folder = os.path.join(capture, channel)
        for name in os.listdir(folder):
            lines += gzip.open(os.path.join(folder, name)).read().count(b"\r\n")
    records = subprocess.run([chatcap, "replay", capture, "--format", "json", "--type", "gap", "--type", "session"],
                             capture_output=True, text=True, check=True).stdout.count("\n")
    return capture, lines, records


def load(chatcap, capture, url, *options):
    shutil.rmtree(os.path.join(capture, "_load"), ignore_errors=True)
    run = subprocess.run([chatcap, "load", capture, "--clickhouse", url, "--once", "--status", "none",
                          "--give-up-after", "5", *options], capture_output=True, text=True)
    return run.returncode, run.stderr.strip().splitlines()[-1] if run.stderr.strip() else ""


def check_migration(name, url):
    """The documented ALTERs on a chat.lines of the older form (no `historical`): the column comes, and
    a row whose raw line has historical=1 is marked (a mutation: waited for, at most 10 s)."""
    old = [re.sub(r"\n\s*historical\s[^\n]*", "", s) for s in statements(os.path.join(ROOT, "docs/clickhouse.sql"))
           if "chat.records" not in s]
    for statement in old:
        post(url, statement)
    post(url, "INSERT INTO chat.lines (channel, key, raw) VALUES ('c', 'a', '@historical=1;id=a :u!u@u PRIVMSG #c :hi'), "
              "('c', 'b', '@id=b;x=historical=1 :u!u@u PRIVMSG #c :historical=1')")
    alters = migrations()
    for alter in alters:
        post(url, alter)
    for _ in range(100):
        marked = post(url, "SELECT key FROM chat.lines WHERE historical = 1").split()
        if marked:
            break
        time.sleep(0.1)
    check(len(alters) == 2 and marked == ["a"], "%s: docs/clickhouse.sql's migration: the column added, the "
          "recovered row marked (%d ALTERs, marked %s)" % (name, len(alters), marked))
    post(url, "DROP TABLE chat.lines")


def on_cluster(statement):
    """A statement of docs/clickhouse*.sql as docs/scale.md ("The same cluster on a current release") puts
    it on a cluster, as Scripts/clickhouse_cluster.sh does on 18.16: ReplicatedReplacingMergeTree with the
    shard's path in ZooKeeper or Keeper and the server's replica macro, created ON CLUSTER chat."""
    table = re.search(r"CREATE TABLE IF NOT EXISTS chat\.(\w+)", statement)
    if table:
        statement = statement.replace(
            "ReplacingMergeTree()",
            "ReplicatedReplacingMergeTree('/clickhouse/tables/{shard}/chat_%s', '{replica}')" % table.group(1))
    return re.sub(r"^(CREATE (?:DATABASE|TABLE) IF NOT EXISTS chat(?:\.\w+)?)", r"\1 ON CLUSTER chat", statement)


def check_current_cluster(name, url):
    """What a current release can check of docs/scale.md's cluster without a cluster (chdb is one process,
    without Keeper): docs/clickhouse-current.sql made replicated and the Distributed tables, ON CLUSTER, are
    statements the current parser takes; the settings the documented load URL names exist, the old name
    of the Distributed table's synchronous insert among them as an alias."""
    ddl = [on_cluster(s) for s in statements(os.path.join(ROOT, "docs/clickhouse-current.sql"))]
    ddl += ["CREATE TABLE IF NOT EXISTS chat.%s_all ON CLUSTER chat AS chat.%s "
            "ENGINE = Distributed(chat, chat, %s, sipHash64(channel))" % (t, t, t) for t in ("lines", "records")]
    replicated = sum("ReplicatedReplacingMergeTree" in s and "DateTime64" in s for s in ddl)
    for statement in ddl:
        try:
            post(url, "SELECT formatQuery('%s')" % statement.replace("\\", "\\\\").replace("'", "\\'"))
            ok = True
        except RuntimeError as error:
            ok, statement = False, "%s: %s" % (statement[:80], error)
        check(ok, "%s: the cluster form of docs/clickhouse-current.sql parses: %s" % (name, statement.split("\n")[0][:90]))
    check(replicated == 2, "%s: both tables replicated, with DateTime64 (%d)" % (name, replicated))
    aliases = post(url, "SELECT name, alias_for FROM system.settings WHERE name IN ('insert_distributed_sync', "
                        "'distributed_foreground_insert', 'insert_quorum', 'insert_quorum_timeout') ORDER BY name")
    check(aliases.split("\n")[:4] == ["distributed_foreground_insert\t", "insert_distributed_sync\tdistributed_foreground_insert",
                                      "insert_quorum\t", "insert_quorum_timeout\t"],
          "%s: the settings of the documented cluster load URL exist (%s)" % (name, aliases.split("\n")))


def check_engine(name, url, chatcap, capture, lines, records):
    """docs/clickhouse.sql, load, and the documented queries on one engine; returns the queries' answers."""
    check_migration(name, url)
    for statement in statements(os.path.join(ROOT, "docs/clickhouse.sql")):
        post(url, statement)
    check(True, "%s: docs/clickhouse.sql runs" % name)
    status, stderr = load(chatcap, capture, url)
    check(status == 0, "%s: load exits 0 (%d: %s)" % (name, status, stderr))
    rows = int(post(url, "SELECT count() FROM chat.lines"))
    check(rows == lines, "%s: every captured line is a row (%d of %d)" % (name, rows, lines))
    rows = int(post(url, "SELECT count() FROM chat.records"))
    check(rows == records, "%s: every record is a row of chat.records (%d of %d)" % (name, rows, records))
    recovered = post(url, "SELECT sum(recovered), (SELECT count() FROM chat.lines WHERE historical = 1) "
                          "FROM chat.records WHERE event = 'gap'").split()
    check(recovered[0] == recovered[1] != "0", "%s: the gaps' recovered lines are the historical rows (%s)"
          % (name, recovered))
    answers = {}
    for title, sql in documented_queries().items():
        try:
            answers[title] = post(url, sql + " FORMAT TSVRaw")
            check(answers[title].strip() != "", "%s: docs query '%s' runs (%d rows)"
                  % (name, title, answers[title].count("\n")))
        except RuntimeError as error:
            check(False, "%s: docs query '%s' runs: %s" % (name, title, error))
    millis = post(url, "SELECT channel, key, toUInt64(time) * 1000 + time_ms, toUInt64(received) * 1000 + received_ms "
                       "FROM chat.lines ORDER BY channel, key, 3, 4 FORMAT TSVRaw")
    return answers, millis


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("chatcap")
    parser.add_argument("--keep", help="work in DIR and keep it")
    parser.add_argument("--fast", action="store_true", help="ClickHouse 18.16 alone, a shorter capture")
    args = parser.parse_args()
    chatcap = os.path.abspath(args.chatcap)
    # A test runner may start this with most signals blocked (swift test does); its children inherit the
    # mask, and the server script would never see the SIGTERM that stops it.
    signal.pthread_sigmask(signal.SIG_SETMASK, [])
    try:
        if not args.fast:
            import chdb  # noqa: F401
    except ImportError:
        print("clickhouse_docs.py: chdb is missing (python3 -m pip install chdb-core)", file=sys.stderr)
        return 69
    if shutil.which("clickhouse-server") is None:
        print("clickhouse_docs.py: clickhouse-server is missing (make deps installs it)", file=sys.stderr)
        return 69
    work = args.keep or tempfile.mkdtemp(prefix="chatcap-chdocs-")
    os.makedirs(work, exist_ok=True)
    try:
        capture, lines, records = make_capture(chatcap, work, 4 if args.fast else 7)
        print("capture: %d lines and %d records in %s" % (lines, records, capture), flush=True)

        # ClickHouse 18.16.
        http_port, tcp_port = free_port(), free_port()
        server = subprocess.Popen([os.path.join(ROOT, "Scripts/clickhouse_test_server.sh"),
                                   os.path.join(work, "ch1816"), str(http_port), str(tcp_port)],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            url = "http://127.0.0.1:%d/" % http_port
            for _ in range(300):
                try:
                    version = post(url, "SELECT version()").strip()
                    break
                except (OSError, RuntimeError):
                    time.sleep(0.1)
            name = "ClickHouse " + version
            old, old_millis = check_engine(name, url, chatcap, capture, lines, records)
            # The current-release forms are refused by 18.16 with an error, never taken half.
            status, stderr = load(chatcap, capture, url, "--times", "datetime64")
            check(status == 65, "%s: load --times datetime64 into docs/clickhouse.sql is refused: exit 65 (%d: %s)"
                  % (name, status, stderr))
            post(url, "DROP TABLE chat.lines")
            post(url, "DROP TABLE chat.records")
            try:
                for statement in statements(os.path.join(ROOT, "docs/clickhouse-current.sql")):
                    post(url, statement)
                check(False, "%s refuses docs/clickhouse-current.sql" % name)
            except RuntimeError as error:
                check("Code: 62" in str(error), "%s refuses docs/clickhouse-current.sql (%s)" % (name, str(error)[:60]))
        finally:
            server.send_signal(signal.SIGTERM)
            server.wait()

        if args.fast:
            return finish()
        # A current release, in-process.
        front = ChdbFront(os.path.join(work, "chdb"))
        try:
            name = "ClickHouse %s (chdb)" % front.version
            new, new_millis = check_engine(name, front.url, chatcap, capture, lines, records)
            for title in sorted(set(old) | set(new)):
                check(old.get(title) == new.get(title), "both engines answer '%s' alike" % title)
            check(old_millis == new_millis, "both engines hold the same times, to the millisecond")
            # What docs/scale.md says of current releases' inserts into replicated tables.
            settings = post(front.url, "SELECT getSetting('async_insert'), getSetting('wait_for_async_insert'), "
                                       "getSetting('deduplicate_insert')").split()
            check(settings == ["true", "true", "enable"],
                  "%s: async_insert, wait_for_async_insert, deduplicate_insert are %s (docs/scale.md)" % (name, settings))
            check_current_cluster(name, front.url)
        finally:
            front.stop()

        # The current-release table of docs/clickhouse-current.sql, loaded with --times datetime64.
        front = ChdbFront(os.path.join(work, "chdb-current"))
        try:
            name = "ClickHouse %s (chdb), docs/clickhouse-current.sql" % front.version
            for statement in statements(os.path.join(ROOT, "docs/clickhouse-current.sql")):
                post(front.url, statement)
            check(True, "%s runs" % name)
            # Without --times datetime64 the rows would carry time_ms and received_ms, which a server that
            # skips unknown fields (the default of current releases) would drop with the milliseconds: load
            # checks the table's columns first and says what to do, whatever the server's setting.
            for strict in (False, True):
                front.strict = strict
                status, stderr = load(chatcap, capture, front.url)
                rows = int(post(front.url, "SELECT count() FROM chat.lines"))
                check(status == 78 and "--times datetime64" in stderr and rows == 0,
                      "%s: load without --times datetime64 (unknown fields %s) is refused before any INSERT: "
                      "exit 78 (%d: %s), %d rows" % (name, "refused" if strict else "skipped", status, stderr, rows))
            status, stderr = load(chatcap, capture, front.url, "--times", "datetime64")
            check(status == 0, "%s: load --times datetime64 exits 0 (%d: %s)" % (name, status, stderr))
            rows = int(post(front.url, "SELECT count() FROM chat.lines"))
            check(rows == lines, "%s: every captured line is a row (%d of %d)" % (name, rows, lines))
            millis = post(front.url, "SELECT channel, key, toUnixTimestamp64Milli(time), toUnixTimestamp64Milli(received) "
                                     "FROM chat.lines ORDER BY channel, key, 3, 4 FORMAT TSVRaw")
            check(millis == old_millis, "%s: every row keeps its milliseconds" % name)
            # The example queries of docs/scale.md, time_ms left out as the docs say: same rows.
            for title, sql in documented_queries().items():
                try:
                    answer = post(front.url, re.sub(r",\s*time_ms\b", "", sql) + " FORMAT TSVRaw")
                    if title in old:
                        check(answer.count("\n") == old[title].count("\n"),
                              "%s: docs query '%s' without time_ms: %d rows, as on docs/clickhouse.sql"
                              % (name, title, answer.count("\n")))
                except RuntimeError as error:
                    check(False, "%s: docs/scale.md query '%s' without time_ms runs: %s" % (name, title, error))
            nonzero = sum(1 for row in millis.splitlines() if not row.split("\t")[2].endswith("000"))
            check(nonzero > lines // 2, "%s: times with milliseconds (%d of %d rows)" % (name, nonzero, lines))
        finally:
            front.stop()
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    return finish()


def finish():
    if failures:
        print("%d check(s) failed" % len(failures), file=sys.stderr)
        return 1
    print("all checks hold")
    return 0


if __name__ == "__main__":
    sys.exit(main())
