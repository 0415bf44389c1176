#!/usr/bin/env python3
"""Writes a capture directory for `make bench-logs`: one busy channel and many quiet ones, one gzip file
per channel and UTC day, each line as capture stores it (an IRCv3 `time` tag first).

usage: generate_logs_archive.py DIR [DAYS] [BUSY_LINES_PER_DAY] [QUIET_CHANNELS]

- `busy` (room-id 1000): BUSY_LINES_PER_DAY PRIVMSGs a day from 5,000 users (user-id 100000+i,
  login user<i>; user1 writes every day), and every 1,000th line a timeout (CLEARCHAT) or a deletion
  (CLEARMSG) of the line before;
- `quiet000`…: 100 PRIVMSGs a day each from 50 users.
Deterministic (seeded); days end on 2025-11-30.
"""
import gzip
import os
import random
import sys
import time

out = sys.argv[1]
days = int(sys.argv[2]) if len(sys.argv) > 2 else 30
busy_lines = int(sys.argv[3]) if len(sys.argv) > 3 else 100_000
quiet = int(sys.argv[4]) if len(sys.argv) > 4 else 200
random.seed(36)
words = "hello there chat kappa pog lul monka omega based true nice game stream clip when what why".split()
last_day = 1764460800  # 2025-11-30T00:00:00Z


def stamp(ms):
    s, m = divmod(ms, 1000)
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(s)) + ".%03dZ" % m


def privmsg(channel, room, login, uid, ms, n, text):
    return (
        "@time=%s;badge-info=;badges=;color=#1E90FF;display-name=%s;emotes=;first-msg=0;flags=;"
        "id=%08x-0000-4000-8000-%012x;mod=0;room-id=%d;subscriber=0;tmi-sent-ts=%d;turbo=0;user-id=%d;"
        "user-type= :%s!%s@%s.tmi.twitch.tv PRIVMSG #%s :%s\r\n"
        % (stamp(ms), login.capitalize(), room, n, room, ms, uid, login, login, login, channel, text)
    )


def day_file(channel, day_start):
    folder = os.path.join(out, channel)
    os.makedirs(folder, exist_ok=True)
    name = time.strftime("%Y-%m-%d.log.gz", time.gmtime(day_start))
    return gzip.open(os.path.join(folder, name), "wt", compresslevel=1, newline="")


n = 0
for d in range(days):
    start = last_day - (days - d) * 86400
    with day_file("busy", start) as f:
        step = 86_400_000 // busy_lines
        for i in range(busy_lines):
            ms = start * 1000 + i * step
            u = 1 if i % 97 == 0 else random.randrange(5000)
            text = " ".join(random.choice(words) for _ in range(random.randrange(3, 12)))
            f.write(privmsg("busy", 1000, "user%d" % u, 100000 + u, ms, n, text))
            n += 1
            if i % 1000 == 999:
                if i % 2000 == 1999:
                    f.write(
                        "@time=%s;ban-duration=600;room-id=1000;target-user-id=%d;tmi-sent-ts=%d "
                        ":tmi.twitch.tv CLEARCHAT #busy :user%d\r\n" % (stamp(ms + 1), 100000 + u, ms + 1, u))
                else:
                    f.write(
                        "@time=%s;login=user%d;room-id=1000;target-msg-id=%08x-0000-4000-8000-%012x;tmi-sent-ts=%d "
                        ":tmi.twitch.tv CLEARMSG #busy :%s\r\n" % (stamp(ms + 1), u, n - 1, n - 1, ms + 1, text))
    for q in range(quiet):
        channel = "quiet%03d" % q
        with day_file(channel, start) as f:
            for i in range(100):
                ms = start * 1000 + i * 864_000
                u = random.randrange(50)
                f.write(privmsg(channel, 2000 + q, "q%duser%d" % (q, u), 200000 + q * 100 + u, ms, n, "quiet line %d" % i))
                n += 1
print("wrote %d lines: busy %d days x %d lines, %d quiet channels" % (n, days, busy_lines, quiet), file=sys.stderr)
