#!/usr/bin/env python3
"""Deals test suites to SHARDS side-by-side runs so that their times come out even (Scripts/run_tests.sh).

Reads suite names, one a line, on stdin; WEIGHTS holds `seconds suite` lines (Scripts/suite_seconds.sh
writes them: each suite's time run alone). The suites go out longest first, each to the shard with
the fewest seconds so far (ties: the lower shard); a suite WEIGHTS does not know weighs the median of
the known ones (60 s when none is known, or WEIGHTS is missing). Prints SHARDS lines, each the
suites of one shard, space-separated, after its total seconds; a shard that got none prints its 0.
Every suite is dealt exactly once, whatever the weights.

Usage: deal_suites.py SHARDS WEIGHTS < SUITES
"""
import sys


def read_weights(path):
    weights = {}
    try:
        with open(path, encoding="utf-8") as lines:
            for line in lines:
                fields = line.split()
                if len(fields) == 2:
                    try:
                        weights[fields[1]] = float(fields[0])
                    except ValueError:
                        pass
    except OSError:
        pass
    return weights


def deal(suites, shards, weights):
    known = sorted(weights.values())
    median = known[len(known) // 2] if known else 60.0
    order = sorted(set(suites), key=lambda suite: (-weights.get(suite, median), suite))
    totals = [0.0] * shards
    dealt = [[] for _ in range(shards)]
    for suite in order:
        shard = min(range(shards), key=lambda k: (totals[k], k))
        totals[shard] += weights.get(suite, median)
        dealt[shard].append(suite)
    return totals, dealt


def main(arguments):
    if len(arguments) != 2 or not arguments[0].isdigit() or int(arguments[0]) < 1:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    suites = [line.strip() for line in sys.stdin if line.strip()]
    totals, dealt = deal(suites, int(arguments[0]), read_weights(arguments[1]))
    for total, names in zip(totals, dealt):
        print(" ".join([f"{total:.0f}"] + names))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
