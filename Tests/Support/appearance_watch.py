#!/usr/bin/env python3
"""When each line appears: on disk in a capture directory, and in a follower's output file.

Usage: appearance_watch.py CAPTURE_DIR FOLLOWER_OUTPUT STOP_FILE RESULT_JSON

Every 50 ms, reads what each `*.gz` file below CAPTURE_DIR holds now (zlib, independent of chatcap's
own decoder: an open gzip member is decoded up to its last flush, members one after another) and what
FOLLOWER_OUTPUT holds now, and notes for every CRLF-ended line the first time (seconds, monotonic)
it was seen in each. Stops once STOP_FILE exists (after one last look), or after 120 s, and writes
RESULT_JSON: {"pairs": [[disk_time, follower_time or null], …] for every line seen on disk,
"diskLines": n, "followerLines": n, "followerNotOnDisk": n, "files": n}.
"""

import json
import os
import sys
import time
import zlib


def main() -> None:
    capture, follower, stop_file, result = sys.argv[1:5]
    files = {}  # path -> {"offset", "decoder", "rest"}
    disk = {}  # line -> first time seen on disk
    followed = {}  # line -> first time seen in the follower's output
    follower_offset = 0
    follower_rest = b""
    started = time.monotonic()

    def look() -> None:
        nonlocal follower_offset, follower_rest
        now = time.monotonic()
        for root, _, names in os.walk(capture):
            for name in sorted(names):
                if not name.endswith(".gz"):
                    continue
                path = os.path.join(root, name)
                state = files.setdefault(path, {"offset": 0, "decoder": zlib.decompressobj(31), "rest": b""})
                with open(path, "rb") as handle:
                    handle.seek(state["offset"])
                    data = handle.read()
                state["offset"] += len(data)
                text = b""
                while data:
                    decoder = state["decoder"]
                    text += decoder.decompress(data)
                    if decoder.eof:  # a member ended: the next one starts with what is left
                        data = decoder.unused_data
                        state["decoder"] = zlib.decompressobj(31)
                    else:
                        data = b""
                *lines, state["rest"] = (state["rest"] + text).split(b"\r\n")
                for line in lines:
                    disk.setdefault(line, now)
        with open(follower, "rb") as handle:
            handle.seek(follower_offset)
            data = handle.read()
        follower_offset += len(data)
        *lines, follower_rest = (follower_rest + data).split(b"\r\n")
        for line in lines:
            followed.setdefault(line, now)

    while not os.path.exists(stop_file) and time.monotonic() - started < 120:
        look()
        time.sleep(0.05)
    look()
    pairs = [[t, followed.get(line)] for line, t in disk.items()]
    with open(result, "w") as out:
        json.dump(
            {
                "pairs": pairs,
                "diskLines": len(disk),
                "followerLines": len(followed),
                "followerNotOnDisk": sum(1 for line in followed if line not in disk),
                "files": len(files),
            },
            out,
        )


if __name__ == "__main__":
    main()
