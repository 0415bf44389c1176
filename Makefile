# chatcap — every entry point a developer or CI needs. `make run` and `make test` work on a fresh
# Debian machine: `deps` installs what is missing (idempotent; root or sudo).

SHELL := /bin/bash
.SHELLFLAGS := -euo pipefail -c
export PATH := /opt/swift/usr/bin:$(PATH)

SWIFT ?= swift
JOBS ?= 2
# Debian packages the build needs (all `make run` installs), then what the tests and benches add.
# `deps` also pip-installs the Python packages the tests run: jsonschema, selenium, and the third-party
# WebSocket clients `websockets` and twitchio 2.10 (Tests/CLITests/WebSocketCLITests.swift).
# `systemd` is for `systemd-analyze verify` of docs/chatcap-capture.service (SystemdNotifyCLITests);
# no test starts systemd. `prometheus` (and its promtool) scrapes capture --http-port in LiveHTTPCLITests.
# `chromium` (headless) drives chatcap logs' page in LogsPageBrowserTests, through `chromium-driver`
# and selenium (pip) for the clicks. `zookeeper` coordinates the
# replicas of `make cluster` (Scripts/clickhouse_cluster.sh; run as a plain java process, not a service).
BUILD_PACKAGES := libssl-dev zlib1g-dev libisal-dev libcurl4-openssl-dev libmicrohttpd-dev pkg-config
DEB_PACKAGES := $(BUILD_PACKAGES) isal jq tmux openssl python3 gzip inspircd weechat-headless bsdutils time strace prometheus \
	clickhouse-server curl binutils systemd chromium chromium-driver zookeeper
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
FIXTURE_LINES ?= 1000000
BENCH_LOG := Fixtures/generated/bench.irc
# 1,000 channels for the many-channels bench (serve → tail --channels-file).
MANY_LOG := Fixtures/generated/many1000.irc
# 10,000 channels (300,000 lines): `make bench`'s capture of 10,000 channels and `make bench-budget`.
BUDGET_LOG := Fixtures/generated/many10000.irc
MANY_LINES ?= 300000
FUZZ_RUNS ?= 10000000
FUZZ_SECONDS ?= 1500
RUN_FIXTURE ?= Fixtures/lines/privmsg.irc
PREFIX ?= /usr/local

.PHONY: all deps deps-build install-packages build release install run test tsan bench bench-budget bench-http bench-logs instructions alloc fuzz fixtures golden check format lint clean crashloop clickhouse-docs autobahn cluster cluster-stop test-cluster suite-times

all: build

# `make run` needs only the build's packages; `deps` installs everything the tests and benches use.
deps-build:
	@$(MAKE) --no-print-directory install-packages PACKAGES="$(BUILD_PACKAGES)"

deps:
	@$(MAKE) --no-print-directory install-packages PACKAGES="$(DEB_PACKAGES)"
	@python3 -c "import jsonschema, websockets, selenium, twitchio; assert twitchio.__version__ == '2.10.0'" 2>/dev/null \
		|| python3 -m pip install -q jsonschema websockets selenium twitchio==2.10.0

# Installs what is missing of PACKAGES (idempotent; one apt-get call).
install-packages:
	@missing=""; for p in $(PACKAGES); do dpkg -s "$$p" >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
		echo "installing:$$missing"; \
		$(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing; \
	fi

build: deps
	$(SWIFT) build -j $(JOBS)

release: deps
	$(SWIFT) build -c release -j $(JOBS)

# The shipped binary (install, run, bench) links the Swift runtime statically: it runs without a
# Swift toolchain, and maps only the runtime pages it uses (peak RSS 3.4 MB lower in every
# channels_bench row). Only for products: test-support targets import Testing, which has no static
# build. Every release build of chatcap uses it, so SwiftPM does not relink back and forth.
STATIC := --static-swift-stdlib

# The binary, bash/zsh/fish completions and the man page under PREFIX (DESTDIR for packaging).
install: deps-build
	$(SWIFT) build -c release -j $(JOBS) $(STATIC) --product chatcap
	$(SWIFT) build -c release -j $(JOBS) $(STATIC) --product generate-manual
	Scripts/install.sh .build/release/chatcap $(PREFIX) .build/release/generate-manual

# The demo: replay a bundled fixture through the whole pipeline as readable text.
run: deps-build
	$(SWIFT) build -c release -j $(JOBS) $(STATIC) --product chatcap
	.build/release/chatcap replay $(RUN_FIXTURE) --format text --color always

# What CI runs (.ci/run): lint and the module graph, the unit suites, then the process-driving suites
# in three runs side by side with the stress scenarios under TSan (make tsan; Scripts/run_tests.sh says why).
test: deps
	mkdir -p .build
	$(SWIFT) build --build-tests -j $(JOBS) 2>&1 | tee .build/build-tests.log
	Scripts/check_warnings.sh .build/build-tests.log
	$(SWIFT) build -j $(JOBS) --product generate-manual
	$(MAKE) lint
	SWIFT=$(SWIFT) TSAN="$(MAKE) --no-print-directory tsan STRESS_SCALE=0.25" Scripts/run_tests.sh

# The cross-thread stress scenarios of ChatStore, ChatInput and ChatGzip (Tests/StressChecks) under ThreadSanitizer,
# in a build folder of their own. Only the StressChecks executable is built with TSan (the modules it
# imports, not the whole package and its test targets). Optimised (-c release), so that the standard
# library's generic accessors (Span's subscript, pointer initialize) are inlined into the instrumented
# code: at -Onone they are calls into the uninstrumented libswiftCore and TSan missed a race through
# them (README, "make tsan"). assert() and the dynamic exclusivity checks stay on, as in debug. The
# first race ends the run (halt_on_error=1) and fails it, as does a failed check. STRESS picks scenarios
# by name (`StressChecks --list`). STRESS_SCALE runs each scenario at a fraction of its full size
# (Tests/StressChecks/StressScale.swift): `make test` runs them at a quarter, `make tsan` whole.
STRESS ?=
STRESS_SCALE ?= 1
TSAN_BUILD := -c release --sanitize=thread --scratch-path .build-tsan \
	-Xswiftc -assert-config -Xswiftc Debug -Xswiftc -enforce-exclusivity=checked
tsan: deps
	$(SWIFT) build $(TSAN_BUILD) -j $(JOBS) --product StressChecks
	TSAN_OPTIONS=halt_on_error=1 STRESS_SCALE=$(STRESS_SCALE) .build-tsan/release/StressChecks $(STRESS)

# Each process-driving suite's time run alone, into Scripts/cli_suite_seconds.txt: the weights `make
# test` deals its side-by-side parts by (Scripts/run_tests.sh). About 17 minutes; run it on a quiet
# machine when suites were added or changed much, and commit the file.
suite-times: deps
	$(SWIFT) build --build-tests -j $(JOBS)
	SWIFT=$(SWIFT) Scripts/suite_seconds.sh

# The kill -9 loop of issue 23 at length: capture killed CRASH_CYCLES times mid-stream (levels 1 and 6,
# TCP and WebSocket), every line of every file checked whole (the suite runs 4 cycles of each).
CRASH_CYCLES ?= 30
crashloop: deps
	$(SWIFT) build --build-tests -j $(JOBS)
	CRASH_CYCLES=$(CRASH_CYCLES) $(SWIFT) test --skip-build --filter CrashRepairCLITests

# The ClickHouse docs against two engines (about 15 s; its 18.16 half, --fast, is ClickHouseDocsTests in
# `make test`): docs/clickhouse.sql and its migration, `load` of a fresh capture with gaps and backfilled
# lines, and every sql block of the docs on Debian's ClickHouse 18.16 and
# on a current release (chdb-core from PyPI: ClickHouse in-process), which must answer alike; and
# docs/clickhouse-current.sql with `load --times datetime64` on the current release, milliseconds kept,
# and its cluster form (docs/scale.md: replicated, ON CLUSTER, Distributed) parsed by the current release.
clickhouse-docs: deps
	@python3 -c "import chdb" 2>/dev/null || python3 -m pip install -q chdb-core
	$(SWIFT) build -j $(JOBS) --product chatcap
	python3 Scripts/clickhouse_docs.py .build/debug/chatcap

# A ClickHouse cluster to try load against (docs/scale.md): ZooKeeper and four clickhouse-server 18.16
# as 2 shards x 2 replicas on 127.0.0.1 (ports from CLUSTER_PORT: ZooKeeper there, the servers' HTTP
# at +10, +20, +30, +40), files in CLUSTER_DIR, tables of docs/clickhouse.sql replicated plus
# chat.lines_all and chat.records_all (Distributed). Prints `shard S replica R http://127.0.0.1:PORT/`
# per server; `make cluster-stop` stops them all by PID.
CLUSTER_DIR ?= /tmp/chatcap-cluster
CLUSTER_PORT ?= 19100
cluster: deps
	Scripts/clickhouse_cluster.sh start $(CLUSTER_DIR) $(CLUSTER_PORT)

cluster-stop:
	Scripts/clickhouse_cluster.sh stop $(CLUSTER_DIR)

# load into that cluster while a replica is killed (ClusterLoadTests: both ways of docs/scale.md, each on
# a fresh cluster), then while a replica of each shard and ZooKeeper are killed, and the docs' queries
# through the Distributed tables against one server's plain tables; minutes, so CI runs it after
# `make test` (.ci/run). The test stops its servers by PID; what a crashed or timed-out run leaves is
# stopped here afterwards, from the PID files in the test's own temporary folder (never by name:
# others may run ClickHouse beside it).
test-cluster: deps
	$(SWIFT) build --build-tests -j $(JOBS)
	@tmp=$$(mktemp -d "$${TMPDIR:-/tmp}/chatcap-test-cluster.XXXXXX"); \
	trap 'for d in "$$tmp"/*/cluster*; do if [ -f "$$d/base_port" ]; then Scripts/clickhouse_cluster.sh stop "$$d"; fi; done; \
		[ -n "$${KEEP_TEST_DIRS:-}" ] || rm -rf "$$tmp"' EXIT; \
	echo "TMPDIR=$$tmp $(SWIFT) test --skip-build --filter ClusterLoadTests"; \
	TMPDIR=$$tmp $(SWIFT) test --skip-build --filter ClusterLoadTests

# The Autobahn testsuite's fuzzing client (PyPI autobahntestsuite 0.8.2; Python 2.7, pyenv's or
# python2.7 on PATH, said plainly when there is none) against `serve --ws-port`: every case but the
# performance (9.*) and permessage-deflate (12.*, 13.*) groups, summarised per group; fails when a
# case FAILED that Scripts/autobahn_accepted.txt does not list (a few minutes; not in `make test`).
# See docs/serve.md, "Autobahn testsuite".
autobahn: deps
	$(SWIFT) build -j $(JOBS) --product chatcap
	Scripts/autobahn.sh .build/debug/chatcap

# Large generated logs for benchmarks (never committed).
fixtures: $(BENCH_LOG) $(BENCH_LOG).gz $(MANY_LOG)
$(MANY_LOG): Scripts/generate_fixtures.py
	python3 Scripts/generate_fixtures.py --lines $(MANY_LINES) --channels 1000 --out $@
$(BENCH_LOG): Scripts/generate_fixtures.py
	python3 Scripts/generate_fixtures.py --lines $(FIXTURE_LINES) --out $@
$(BENCH_LOG).gz: $(BENCH_LOG)
	gzip -c $< > $@

# Release-build throughput figures, with a memchr line-count floor measured in the same run. The
# capture of 10,000 channels runs 25 s: its first seconds go to creating 10,000 directories and files,
# and its "once joined" line is the figure of issue #39 (>= 400,000 lines/s).
bench: deps fixtures $(BUDGET_LOG)
	$(SWIFT) build -c release -j $(JOBS) --product ChatBench
	mkdir -p .build/bench
	cc -O2 -o .build/bench/memchr-floor Benchmarks/memchr_floor.c
	.build/release/ChatBench $(BENCH_LOG) --floor .build/bench/memchr-floor
	$(SWIFT) build -c release -j $(JOBS) $(STATIC) --product chatcap
	Benchmarks/replay_bench.sh .build/release/chatcap $(BENCH_LOG).gz
	Benchmarks/live_bench.sh .build/release/chatcap $(BENCH_LOG)
	Benchmarks/watch_bench.sh .build/release/chatcap $(BENCH_LOG)
	Benchmarks/capture_bench.sh .build/release/chatcap $(BENCH_LOG)
	CAPTURE_BENCH_RUNS=' ' Benchmarks/capture_bench.sh .build/release/chatcap $(BUDGET_LOG) 25
	Benchmarks/channels_bench.sh .build/release/chatcap
	Benchmarks/realchat_channels_bench.sh .build/release/chatcap
	Benchmarks/many_channels_bench.sh .build/release/chatcap $(MANY_LOG)

# The memory budget (issue #26): tail of 10,000 busy channels (serve --speed max --loop) for
# BUDGET_SECONDS with the default --memory-budget, then 40 s without one (1024G): peak RSS, what was
# trimmed, serve's lines sent against tail's lines read. Heavy: minutes at full speed on both cores.
BUDGET_SECONDS ?= 300
$(BUDGET_LOG): Scripts/generate_fixtures.py
	python3 Scripts/generate_fixtures.py --lines 300000 --channels 10000 --out $@
bench-budget: deps $(BUDGET_LOG)
	$(SWIFT) build -c release -j $(JOBS) $(STATIC) --product chatcap
	Benchmarks/budget_bench.sh .build/release/chatcap $(BUDGET_LOG) 1G $(BUDGET_SECONDS)
	Benchmarks/budget_bench.sh .build/release/chatcap $(BUDGET_LOG) 1024G 40

# chatcap logs over a generated archive (30 days of a 100,000-line channel and 200 quiet ones): a user's
# month, a channel's day, search, 100 concurrent clients; then the same archive loaded into a throwaway
# ClickHouse (Scripts/clickhouse_test_server.sh, Debian's clickhouse-server) and a user's month and a
# day asked of logs --dir and logs --clickhouse side by side (CLICKHOUSE=0 skips that part).
bench-logs: deps-build
	$(SWIFT) build -c release -j $(JOBS) $(STATIC) --product chatcap
	Benchmarks/logs_bench.sh .build/release/chatcap

# Does a hostile HTTP client slow capture? lines/s without --http-port, with it, and with 1,000 idle
# and 100 slowloris connections against it (docs/capture.md, "Metrics, health and recent messages over HTTP").
bench-http: deps fixtures
	$(SWIFT) build -c release -j $(JOBS) $(STATIC) --product chatcap
	Benchmarks/http_flood_bench.sh .build/release/chatcap $(BENCH_LOG)

# Instructions per line under valgrind (deterministic, unlike wall time on a shared machine): stats
# and replay raw/json over the first 100,000 bench lines; then one channel holding the 300,000 lines
# of the many-channels log against the same lines over its 1,000 channels (moderation's lookups);
# then the parser's steps alone (ChatBench).
instructions: deps fixtures
	@$(MAKE) --no-print-directory install-packages PACKAGES="valgrind binutils"
	$(SWIFT) build -c release -j $(JOBS) $(STATIC) --product chatcap
	Benchmarks/instructions_bench.sh .build/release/chatcap $(BENCH_LOG) 100000 $(MANY_LOG)
	$(SWIFT) build -c release -j $(JOBS) --product ChatBench
	Benchmarks/parser_instructions.sh .build/release/ChatBench $(BENCH_LOG)

# Heap allocations and Swift retains per scenario, counted with malloc-interposer and Benchmarks/retain_count.c,
# against Tests/AllocationChecks/limits.json.
alloc: deps
	$(SWIFT) build -c release -j $(JOBS) --product AllocationChecks
	cc -O2 -shared -fPIC -o .build/release/libretain_count.so Benchmarks/retain_count.c -ldl
	LD_PRELOAD="$$(pwd)/.build/release/libMallocInterposerSwift.so $$(pwd)/.build/release/libretain_count.so" \
		.build/release/AllocationChecks

# libFuzzer over framer + parser + Twitch views: FUZZ_RUNS executions or FUZZ_SECONDS, whichever first.
# The target is IRCWire's sources and Tests/Fuzz compiled as one module, with Package.swift's settings
# for IRCWire (FUZZ_SWIFTC); `make lint` type-checks it the same way, so a change that breaks the fuzz
# build fails the suite (it once failed to compile, unnoticed: nothing built it).
FUZZ_SWIFTC := swiftc -parse-as-library -module-name IRCWireFuzz -package-name chatcap \
	-enable-upcoming-feature MemberImportVisibility -enable-upcoming-feature InternalImportsByDefault \
	-enable-upcoming-feature ExistentialAny -enable-experimental-feature BuiltinModule -strict-memory-safety
FUZZ_SOURCES = $$(find Sources/IRCWire -name '*.swift') Tests/Fuzz/FuzzParser.swift
fuzz: deps
	mkdir -p .build/fuzz .build/fuzz/corpus
	$(FUZZ_SWIFTC) -O -sanitize=fuzzer,address $(FUZZ_SOURCES) -o .build/fuzz/fuzz-parser
	cp Fixtures/lines/*.irc .build/fuzz/corpus/
	.build/fuzz/fuzz-parser -runs=$(FUZZ_RUNS) -max_total_time=$(FUZZ_SECONDS) -max_len=4096 \
		-print_final_stats=1 .build/fuzz/corpus 2>&1 | tail -n 25

# Re-record every golden file (Fixtures/golden) with the golden tests, check that they pass on what
# they recorded, then show what changed. `swift test --filter` matching nothing runs nothing and
# passes, so the filter is checked against `swift test list` first, and a run that records nothing fails.
GOLDEN_TESTS := ReplayTests/golden
golden:
	$(SWIFT) build --build-tests -j $(JOBS)
	@tests=$$($(SWIFT) test list --skip-build | grep -c '$(GOLDEN_TESTS)' || true); \
	if [ "$$tests" -eq 0 ]; then echo "make golden: no test matches '$(GOLDEN_TESTS)' in swift test list" >&2; exit 1; fi; \
	echo "make golden: $$tests golden tests"
	@# Each recording is reported as a test failure on purpose (a recording never passes silently).
	@RECORD_GOLDEN=1 $(SWIFT) test --skip-build --filter '$(GOLDEN_TESTS)' > .build/golden.log 2>&1 || true
	@recorded=$$(grep -o 'recorded [^ ]* (RECORD_GOLDEN=1)' .build/golden.log | sort -u | wc -l); \
	if [ "$$recorded" -eq 0 ]; then echo "make golden: nothing recorded (.build/golden.log)" >&2; exit 1; fi; \
	echo "make golden: recorded $$recorded files"
	$(SWIFT) test --skip-build --filter '$(GOLDEN_TESTS)'
	git --no-pager diff --stat -- Fixtures/golden

check: deps
	$(SWIFT) build -j $(JOBS) -Xswiftc -warnings-as-errors
	$(MAKE) test

format:
	$(SWIFT) format --in-place --recursive Package.swift Sources Tests Benchmarks

# Style (swift-format, strict), the module graph (Scripts/check_modules.sh), the tests' time limits,
# and that the fuzz target still compiles (type-checked, warnings as errors: about 2 s). Part of `make test`.
lint:
	$(SWIFT) format lint --strict --recursive Package.swift Sources Tests Benchmarks
	SWIFT=$(SWIFT) JOBS=$(JOBS) Scripts/check_modules.sh
	Scripts/check_time_limits.sh
	$(FUZZ_SWIFTC) -typecheck -warnings-as-errors $(FUZZ_SOURCES)

clean:
	rm -rf .build .build-tsan
