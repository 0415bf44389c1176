#!/usr/bin/env python3
"""Generate large, realistic, deterministic Twitch IRC logs for chatcap benchmarks.

The output looks like what an anonymous client that requested
``twitch.tv/tags twitch.tv/commands twitch.tv/membership`` receives after joining
several channels: a login preamble, then interleaved PRIVMSGs with the full Twitch
tag set, USERNOTICEs, moderation events (CLEARMSG / CLEARCHAT), ROOMSTATE deltas,
JOIN/PART bursts and PINGs. Lines end in CRLF.

Standard library only. The same ``--seed`` (and the same other arguments) always
gives byte-identical output, also with ``--gzip`` (the gzip header has mtime 0 and
no file name).

Examples::

    python3 Scripts/generate_fixtures.py --lines 1000000 --out Fixtures/generated/bench.irc
    python3 Scripts/generate_fixtures.py --lines 1000000 --gzip --out Fixtures/generated/bench.irc.gz
    python3 Scripts/generate_fixtures.py --lines 1000 --out - | head

Statistics (lines, bytes, mean line length, speed) are printed on stderr.

Rough mix per 1,000,000 lines (seed 1, 6 channels): ~94.6 % PRIVMSG (~4 % replies,
~0.5 % cheers, ~1 % /me, ~4 % emote spam; the two smallest channels are in a shared-chat
session part of the time, which duplicates their messages with source-* tags), ~0.6 %
USERNOTICE, ~0.3 % CLEARMSG/CLEARCHAT, ~4.4 % JOIN/PART, a PING every ~5,000 lines, rare
ROOMSTATE deltas. tmi-sent-ts advances by ~300 messages/s from 1763700000000. The mean line
is ~420 bytes: that is what Twitch's full PRIVMSG tag set (id, client-nonce, badges,
tmi-sent-ts, ...) costs; the text itself averages ~30 bytes.
"""

import argparse
from bisect import bisect_left
import gzip
import os
import random
import sys
import time

CHUNK_LINES = 16384          # lines per buffered write
MESSAGES_PER_SECOND = 300.0  # across all channels
RING = 256                   # recent messages remembered per channel (for replies/moderation)

CHANNEL_NAMES = [
    "pixelharbor", "lunafrost", "grimfang_tv", "velvetspeedruns", "ottertech",
    "mossyforge", "cinderlynx", "nightbloomlive", "quartzquill", "rustyrobotics",
    "saltmarsh_radio", "tidewatcher",
]

# Twitch's classic default name colours plus some custom picks.
COLORS = [
    "#FF0000", "#0000FF", "#008000", "#B22222", "#FF7F50", "#9ACD32", "#FF4500",
    "#2E8B57", "#DAA520", "#D2691E", "#5F9EA0", "#1E90FF", "#FF69B4", "#8A2BE2",
    "#00FF7F", "#9146FF", "#C71585", "#00CED1", "#F4A460", "#7B68EE",
]

GLOBAL_EMOTES = [
    # word, emote id, weight
    ("Kappa", "25", 30), ("LUL", "425618", 28), ("PogChamp", "305954156", 14),
    ("Keepo", "1902", 4), ("4Head", "354", 6), ("BibleThump", "86", 5),
    ("SeemsGood", "64138", 6), ("HeyGuys", "30259", 6), ("NotLikeThis", "58765", 6),
    ("Kreygasm", "41", 5), ("ResidentSleeper", "245", 4), ("TriHard", "120232", 3),
    ("CoolCat", "58127", 3), ("DansGame", "33", 4), ("BabyRage", "22639", 3),
    ("WutFace", "28087", 3), ("VoHiYo", "81274", 3), ("GivePLZ", "112291", 2),
    ("TakeNRG", "112292", 2), ("CoolStoryBob", "123171", 3), ("SMOrc", "52", 2),
    ("HSWP", "446979", 1), ("<3", "555555584", 6), (":)", "1", 4), (":D", "3", 3),
]

WORDS = [
    # (word, weight) -- plain chat vocabulary, including a little punctuation and
    # characters that need IRCv3 tag escaping when quoted in reply-parent-msg-body.
    ("lol", 40), ("lmao", 18), ("gg", 25), ("the", 30), ("a", 20), ("is", 18),
    ("this", 16), ("that", 14), ("chat", 16), ("so", 14), ("no", 14), ("yes", 10),
    ("wait", 10), ("what", 14), ("bro", 12), ("omg", 10), ("nice", 14), ("clip", 8),
    ("it", 12), ("game", 10), ("boss", 6), ("run", 8), ("pb", 4), ("wr", 3),
    ("pace", 4), ("strat", 4), ("ez", 8), ("W", 14), ("L", 10), ("based", 4),
    ("true", 8), ("real", 8), ("streamer", 6), ("mods", 5), ("first", 4), ("time", 6),
    ("again", 6), ("why", 8), ("how", 6), ("did", 6), ("he", 8), ("she", 6),
    ("they", 6), ("just", 10), ("like", 10), ("really", 6), ("never", 5), ("always", 4),
    ("today", 4), ("music", 4), ("song", 4), ("name", 3), ("?", 8), ("!", 6),
    ("??", 5), ("!!!", 3), ("...", 4), ("hello", 6), ("hi", 8), ("hey", 6),
    ("good", 8), ("morning", 3), ("night", 3), ("love", 5), ("hype", 6), ("letsgo", 5),
    ("LETS", 4), ("GOOO", 4), ("xD", 5), (";)", 2), ("\\o/", 1), ("c'mon", 2),
    ("don't", 4), ("it's", 5), ("100%", 2), ("#1", 1), ("@chat", 2), ("https://clips.twitch.tv/ExampleClipSlug-abc123", 1),
    # non-ASCII
    ("café", 1), ("naïve", 1), ("jajaja", 2), ("kkkkk", 2), ("ありがとう", 2), ("草", 2),
    ("すごい", 1), ("좋아요", 1), ("ㅋㅋㅋ", 2), ("привет", 1), ("спасибо", 1), ("Ωmega", 1),
    ("über", 1), ("señor", 1), ("ça", 1), ("😂", 4), ("🔥", 3), ("👍🏽", 1), ("❤️", 2),
    ("💀", 3), ("🙏", 1), ("😭", 2), ("🏳️‍🌈", 1), ("👀", 2), ("𝓯𝓪𝓷𝓬𝔂", 1), ("🐐", 1),
]

COPYPASTAS = [
    "this is the best run I have seen all week and I have been watching since the morning",
    "chat is moving so fast nobody will notice that I am secretly a potato",
    "mods please do not ban me I am just here for the vibes and the music",
    "the boss did not stand a chance today, absolute masterclass from start to finish",
    "I came here to have a good time and honestly I am feeling so attacked right now",
]

CHANNEL_EMOTE_SUFFIXES = ["Hype", "Love", "GG", "Wave", "Cozy", "Rage"]

NAME_A = ["night", "luna", "pixel", "grim", "velvet", "otter", "moss", "cinder", "quartz",
          "rusty", "salt", "tide", "storm", "kettle", "gift", "bit", "fern", "fresh", "old",
          "turbo", "moon", "lurk", "shadow", "frost", "ember", "swift", "sleepy", "happy",
          "mega", "tiny", "cosmic", "retro", "neon", "silent", "lucky", "crispy", "spicy"]
NAME_B = ["owl", "fox", "wolf", "cat", "bear", "moth", "lynx", "goblin", "wizard", "knight",
          "gamer", "runner", "coder", "baker", "pilot", "ninja", "panda", "otter", "dragon",
          "sprout", "corn", "toast", "noodle", "pickle", "raven", "comet", "beetle", "yeti"]
CJK_NAMES = ["日本語ユーザー", "ゲーマー太郎", "小明同学", "별빛고양이", "토끼전사", "さくら餅"]

SUB_STEPS = [0, 1, 2, 3, 6, 9, 12, 18, 24, 30, 36, 48, 60, 72]
BITS_LEVELS = ["1", "100", "1000", "5000", "10000", "25000", "50000", "100000"]
GIFTER_LEVELS = ["1", "5", "10", "25", "50", "100", "250"]
MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August",
          "September", "October", "November", "December"]


def esc(value):
    """IRCv3 tag value escaping."""
    if "\\" in value:
        value = value.replace("\\", "\\\\")
    return value.replace(";", "\\:").replace(" ", "\\s")


def generate(n_lines, n_channels, seed, write, spread="zipf", join_preamble=True, membership_rate=None):
    """Produce exactly n_lines CRLF-terminated lines, calling write(str) per chunk.

    spread: "zipf" (channel popularity 1/rank, the default) or "even" (every channel equally likely).
    join_preamble: False leaves out the 5 lines a channel of the join preamble (JOIN, 353, 366,
    ROOMSTATE, USERSTATE), so that logs over 1,000 and 10,000 channels carry the same mix of lines.
    membership_rate: the chance that an event is a JOIN/PART burst (1-15 lines) instead of the default
    0.605 %; the other events keep their proportions. None keeps the default draw, byte for byte.
    """
    rng = random.Random(seed)
    rand = rng.random
    randint = rng.randint
    getrandbits = rng.getrandbits
    choice = rng.choice
    choices = rng.choices
    expovariate = rng.expovariate

    def new_uuid():
        h = "%032x" % getrandbits(128)
        return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-{'89ab'[int(h[16], 16) & 3]}{h[17:20]}-{h[20:]}"

    def new_numeric_id(lo=10_000_000, hi=1_299_999_999):
        return str(randint(lo, hi))

    # ------------------------------------------------------------------ channels
    chans = []
    for i in range(n_channels):
        name = CHANNEL_NAMES[i] if i < len(CHANNEL_NAMES) else f"channel{i + 1}"
        room = new_numeric_id(20_000_000, 999_999_999)
        prefix = name.replace("_", "")[:6]
        emotes = []
        for suffix in CHANNEL_EMOTE_SUFFIXES:
            eid = ("emotesv2_%032x" % getrandbits(128)) if rand() < 0.6 else new_numeric_id(300_000_000, 999_999_999)
            emotes.append((prefix + suffix, eid))
        words = [w for w, _ in WORDS] + [w for w, _, _ in GLOBAL_EMOTES] + [w for w, _ in emotes]
        weights = [c for _, c in WORDS] + [c for _, _, c in GLOBAL_EMOTES] + [4] * len(emotes)
        cum = []
        total = 0
        for wt in weights:
            total += wt
            cum.append(total)
        emap = {w: e for w, e, _ in GLOBAL_EMOTES}
        emap.update(dict(emotes))
        emote_words = [w for w, _, _ in GLOBAL_EMOTES[:12]] + [w for w, _ in emotes]
        chans.append({
            "name": name, "room": room, "emap": emap, "words": words, "cum": cum,
            "emote_words": emote_words, "ring": [None] * RING, "ring_n": 0,
            "rewards": [new_uuid() for _ in range(3)], "idx": i,
            "state": {"emote-only": "0", "followers-only": "-1", "r9k": "0", "slow": "0",
                      "subs-only": "0"},
        })
    # channel popularity: Zipf-like
    chan_cum = []
    total = 0.0
    for i in range(n_channels):
        total += 1.0 / (i + 1)
        chan_cum.append(total)
    # the two least popular channels share chat (shared chat / Stream Together session)
    shared = {}
    if n_channels >= 2:
        a, b = chans[-2], chans[-1]
        shared[a["idx"]] = b
        shared[b["idx"]] = a
    shared_on = True

    # ------------------------------------------------------------------ users
    n_users = 4000
    users = []
    seen_logins = set()
    seen_ids = set()
    for i in range(n_users):
        while True:
            a, b = choice(NAME_A), choice(NAME_B)
            style = rand()
            if style < 0.3:
                login = f"{a}{b}{randint(1, 999)}"
                display = f"{a.capitalize()}{b.capitalize()}{login[len(a) + len(b):]}"
            elif style < 0.5:
                login = f"{a}_{b}"
                display = f"{a.capitalize()}_{b.capitalize()}"
            elif style < 0.75:
                login = f"{a}{b}"
                display = login if rand() < 0.5 else login.upper()
            elif style < 0.9:
                login = f"{b}{randint(1, 99999)}"
                display = login.capitalize()
            else:
                login = f"x{a}x{randint(1, 9)}"
                display = login
            if login not in seen_logins:
                seen_logins.add(login)
                break
        if rand() < 0.012:
            display = choice(CJK_NAMES)
        while True:
            uid = new_numeric_id()
            if uid not in seen_ids:
                seen_ids.add(uid)
                break
        r = rand()
        color = choice(COLORS) if r < 0.7 else ("#%06X" % getrandbits(24) if r < 0.85 else "")
        glob = []
        turbo = "0"
        if rand() < 0.15:
            glob.append("premium/1")
        elif rand() < 0.012:
            glob.append("turbo/1")
            turbo = "1"
        r = rand()
        if r < 0.02:
            glob.append("glhf-pledge/1")
        elif r < 0.04:
            glob.append("no_audio/1")
        users.append({"login": login, "display": display, "id": uid, "color": color,
                      "glob": glob, "turbo": turbo, "activity": rand() ** 3,
                      "src": f":{login}!{login}@{login}.tmi.twitch.tv"})
    # activity-weighted sampling of chatters (a few very chatty users, many lurkers)
    user_cum = []
    total = 0.0
    for u in users:
        total += 0.02 + u["activity"]
        user_cum.append(total)
    # broadcasters are users too
    for ch in chans:
        u = {"login": ch["name"], "display": ch["name"].capitalize(), "id": ch["room"],
             "color": choice(COLORS), "glob": ["premium/1"] if rand() < 0.5 else [],
             "turbo": "0", "activity": 0.05,
             "src": f":{ch['name']}!{ch['name']}@{ch['name']}.tmi.twitch.tv"}
        ch["owner"] = u

    # per (user, channel) precomputed tag fragments
    ucache = {}

    def profile(u, ch):
        key = (u["id"], ch["idx"])
        p = ucache.get(key)
        if p is not None:
            return p
        badges = []
        badge_info = ""
        is_owner = u is ch.get("owner")
        mod = "0"
        vip = False
        if is_owner:
            badges.append("broadcaster/1")
        elif rand() < 0.015:
            badges.append("moderator/1")
            mod = "1"
        elif rand() < 0.012:
            badges.append("vip/1")
            vip = True
        sub = "0"
        if is_owner or rand() < 0.3:
            months = randint(1, 80) if not is_owner else randint(12, 90)
            tier = 1 if rand() < 0.9 else (2 if rand() < 0.5 else 3)
            step = max(s for s in SUB_STEPS if s <= months)
            badges.append(f"subscriber/{step if tier == 1 else tier * 1000 + step}")
            badge_info = f"subscriber/{months}"
            sub = "1"
        if rand() < 0.1:
            badges.append("bits/" + choice(BITS_LEVELS))
        if rand() < 0.03:
            badges.append("sub-gifter/" + choice(GIFTER_LEVELS))
        badges.extend(u["glob"])
        bstr = ",".join(badges)
        p = {
            "head": f"@badge-info={badge_info};badges={bstr};",
            "badge_info": badge_info, "badges": bstr,
            "color": f"color={u['color']};", "dn": f"display-name={u['display']};",
            "mod": f"mod={mod};", "mod_v": mod, "sub": sub,
            "tail": (f"subscriber={sub};tmi-sent-ts=", f";turbo={u['turbo']};user-id={u['id']};"
                     f"user-type={'mod' if mod == '1' else ''}{';vip=1' if vip else ''} "
                     f"{u['src']} PRIVMSG #{ch['name']} :"),
            "user_type": "mod" if mod == "1" else "", "vip": vip,
        }
        ucache[key] = p
        return p

    length_table = ([1] * 16 + [2] * 14 + [3] * 13 + [4] * 11 + [5] * 9 + [6] * 8 + [7] * 6
                    + [8] * 5 + [9] * 4 + [10] * 3 + [12] * 3 + [15] * 2 + [20] * 2 + [30] + [45])

    def make_text(ch, prefix_words=None):
        """Return (text, emotes_tag, emote_only)."""
        r = rand()
        if r < 0.04:
            w = choice(ch["emote_words"])
            words = [w] * randint(1, 6)
        elif r < 0.05:
            words = choice(COPYPASTAS).split(" ")
        else:
            words = choices(ch["words"], cum_weights=ch["cum"], k=choice(length_table))
        if prefix_words:
            words = prefix_words + words
        emap = ch["emap"]
        pos = 0
        found = None
        all_emotes = True
        for w in words:
            eid = emap.get(w)
            if eid is not None:
                if found is None:
                    found = {}
                span = f"{pos}-{pos + len(w) - 1}"
                lst = found.get(eid)
                if lst is None:
                    found[eid] = [span]
                else:
                    lst.append(span)
            else:
                all_emotes = False
            pos += len(w) + 1
        text = " ".join(words)
        if found is None:
            return text, "", False
        return text, "/".join(f"{k}:{','.join(v)}" for k, v in found.items()), all_emotes

    # ------------------------------------------------------------------ output state
    buf = []
    emit = buf.append
    written = 0
    out_bytes = [0]
    clock = [1763700000000.0]
    rate = MESSAGES_PER_SECOND / 1000.0

    def flush():
        nonlocal written
        data = "".join(buf)
        written += len(buf)
        buf.clear()
        write(data)

    def tick():
        clock[0] += expovariate(rate)
        return str(int(clock[0]))

    if spread == "even":
        def pick_channel():
            return chans[min(int(rand() * n_channels), n_channels - 1)]
    else:
        def pick_channel():
            return chans[bisect_left(chan_cum, rand() * chan_cum[-1])]

    def pick_user():
        return users[bisect_left(user_cum, rand() * user_cum[-1])]

    def remember(ch, entry):
        ch["ring"][ch["ring_n"] % RING] = entry
        ch["ring_n"] += 1

    def recent(ch):
        n = ch["ring_n"]
        if n == 0:
            return None
        back = min(n, RING)
        return ch["ring"][(n - 1 - int(rand() ** 2 * back)) % RING]

    # ------------------------------------------------------------------ preamble
    me = f"justinfan{randint(10000, 99999)}"
    emit(":tmi.twitch.tv CAP * ACK :twitch.tv/tags twitch.tv/commands twitch.tv/membership\r\n")
    emit(f":tmi.twitch.tv 001 {me} :Welcome, GLHF!\r\n")
    emit(f":tmi.twitch.tv 002 {me} :Your host is tmi.twitch.tv\r\n")
    emit(f":tmi.twitch.tv 003 {me} :This server is rather new\r\n")
    emit(f":tmi.twitch.tv 004 {me} :-\r\n")
    emit(f":tmi.twitch.tv 375 {me} :-\r\n")
    emit(f":tmi.twitch.tv 372 {me} :You are in a maze of twisty passages, all alike.\r\n")
    emit(f":tmi.twitch.tv 376 {me} :>\r\n")
    for ch in (chans if join_preamble else ()):
        c = ch["name"]
        emit(f":{me}!{me}@{me}.tmi.twitch.tv JOIN #{c}\r\n")
        emit(f":{me}.tmi.twitch.tv 353 {me} = #{c} :{me}\r\n")
        emit(f":{me}.tmi.twitch.tv 366 {me} #{c} :End of /NAMES list\r\n")
        st = ch["state"]
        emit(f"@emote-only={st['emote-only']};followers-only={st['followers-only']};r9k={st['r9k']};"
             f"room-id={ch['room']};slow={st['slow']};subs-only={st['subs-only']} "
             f":tmi.twitch.tv ROOMSTATE #{c}\r\n")
        emit(f"@badge-info=;badges=;color=;display-name={me};emote-sets=0;mod=0;subscriber=0;"
             f"user-type= :tmi.twitch.tv USERSTATE #{c}\r\n")

    # ------------------------------------------------------------------ event builders
    def privmsg():
        ch = pick_channel()
        u = ch["owner"] if rand() < 0.01 else pick_user()
        p = profile(u, ch)
        ts = tick()
        mid = new_uuid()
        r = rand()
        bits = ""
        reply = ""
        prefix = None
        action = False
        thread = None
        if r < 0.04:
            parent = recent(ch)
            if parent is not None:
                pid, plogin, puid, pdisp, ptext, pthread = parent
                thread = pthread or (pid, plogin, puid, pdisp)
                reply = (f"reply-parent-display-name={pdisp};reply-parent-msg-body={esc(ptext)};"
                         f"reply-parent-msg-id={pid};reply-parent-user-id={puid};"
                         f"reply-parent-user-login={plogin};"
                         f"reply-thread-parent-display-name={thread[3]};"
                         f"reply-thread-parent-msg-id={thread[0]};"
                         f"reply-thread-parent-user-id={thread[2]};"
                         f"reply-thread-parent-user-login={thread[1]};")
                prefix = ["@" + pdisp]
        elif r < 0.045:
            amount = choice((1, 50, 100, 100, 100, 200, 500, 1000, 5000))
            bits = f"bits={amount};"
            prefix = [f"Cheer{amount}"]
        elif r < 0.055:
            action = True
        text, emotes, emote_only = make_text(ch, prefix)
        body = f"\x01ACTION {text}\x01" if action else text
        r = rand()
        nonce = f"client-nonce={getrandbits(128):032x};" if r < 0.7 else ""
        custom = f"custom-reward-id={choice(ch['rewards'])};" if r > 0.997 else ""
        hl = "msg-id=highlighted-message;" if 0.7 < r < 0.7012 else ""
        r = rand()
        first = "1" if r < 0.006 else "0"
        returning = "1" if 0.5 < r < 0.51 else "0"
        eo = "emote-only=1;" if emote_only else ""
        tail_a, tail_b = p["tail"]
        other = shared.get(ch["idx"]) if shared_on else None
        if other is None:
            emit(f"{p['head']}{bits}{nonce}{p['color']}{custom}{p['dn']}{eo}emotes={emotes};"
                 f"first-msg={first};flags=;id={mid};{hl}{p['mod']}{reply}"
                 f"returning-chatter={returning};room-id={ch['room']};{tail_a}{ts}{tail_b}{body}\r\n")
        else:
            src = (f"source-badge-info={p['badge_info']};source-badges={p['badges']};"
                   f"source-id={mid};source-room-id={ch['room']};")
            emit(f"{p['head']}{bits}{nonce}{p['color']}{custom}{p['dn']}{eo}emotes={emotes};"
                 f"first-msg={first};flags=;id={mid};{hl}{p['mod']}{reply}"
                 f"returning-chatter={returning};room-id={ch['room']};{src}{tail_a}{ts}{tail_b}{body}\r\n")
            q = profile(u, other)
            qa, qb = q["tail"]
            emit(f"{q['head']}{bits}{nonce}{q['color']}{q['dn']}{eo}emotes={emotes};"
                 f"first-msg={first};flags=;id={new_uuid()};{hl}{q['mod']}{reply}"
                 f"returning-chatter={returning};room-id={other['room']};{src}{qa}{ts}{qb}{body}\r\n")
        remember(ch, (mid, u["login"], u["id"], u["display"], text, thread))

    def usernotice_line(ch, u, msg_id, params, system_msg, text=None, emotes=""):
        p = profile(u, ch)
        ts = tick()
        mid = new_uuid()
        tags = {
            "badge-info": p["badge_info"], "badges": p["badges"], "color": u["color"],
            "display-name": u["display"], "emotes": emotes, "flags": "", "id": mid,
            "login": u["login"], "mod": p["mod_v"], "msg-id": msg_id, "room-id": ch["room"],
            "subscriber": p["sub"], "system-msg": esc(system_msg), "tmi-sent-ts": ts,
            "user-id": u["id"], "user-type": p["user_type"],
        }
        if p["vip"]:
            tags["vip"] = "1"
        tags.update(params)
        trailing = f" :{text}" if text is not None else ""
        other = shared.get(ch["idx"]) if shared_on else None
        if other is not None:
            tags.update({"source-badge-info": p["badge_info"], "source-badges": p["badges"],
                         "source-id": mid, "source-msg-id": msg_id, "source-room-id": ch["room"]})
        emit(";".join(f"{k}={v}" for k, v in sorted(tags.items())).join(("@", " "))
             + f":tmi.twitch.tv USERNOTICE #{ch['name']}{trailing}\r\n")
        if other is not None:
            q = profile(u, other)
            tags.update({"badge-info": q["badge_info"], "badges": q["badges"], "id": new_uuid(),
                         "mod": q["mod_v"], "msg-id": "sharedchatnotice", "room-id": other["room"],
                         "subscriber": q["sub"], "user-type": q["user_type"]})
            tags.pop("vip", None)
            if q["vip"]:
                tags["vip"] = "1"
            emit(";".join(f"{k}={v}" for k, v in sorted(tags.items())).join(("@", " "))
                 + f":tmi.twitch.tv USERNOTICE #{other['name']}{trailing}\r\n")

    def plan():
        r = rand()
        return "Prime" if r < 0.3 else ("1000" if r < 0.9 else ("2000" if r < 0.96 else "3000"))

    def plan_label(pl):
        return "Prime" if pl == "Prime" else f"Tier {pl[0]}"

    def usernotice():
        ch = pick_channel()
        u = pick_user()
        dn = u["display"]
        owner = ch["owner"]["display"]
        plan_name = esc(f"Channel Subscription ({ch['name']})")
        kind = choices(UN_KINDS, cum_weights=UN_CUM)[0]
        maybe_text = None
        emotes = ""
        if rand() < 0.45:
            maybe_text, emotes, _ = make_text(ch)
        if kind == "sub":
            pl = plan()
            how = "subscribed with Prime." if pl == "Prime" else f"subscribed at {plan_label(pl)}."
            usernotice_line(ch, u, "sub", {
                "msg-param-cumulative-months": "1", "msg-param-months": "0",
                "msg-param-multimonth-duration": "1", "msg-param-multimonth-tenure": "0",
                "msg-param-should-share-streak": "0", "msg-param-sub-plan": pl,
                "msg-param-sub-plan-name": plan_name, "msg-param-was-gifted": "false"},
                f"{dn} {how}")
        elif kind == "resub":
            pl = plan()
            months = randint(2, 80)
            share = rand() < 0.5
            streak = randint(1, months)
            how = "subscribed with Prime." if pl == "Prime" else f"subscribed at {plan_label(pl)}."
            sysm = f"{dn} {how} They've subscribed for {months} months" + (
                f", currently on a {streak} month streak!" if share else "!")
            params = {
                "msg-param-cumulative-months": str(months), "msg-param-months": "0",
                "msg-param-multimonth-duration": "0", "msg-param-multimonth-tenure": "0",
                "msg-param-should-share-streak": "1" if share else "0",
                "msg-param-sub-plan": pl, "msg-param-sub-plan-name": plan_name,
                "msg-param-was-gifted": "false"}
            if share:
                params["msg-param-streak-months"] = str(streak)
            usernotice_line(ch, u, "resub", params, sysm, maybe_text, emotes)
        elif kind == "subgift":
            rcpt = pick_user()
            pl = choice(("1000", "1000", "1000", "2000", "3000"))
            usernotice_line(ch, u, "subgift", {
                "msg-param-gift-months": "1", "msg-param-months": str(randint(1, 30)),
                "msg-param-origin-id": "%040x" % getrandbits(160),
                "msg-param-recipient-display-name": rcpt["display"],
                "msg-param-recipient-id": rcpt["id"],
                "msg-param-recipient-user-name": rcpt["login"],
                "msg-param-sender-count": str(randint(1, 200)), "msg-param-sub-plan": pl,
                "msg-param-sub-plan-name": plan_name},
                f"{dn} gifted a {plan_label(pl)} sub to {rcpt['display']}! "
                f"This is their first Gift Sub in the channel!")
        elif kind == "submysterygift":
            count = choice((1, 1, 5, 5, 5, 10, 10, 20))
            total = count + randint(0, 500)
            origin = "%040x" % getrandbits(160)
            community = str(getrandbits(63))
            pl = "1000"
            usernotice_line(ch, u, "submysterygift", {
                "msg-param-community-gift-id": community, "msg-param-mass-gift-count": str(count),
                "msg-param-origin-id": origin, "msg-param-sender-count": str(total),
                "msg-param-sub-plan": pl},
                f"{dn} is gifting {count} Tier 1 Subs to {owner}'s community! "
                f"They've gifted a total of {total} in the channel!")
            for _ in range(count):
                rcpt = pick_user()
                usernotice_line(ch, u, "subgift", {
                    "msg-param-community-gift-id": community, "msg-param-gift-months": "1",
                    "msg-param-months": str(randint(1, 30)), "msg-param-origin-id": origin,
                    "msg-param-recipient-display-name": rcpt["display"],
                    "msg-param-recipient-id": rcpt["id"],
                    "msg-param-recipient-user-name": rcpt["login"],
                    "msg-param-sender-count": "0", "msg-param-sub-plan": pl,
                    "msg-param-sub-plan-name": plan_name},
                    f"{dn} gifted a Tier 1 sub to {rcpt['display']}!")
        elif kind == "raid":
            viewers = str(int(expovariate(1 / 300.0)) + 1)
            usernotice_line(ch, u, "raid", {
                "msg-param-displayName": dn, "msg-param-login": u["login"],
                "msg-param-profileImageURL": "https://static-cdn.jtvnw.net/jtv_user_pictures/"
                                             f"{new_uuid()}-profile_image-%s.png",
                "msg-param-viewerCount": viewers},
                f"{viewers} raiders from {dn} have joined!")
        elif kind == "announcement":
            text, em, _ = make_text(ch)
            usernotice_line(ch, u, "announcement", {
                "msg-param-color": choice(("PRIMARY", "PRIMARY", "BLUE", "GREEN", "ORANGE", "PURPLE"))},
                "", text, em)
        elif kind == "viewermilestone":
            value = choice(("3", "5", "5", "7", "10", "15"))
            usernotice_line(ch, u, "viewermilestone", {
                "msg-param-category": "watch-streak", "msg-param-copoReward": "450",
                "msg-param-id": new_uuid(), "msg-param-value": value},
                f"{dn} watched {value} consecutive streams and sparked a watch streak!",
                maybe_text, emotes)
        elif kind == "bitsbadgetier":
            th = choice(BITS_LEVELS[1:])
            usernotice_line(ch, u, "bitsbadgetier", {"msg-param-threshold": th},
                            "bits badge tier notification", maybe_text, emotes)
        elif kind == "ritual":
            text, em, _ = make_text(ch, ["HeyGuys"])
            usernotice_line(ch, u, "ritual", {"msg-param-ritual-name": "new_chatter"},
                            f"@{dn} is new here. Say hello!", text, em)
        elif kind == "giftpaidupgrade":
            g = pick_user()
            usernotice_line(ch, u, "giftpaidupgrade", {
                "msg-param-sender-login": g["login"], "msg-param-sender-name": g["display"]},
                f"{dn} is continuing the Gift Sub they got from {g['display']}!")
        elif kind == "primepaidupgrade":
            usernotice_line(ch, u, "primepaidupgrade", {"msg-param-sub-plan": "1000"},
                            f"{dn} converted from a Prime sub to a Tier 1 sub!")
        elif kind == "communitypayforward":
            g = pick_user()
            usernotice_line(ch, u, "communitypayforward", {
                "msg-param-prior-gifter-anonymous": "false",
                "msg-param-prior-gifter-display-name": g["display"],
                "msg-param-prior-gifter-id": g["id"], "msg-param-prior-gifter-user-name": g["login"]},
                f"{dn} is paying forward the Gift they got from {g['display']} to the community!")
        elif kind == "standardpayforward":
            g = pick_user()
            rcpt = pick_user()
            usernotice_line(ch, u, "standardpayforward", {
                "msg-param-prior-gifter-anonymous": "false",
                "msg-param-prior-gifter-display-name": g["display"],
                "msg-param-prior-gifter-id": g["id"], "msg-param-prior-gifter-user-name": g["login"],
                "msg-param-recipient-display-name": rcpt["display"],
                "msg-param-recipient-id": rcpt["id"], "msg-param-recipient-user-name": rcpt["login"]},
                f"{dn} is paying forward the Gift they got from {g['display']} to {rcpt['display']}!")
        elif kind == "extendsub":
            usernotice_line(ch, u, "extendsub", {
                "msg-param-cumulative-months": str(randint(2, 60)),
                "msg-param-sub-benefit-end-month": str(randint(1, 12)),
                "msg-param-sub-plan": "1000", "msg-param-sub-plan-name": plan_name},
                f"{dn} extended their Tier 1 subscription through {choice(MONTHS)}!")
        elif kind == "charitydonation":
            cents = choice((500, 1000, 2500, 10000))
            usernotice_line(ch, u, "charitydonation", {
                "msg-param-charity-name": esc("Direct Relief"),
                "msg-param-donation-amount": str(cents), "msg-param-donation-currency": "USD",
                "msg-param-exponent": "2"},
                f"{dn}: Donated USD {cents // 100} to support Direct Relief")
        elif kind == "rewardgift":
            usernotice_line(ch, u, "rewardgift", {
                "msg-param-domain": "megacheer_emote_recipient", "msg-param-selected-count": "5",
                "msg-param-total-reward-count": "5", "msg-param-trigger-amount": "1000",
                "msg-param-trigger-type": "CHEER"},
                f"{dn}'s Cheer shared rewards to 5 others in Chat!")
        else:  # anongiftpaidupgrade
            usernotice_line(ch, u, "anongiftpaidupgrade", {},
                            f"{dn} is continuing the Gift Sub they got from an anonymous user!")

    def moderation():
        ch = pick_channel()
        room = ch["room"]
        c = ch["name"]
        target = recent(ch)
        r = rand()
        if target is None or r < 0.01:
            emit(f"@room-id={room};tmi-sent-ts={tick()} :tmi.twitch.tv CLEARCHAT #{c}\r\n")
            return
        tid, tlogin, tuid, _, ttext, _ = target
        if r < 0.5:
            emit(f"@login={tlogin};room-id={room};target-msg-id={tid};tmi-sent-ts={tick()} "
                 f":tmi.twitch.tv CLEARMSG #{c} :{ttext}\r\n")
        elif r < 0.87:
            dur = choice((1, 10, 60, 300, 600, 600, 1800, 3600, 86400))
            emit(f"@ban-duration={dur};room-id={room};target-user-id={tuid};tmi-sent-ts={tick()} "
                 f":tmi.twitch.tv CLEARCHAT #{c} :{tlogin}\r\n")
        else:
            emit(f"@room-id={room};target-user-id={tuid};tmi-sent-ts={tick()} "
                 f":tmi.twitch.tv CLEARCHAT #{c} :{tlogin}\r\n")

    def roomstate():
        ch = pick_channel()
        st = ch["state"]
        key = choice(("slow", "slow", "followers-only", "emote-only", "subs-only", "r9k"))
        if key == "slow":
            val = choice(("0", "3", "10", "30", "120")) if st["slow"] == "0" else "0"
        elif key == "followers-only":
            val = choice(("0", "10", "30", "1440")) if st["followers-only"] == "-1" else "-1"
        else:
            val = "0" if st[key] == "1" else "1"
        st[key] = val
        pair = sorted(((key, val), ("room-id", ch["room"])))
        emit(f"@{pair[0][0]}={pair[0][1]};{pair[1][0]}={pair[1][1]} "
             f":tmi.twitch.tv ROOMSTATE #{ch['name']}\r\n")

    def membership():
        ch = pick_channel()
        verb = "JOIN" if rand() < 0.55 else "PART"
        for _ in range(randint(1, 15)):
            u = users[randint(0, n_users - 1)]
            emit(f"{u['src']} {verb} #{ch['name']}\r\n")

    # ------------------------------------------------------------------ main loop
    # Event thresholds on one draw: privmsg, usernotice, moderation, roomstate, then membership.
    scale = 1.0 if membership_rate is None else (1.0 - membership_rate) / 0.99395
    t_privmsg, t_usernotice, t_moderation, t_roomstate = (
        (0.9855, 0.9905, 0.9938, 0.99395) if membership_rate is None
        else (0.9855 * scale, 0.9905 * scale, 0.9938 * scale, 0.99395 * scale))
    next_ping = 5000 + randint(-500, 500)
    next_toggle = randint(20_000, 60_000)
    while True:
        total_so_far = written + len(buf)
        if total_so_far >= n_lines:
            break
        if total_so_far >= next_ping:
            emit("PING :tmi.twitch.tv\r\n")
            next_ping += 5000 + randint(-500, 500)
            continue
        if total_so_far >= next_toggle:
            # shared chat sessions come and go (Stream Together sessions are temporary)
            shared_on = not shared_on
            next_toggle += randint(20_000, 80_000) if shared_on else randint(40_000, 120_000)
        r = rand()
        if r < t_privmsg:
            privmsg()
        elif r < t_usernotice:
            usernotice()
        elif r < t_moderation:
            moderation()
        elif r < t_roomstate:
            roomstate()
        else:
            membership()
        if len(buf) >= CHUNK_LINES:
            flush()
    # trim to exactly n_lines
    excess = written + len(buf) - n_lines
    if excess > 0:
        del buf[len(buf) - excess:]
    if buf:
        flush()
    return written


UN_TABLE = [
    ("sub", 18), ("resub", 34), ("subgift", 12), ("submysterygift", 4), ("raid", 4),
    ("announcement", 6), ("viewermilestone", 8), ("bitsbadgetier", 2), ("ritual", 3),
    ("giftpaidupgrade", 3), ("primepaidupgrade", 2), ("communitypayforward", 1),
    ("standardpayforward", 1), ("extendsub", 1), ("charitydonation", 1), ("rewardgift", 1),
    ("anongiftpaidupgrade", 1),
]
UN_KINDS = [k for k, _ in UN_TABLE]
UN_CUM = []
_t = 0
for _k, _w in UN_TABLE:
    _t += _w
    UN_CUM.append(_t)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lines", type=int, default=100_000, help="exact number of lines to write (default 100000)")
    ap.add_argument("--out", required=True, help="output file, or - for stdout")
    ap.add_argument("--gzip", action="store_true", help="gzip-compress the output (deterministic header)")
    ap.add_argument("--channels", type=int, default=6, help="number of joined channels (default 6)")
    ap.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    ap.add_argument("--spread", choices=("zipf", "even"), default="zipf",
                    help="how lines spread over channels: zipf (popularity 1/rank, default) or even")
    ap.add_argument("--no-join-preamble", action="store_true",
                    help="leave out the per-channel join preamble (5 lines a channel)")
    ap.add_argument("--membership", type=float, default=None,
                    help="chance that an event is a JOIN/PART burst (default 0.00605); 0.02 gives "
                         "~14%% membership lines, ~377 bytes and ~14.8 tags a line, like real chat")
    args = ap.parse_args(argv)
    if args.lines < 0:
        ap.error("--lines must be >= 0")
    if args.channels < 1:
        ap.error("--channels must be >= 1")
    if args.membership is not None and not 0.0 <= args.membership < 1.0:
        ap.error("--membership must be in [0, 1)")

    if args.out == "-":
        raw = sys.stdout.buffer
        close_raw = False
    else:
        parent = os.path.dirname(os.path.abspath(args.out))
        os.makedirs(parent, exist_ok=True)
        raw = open(args.out, "wb")
        close_raw = True
    sink = gzip.GzipFile(filename="", mode="wb", fileobj=raw, compresslevel=6, mtime=0) if args.gzip else raw

    total_bytes = 0

    def write(s):
        nonlocal total_bytes
        data = s.encode("utf-8")
        total_bytes += len(data)
        sink.write(data)

    started = time.perf_counter()
    try:
        n = generate(args.lines, args.channels, args.seed, write, args.spread,
                     not args.no_join_preamble, args.membership)
    finally:
        if args.gzip:
            sink.close()
        if close_raw:
            raw.close()
        else:
            raw.flush()
    elapsed = time.perf_counter() - started
    mean = total_bytes / n if n else 0.0
    msg = (f"generate_fixtures: {n} lines, {total_bytes} bytes ({total_bytes / 1e6:.1f} MB) uncompressed, "
           f"mean line length {mean:.1f} bytes (incl. CRLF), {elapsed:.2f} s, "
           f"{n / elapsed if elapsed else 0:.0f} lines/s")
    if args.gzip and args.out != "-":
        msg += f", gzip {os.path.getsize(args.out)} bytes"
    print(msg, file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
