-- Twitch chat captured by `chatcap capture`, loaded by `chatcap load` (docs/scale.md): chat.lines, one
-- row per line of DIR/<channel>/*.log.gz, and chat.records, one row per record capture kept of itself in
-- DIR/_session (gaps and what their backfill recovered, start and stop, joins and parts). Works on
-- ClickHouse 18.16 (Debian's clickhouse-server package) and on current releases.
--
--   clickhouse-client --multiquery < docs/clickhouse.sql
--   Scripts/clickhouse_schema.sh http://127.0.0.1:8123/    (HTTP: one statement per request)
--
-- Deduplication. The same line loaded twice — a batch re-sent after a crash or an outage, or the
-- same channel captured by two redundant hosts (`capture --shard K/N` on both) — must end as one row.
-- ReplacingMergeTree keeps one row per sorting key (per partition) when parts merge; a query sees
-- exactly one row per key with FINAL (or after OPTIMIZE TABLE chat.lines FINAL). The key is
--   (channel, time, time_ms, key)
-- where `key` is Twitch's message `id` (PRIVMSG, USERNOTICE: unique per message and channel). A line
-- without an id gets 'h' followed by 16 hex digits of the 64-bit FNV-1a hash of the line without the
-- capture's `time` tag (docs/scale.md shows how to compute it). `time` is Twitch's `tmi-sent-ts` when
-- the line has one (every chat message and moderation event), which every host receives unchanged:
-- both hosts' copies of a message or a CLEARCHAT share the whole key and the partition.
-- Lines without tmi-sent-ts (ROOMSTATE, USERSTATE, NOTICE, JOIN, PART, 353/366) take the capture's
-- receive time instead, and their key adds ':' and the line's end offset in its capture file (in
-- decompressed bytes): a re-sent batch still collapses (same file, same bytes, same offset), two
-- identical lines received in the same millisecond stay two rows, and the copies of two hosts both
-- stay — they are each host's own observations (the JOIN echo even carries each host's own nick).
--
-- Times. DateTime64 (milliseconds) does not exist in 18.16: times are a DateTime('UTC') plus a UInt16
-- of milliseconds (0–999). Epoch milliseconds are toUInt64(time) * 1000 + time_ms.
--
-- This file runs unchanged on 18.16 and on current releases (`make clickhouse-docs` checks it on
-- 18.16 and on 26.9). On a current release (20.1 and later) you may use docs/clickhouse-current.sql
-- instead: `time` and `received` are DateTime64(3, 'UTC') (no time_ms, received_ms), `channel`,
-- `type`, `msg_id` and `color` are LowCardinality(String), `raw` and `text` are compressed with ZSTD.
-- That table needs `load --times datetime64`, which sends the times with their milliseconds
-- (1763700021.947) and no _ms columns: plain `load` would send whole seconds plus time_ms and
-- received_ms, which a current release (input_format_skip_unknown_fields = 1) would drop with the
-- milliseconds, without an error; `load` reads the table's columns first and stops (exit 78), naming
-- --times datetime64. For a cluster: ReplicatedReplacingMergeTree
-- plus a Distributed table (docs/scale.md).

CREATE DATABASE IF NOT EXISTS chat;

CREATE TABLE IF NOT EXISTS chat.lines
(
    time            DateTime('UTC'),  -- tmi-sent-ts (server time), else the capture's receive time
    time_ms         UInt16,           -- milliseconds of `time`
    received        DateTime('UTC'),  -- the capture's receive time (its `time` tag, 0 with --verbatim)
    received_ms     UInt16,
    channel         String,           -- channel login, lower case, no '#'
    room_id         UInt64,           -- room-id (0: not on the line)
    type            String,           -- the IRC command: PRIVMSG, USERNOTICE, CLEARCHAT, CLEARMSG, NOTICE, ROOMSTATE, JOIN, 353, …
    msg_id          String,           -- msg-id: USERNOTICE kind (sub, resub, raid, …), NOTICE id
    id              String,           -- Twitch's message id ('' when the line has none)
    key             String,           -- deduplication key: id, or 'h' + FNV-1a 64 of the line without its time tag (+ ':' + offset)
    user_id         UInt64,           -- the sender's user-id
    login           String,           -- the sender's login (PRIVMSG, JOIN, PART: source nick, USERNOTICE: login tag)
    display_name    String,
    color           String,
    text            String,           -- message text (PRIVMSG without the /me wrapper, USERNOTICE, NOTICE, CLEARMSG's deleted text)
    action          UInt8,            -- 1: a /me message
    bits            UInt32,           -- cheered bits
    reply_parent_id String,           -- reply-parent-msg-id: the message this one answers
    target_user_id  UInt64,           -- CLEARCHAT: the banned or timed-out user
    target_login    String,           -- CLEARCHAT: that user's login, CLEARMSG: the deleted message's sender
    target_msg_id   String,           -- CLEARMSG: the deleted message's id
    ban_duration    UInt32,           -- CLEARCHAT: timeout in seconds (0 with a target: a permanent ban)
    badges          Array(String),    -- 'name/version', e.g. 'subscriber/12', 'moderator/1'
    badge_info      Array(String),    -- 'subscriber/14' (months)
    source_room_id  UInt64,           -- shared chat: the channel the message was sent in (0: none)
    historical      UInt8 DEFAULT 0,  -- 1: recovered after a gap from a recent-messages service (historical=1), not received live
    raw             String            -- the line as captured, byte for byte, with the time tag, without CR LF
)
ENGINE = ReplacingMergeTree()
PARTITION BY toYYYYMM(time)
ORDER BY (channel, time, time_ms, key);

-- Capture's own records (docs/capture.md, "Session records"), a table of their own rather than rows or
-- columns of chat.lines: they are not chat (every query of chat.lines would have to leave them out, and
-- `logs --clickhouse` reads chat.lines as chat), most have no channel (start, stop, connected: target
-- `*`, channel ''), their columns (a gap's interval, its backfill) would be empty in every chat row, and
-- they are each capture host's own observations: two redundant hosts' gaps are two rows, and an interval
-- is missing from the archive only where every host that captured the channel has a gap. A line a
-- backfill recovered is chat: it is in chat.lines, with historical = 1. The key collapses a batch loaded
-- twice (the same line at the same offset of the same file), as for chat.lines' lines without
-- tmi-sent-ts. Times as in chat.lines: DateTime plus milliseconds; 0 (1970-01-01) when a record has no
-- such time (gap_from of a start record, missing_from of a closed gap).
CREATE TABLE IF NOT EXISTS chat.records
(
    time            DateTime('UTC'),  -- when it happened (a gap: its end)
    time_ms         UInt16,
    channel         String,           -- the record's channel without '#', '' for the whole capture
    event           String,           -- start, stop, channels, connected, capabilities, disconnected, reconnect, joined, join-failed, parted, reload, reload-failed, gap, ended-without-stop, back-pressure, skipped, cut-off, fatal
    text            String,           -- the record's description
    gap_from        DateTime('UTC'),  -- gap: the last moment captured before it
    gap_from_ms     UInt16,
    gap_to          DateTime('UTC'),  -- gap: when capture had the channel again (its JOIN)
    gap_to_ms       UInt16,
    reason          String,           -- gap: why (RECONNECT, end of stream, capture was not running, …)
    backfill        String,           -- gap: closed, partial, failed; '' when no recent-messages service was asked
    recovered       UInt32,           -- gap: lines the backfill recovered (in chat.lines with historical = 1)
    missing_from    DateTime('UTC'),  -- gap, backfill partial: the interval still missing
    missing_from_ms UInt16,
    missing_to      DateTime('UTC'),
    missing_to_ms   UInt16,
    backfill_error  String,           -- gap, backfill failed: why
    key             String,           -- 'h' + FNV-1a 64 of the line without its time tag + ':' + end offset in its file
    raw             String            -- the line as captured, byte for byte
)
ENGINE = ReplacingMergeTree()
PARTITION BY toYYYYMM(time)
ORDER BY (channel, time, time_ms, key);

-- Tables made before `load` sent `historical` and the records. Running this file again creates
-- chat.records and leaves chat.lines as it is (CREATE TABLE IF NOT EXISTS). An older chat.lines lacks
-- `historical`: `load` stops before its first INSERT into it (exit 78) and names the first ALTER below;
-- the second marks the rows recovered before the column existed (their raw line has historical=1; a
-- mutation, which ClickHouse runs in the background). Both run on 18.16 and on current releases
-- (`make clickhouse-docs` runs them on a table of the older form). On a cluster, ALTER every shard's
-- local table (each replica, or ON CLUSTER) and the Distributed one.
--
--   ALTER TABLE chat.lines ADD COLUMN historical UInt8 DEFAULT 0 AFTER source_room_id;
--   ALTER TABLE chat.lines UPDATE historical = 1 WHERE match(raw, '^@([^ ]*;)?historical=1[; ]');
