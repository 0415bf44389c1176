-- The tables of docs/clickhouse.sql in the types of current ClickHouse releases (20.1 and later: not
-- 18.16, which has no DateTime64, no column codecs and only an experimental LowCardinality). Same
-- rows, same key and the same deduplication (docs/clickhouse.sql says how); what differs:
--   time, received DateTime64(3, 'UTC')      milliseconds in the column: no time_ms, received_ms
--   channel, type, msg_id, color              LowCardinality(String): few distinct values, stored as
--                                             dictionary codes
--   text, raw CODEC(ZSTD(3))                  the long strings compressed harder than LZ4
--
-- Load it with `chatcap load DIR --clickhouse URL --times datetime64`: `time` and `received` go as
-- seconds with three decimals, no _ms columns. Without --times datetime64 the rows would carry
-- time_ms and received_ms, which this table lacks: `load` reads the table's columns before its first
-- INSERT and stops (exit 78), naming --times datetime64 (a server that skips unknown fields, the
-- default of current releases, would otherwise take the rows and drop the milliseconds).
-- In the example queries of docs/scale.md, leave out time_ms: `time` holds the milliseconds.
--
--   clickhouse-client --multiquery < docs/clickhouse-current.sql
--   Scripts/clickhouse_schema.sh http://127.0.0.1:8123/ docs/clickhouse-current.sql

CREATE DATABASE IF NOT EXISTS chat;

CREATE TABLE IF NOT EXISTS chat.lines
(
    time            DateTime64(3, 'UTC'),   -- tmi-sent-ts (server time), else the capture's receive time
    received        DateTime64(3, 'UTC'),   -- the capture's receive time (its `time` tag, 0 with --verbatim)
    channel         LowCardinality(String), -- channel login, lower case, no '#'
    room_id         UInt64,
    type            LowCardinality(String), -- the IRC command: PRIVMSG, USERNOTICE, CLEARCHAT, CLEARMSG, NOTICE, ROOMSTATE, JOIN, 353, …
    msg_id          LowCardinality(String), -- msg-id: USERNOTICE kind (sub, resub, raid, …), NOTICE id
    id              String,
    key             String,                 -- deduplication key (docs/clickhouse.sql)
    user_id         UInt64,
    login           String,
    display_name    String,
    color           LowCardinality(String),
    text            String CODEC(ZSTD(3)),
    action          UInt8,
    bits            UInt32,
    reply_parent_id String,
    target_user_id  UInt64,
    target_login    String,
    target_msg_id   String,
    ban_duration    UInt32,
    badges          Array(String),
    badge_info      Array(String),
    source_room_id  UInt64,
    historical      UInt8 DEFAULT 0,        -- 1: recovered by a backfill (docs/clickhouse.sql)
    raw             String CODEC(ZSTD(3))   -- the line as captured, byte for byte
)
ENGINE = ReplacingMergeTree()
PARTITION BY toYYYYMM(time)
ORDER BY (channel, time, key);

-- Capture's records (docs/clickhouse.sql says why they have a table of their own), times with milliseconds.
CREATE TABLE IF NOT EXISTS chat.records
(
    time            DateTime64(3, 'UTC'),   -- when it happened (a gap: its end)
    channel         LowCardinality(String), -- '' for the whole capture
    event           LowCardinality(String), -- start, stop, joined, parted, gap, …
    text            String,
    gap_from        DateTime64(3, 'UTC'),
    gap_to          DateTime64(3, 'UTC'),
    reason          String,
    backfill        LowCardinality(String), -- closed, partial, failed, ''
    recovered       UInt32,
    missing_from    DateTime64(3, 'UTC'),
    missing_to      DateTime64(3, 'UTC'),
    backfill_error  String,
    key             String,
    raw             String CODEC(ZSTD(3))
)
ENGINE = ReplacingMergeTree()
PARTITION BY toYYYYMM(time)
ORDER BY (channel, time, key);
