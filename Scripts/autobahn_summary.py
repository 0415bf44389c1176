#!/usr/bin/env python3
"""Summarises an Autobahn fuzzing-client report (reports/servers/index.json) per case group.

Usage: autobahn_summary.py INDEX_JSON ACCEPTED_TXT

The fuzzing client tests an echo server: most cases send a message and expect it back. `serve` is
an IRC server (a text frame is an IRC line; it answers with IRC, or nothing), so Autobahn's own
verdict of every case that expects an echo is FAILED however well serve speaks WebSocket. This script
therefore judges each case twice, and prints both:

- Autobahn: the report's verdict (its `behavior`).
- protocol: the case's WebSocket behaviour without the echo, from the case's own report file:
  the frames serve sent other than messages (pongs, close) are those the case expects other than
  messages, in order; and the close is right: Autobahn's close verdict (`behaviorClose`: closed by
  the endpoint the case expects, cleanly, with an expected code) is OK, or, when the client closes
  after its echo timeout (with 1001 instead of the 1000 an echo would have earned, so Autobahn finds
  a WRONG CODE), serve answered that close with the same code and the close was clean. A case whose protocol verdict is
  OK is OK however Autobahn judged it; otherwise Autobahn's verdict stands, FAILED if it was OK.

Prints one row per group (the case id's first number) with the protocol verdicts, then every case
that is not OK. Exits 1 when a case FAILED that ACCEPTED_TXT does not list (one case id a line,
`#` comments, each with the reason docs/serve.md gives).
"""

import collections
import json
import os
import sys

ORDER = ["OK", "NON-STRICT", "INFORMATIONAL", "UNIMPLEMENTED", "FAILED"]
GROUPS = {
    "1": "framing",
    "2": "pings and pongs",
    "3": "reserved bits",
    "4": "opcodes",
    "5": "fragmentation",
    "6": "UTF-8",
    "7": "close handling",
    "9": "limits and performance",
    "10": "miscellaneous",
    "12": "permessage-deflate",
    "13": "permessage-deflate",
}


def case_key(case):
    return [int(part) for part in case.split(".")]


def without_messages(events):
    return [event for event in events if event[0] != "message"]


def protocol_ok(case):
    """Whether the case's WebSocket behaviour, the echo aside, is what it expects; and why not."""
    received = without_messages(case["received"])
    if not any(without_messages(events) == received for events in case["expected"].values()):
        return False, f"frames other than messages: {received}"
    if case["behaviorClose"] == "OK":
        return True, ""
    if not case["expectedClose"]["closedByMe"]:
        return False, f"close: {case['behaviorClose']} ({case['resultClose']})"
    if not case["wasClean"]:
        return False, "close: not clean"
    if case["remoteCloseCode"] != case["localCloseCode"]:
        return False, f"close: answered {case['localCloseCode']} with {case['remoteCloseCode']}"
    return True, ""


def main():
    index_path, accepted_path = sys.argv[1], sys.argv[2]
    with open(index_path) as handle:
        index = json.load(handle)
    accepted = set()
    with open(accepted_path) as handle:
        for line in handle:
            line = line.split("#", 1)[0].strip()
            if line:
                accepted.add(line)
    ((agent, results),) = index.items()
    verdicts = {}
    reasons = {}
    for case_id, result in results.items():
        with open(os.path.join(os.path.dirname(index_path), result["reportfile"])) as handle:
            case = json.load(handle)
        ok, reason = protocol_ok(case)
        behavior = result["behavior"]
        verdicts[case_id] = "OK" if ok else ("FAILED" if behavior == "OK" else behavior)
        reasons[case_id] = reason
    counts = collections.defaultdict(collections.Counter)
    autobahn_ok = collections.Counter()
    for case_id, verdict in verdicts.items():
        group = case_id.split(".")[0]
        counts[group][verdict] += 1
        autobahn_ok[group] += results[case_id]["behavior"] == "OK"
    print(f"Autobahn fuzzing client against {agent}: {len(results)} cases (protocol verdicts)")
    header = ["group", "cases"] + ORDER + ["Autobahn OK"]
    print("| " + " | ".join(header) + " |")
    print("|" + "|".join("---" for _ in header) + "|")
    total = collections.Counter()
    for group in sorted(counts, key=int):
        row = counts[group]
        total.update(row)
        name = f"{group} {GROUPS.get(group, '')}".strip()
        cells = [name, str(sum(row.values()))] + [str(row[v]) for v in ORDER] + [str(autobahn_ok[group])]
        print("| " + " | ".join(cells) + " |")
    cells = ["all", str(sum(total.values()))] + [str(total[v]) for v in ORDER]
    print("| " + " | ".join(cells + [str(sum(autobahn_ok.values()))]) + " |")
    failed = []
    not_ok = sorted((c for c in verdicts if verdicts[c] != "OK"), key=case_key)
    if not_ok:
        print("\nnot OK (verdict; Autobahn's behaviour / close behaviour / serve's close code; why):")
    for case_id in not_ok:
        result = results[case_id]
        note = ""
        if verdicts[case_id] == "FAILED":
            if case_id in accepted:
                note = "  [accepted: Scripts/autobahn_accepted.txt]"
            else:
                failed.append(case_id)
        print(
            f"  {case_id}: {verdicts[case_id]}; {result['behavior']} / {result['behaviorClose']} / "
            f"{result['remoteCloseCode']}; {reasons[case_id]}{note}"
        )
    if failed:
        print(f"\n{len(failed)} case(s) FAILED that are not accepted: {', '.join(failed)}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
