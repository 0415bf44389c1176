#!/usr/bin/env python3
"""Validate every line of NDJSON files against a JSON Schema.

Checks chatcap's output formats against their schemas (docs/ndjson.md):

    python3 Scripts/check_ndjson_schema.py docs/ndjson.schema.json Fixtures/golden/*.json Fixtures/golden/moderation.dump
    python3 Scripts/check_ndjson_schema.py docs/irc-atoms.schema.json Fixtures/golden/*.irc
    chatcap replay capture/ --format json | python3 Scripts/check_ndjson_schema.py docs/ndjson.schema.json -

Each line must be one JSON object (or value) that the schema accepts. Besides the schema, a line
fails when it is not valid UTF-8, not JSON, empty, holds NaN/Infinity, or repeats a key in one
object (JSON parsers disagree on duplicates, and the schema cannot see them).

Prints ``N lines valid`` when every line passes. Otherwise prints each failing line as
``file:line: $.json.path: error`` and a count, and exits 1. Exits 2 when the ``jsonschema`` module
is missing or the schema cannot be read or is not a valid schema (and for usage errors).

Needs the ``jsonschema`` package (4.x, for draft 2020-12): ``python3 -m pip install jsonschema``.
"""

import argparse
import json
import signal
import sys

try:
    import jsonschema
    from jsonschema import validators
except ImportError:  # pragma: no cover - depends on the machine
    sys.stderr.write(
        "check_ndjson_schema.py: the Python module 'jsonschema' is not installed.\n"
        "Install it with: python3 -m pip install jsonschema   (or: apt-get install python3-jsonschema)\n")
    sys.exit(2)

MAX_ERRORS_PER_LINE = 5
MAX_MESSAGE_LENGTH = 300  # jsonschema quotes whole instances; a long chat line would flood the report


class LineError(Exception):
    """A line that is not a well-formed JSON value."""


def reject_constant(name):
    raise LineError(f"{name} is not valid JSON")


def unique_object(pairs):
    """object_pairs_hook: refuses duplicate keys, which json.loads would silently collapse."""
    obj = {}
    for key, value in pairs:
        if key in obj:
            raise LineError(f"duplicate key {json.dumps(key, ensure_ascii=False)} in one object")
        obj[key] = value
    return obj


def json_path(parts):
    out = "$"
    for p in parts:
        if isinstance(p, int):
            out += f"[{p}]"
        elif isinstance(p, str) and p.isidentifier():
            out += f".{p}"
        else:
            out += f"[{json.dumps(p, ensure_ascii=False)}]"
    return out


def fails_discriminator(errors):
    """Whether a oneOf/anyOf branch failed on the line's `type` (it describes another type)."""
    return any(list(e.relative_path) == ["type"] and e.validator in ("const", "enum") for e in errors)


def leaf_errors(error):
    """The errors worth showing for `error`.

    For a oneOf/anyOf (the schema's dispatch on `type`, or a choice of forms inside a type) the
    branches that describe another `type` are dropped, and of the rest the one with the fewest
    errors is explained: that is the form the line was most likely meant to have.
    """
    if error.validator not in ("oneOf", "anyOf") or not error.context:
        return [error]
    branches = {}
    for sub in error.context:
        branches.setdefault(sub.relative_schema_path[0], []).append(sub)
    candidates = [errs for errs in branches.values() if not fails_discriminator(errs)]
    if not candidates:
        # No branch is about this `type`: the `type` enum error, reported separately, says why.
        return [error] if error.validator == "anyOf" else []
    best = min(candidates, key=len)
    out = []
    for sub in best:
        out.extend(leaf_errors(sub))
    return out or [error]


def describe(error):
    message = error.message
    if len(message) > MAX_MESSAGE_LENGTH:
        message = message[:MAX_MESSAGE_LENGTH] + "..."
    return f"{json_path(error.absolute_path)}: {message}"


def check_line(validator, raw):
    """Returns the error messages of one line (empty when valid)."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        return [f"not valid UTF-8: {e}"]
    if text.endswith("\r"):
        text = text[:-1]
    if not text.strip():
        return ["empty line"]
    try:
        value = json.loads(text, object_pairs_hook=unique_object, parse_constant=reject_constant)
    except LineError as e:
        return [str(e)]
    except json.JSONDecodeError as e:
        return [f"not JSON: {e}"]
    errors = list(validator.iter_errors(value))
    messages = []
    for error in errors:
        for leaf in leaf_errors(error):
            message = describe(leaf)
            if message not in messages:
                messages.append(message)
    if errors and not messages:  # every error was a dispatch with no branch for this line
        messages = [describe(error) for error in errors]
    return messages


def read_lines(path):
    if path == "-":
        data = sys.stdin.buffer.read()
    else:
        with open(path, "rb") as f:
            data = f.read()
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()  # the terminator of the last line
    return lines


def load_validator(path):
    try:
        with open(path, "rb") as f:
            schema = json.load(f)
    except (OSError, ValueError) as e:
        sys.stderr.write(f"check_ndjson_schema.py: cannot read schema {path}: {e}\n")
        sys.exit(2)
    cls = validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    try:
        cls.check_schema(schema)
    except jsonschema.SchemaError as e:
        sys.stderr.write(f"check_ndjson_schema.py: {path} is not a valid JSON Schema: {e.message}\n")
        sys.exit(2)
    return cls(schema)


def main():
    parser = argparse.ArgumentParser(
        description="Validate every line of NDJSON files against a JSON Schema.",
        epilog="Exit status: 0 all lines valid, 1 some line invalid or a file unreadable, "
        "2 jsonschema missing, bad schema or usage.")
    parser.add_argument("schema", help="the JSON Schema file (e.g. docs/ndjson.schema.json)")
    parser.add_argument("files", nargs="+", help="NDJSON files to check; - for standard input")
    args = parser.parse_args()
    if hasattr(signal, "SIGPIPE"):
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # `... | head` ends quietly

    validator = load_validator(args.schema)
    total = 0
    invalid = 0
    failed_files = 0
    for path in args.files:
        try:
            lines = read_lines(path)
        except OSError as e:
            print(f"{path}: cannot read: {e.strerror or e}")
            failed_files += 1
            continue
        name = "<stdin>" if path == "-" else path
        for number, raw in enumerate(lines, start=1):
            total += 1
            messages = check_line(validator, raw)
            if not messages:
                continue
            invalid += 1
            for message in messages[:MAX_ERRORS_PER_LINE]:
                print(f"{name}:{number}: {message}")
            if len(messages) > MAX_ERRORS_PER_LINE:
                print(f"{name}:{number}: ... and {len(messages) - MAX_ERRORS_PER_LINE} more errors")

    if invalid or failed_files:
        problems = [f"{invalid} of {total} lines invalid"]
        if failed_files:
            problems.append(f"{failed_files} file{'s' if failed_files > 1 else ''} unreadable")
        print(", ".join(problems))
        return 1
    print(f"{total} lines valid")
    return 0


if __name__ == "__main__":
    sys.exit(main())
