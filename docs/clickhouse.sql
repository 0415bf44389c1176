-- Twitch chat captured by `chatcap capture`, loaded by `chatcap load` (docs/scale.md): one row per
-- line of DIR/<channel>/*.log.gz. Works on ClickHouse 18.16 (Debian's clickhouse-server package) and
-- on current releases.
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
-- received_ms, and a current release (input_format_skip_unknown_fields = 1) would drop those two
-- columns and the milliseconds with them, without an error. For a cluster: ReplicatedReplacingMergeTree
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
    raw             String            -- the line as captured, byte for byte, with the time tag, without CR LF
)
ENGINE = ReplacingMergeTree()
PARTITION BY toYYYYMM(time)
ORDER BY (channel, time, time_ms, key);
