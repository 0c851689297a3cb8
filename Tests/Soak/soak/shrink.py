"""Reproducers: replay the input against a fresh daemon, and shrink it while the violation stays;
then write the remaining input lines to the --log file."""
import base64
import json
import math
import re
import sys
import time

from .exchange import Exchange
from .jsonwire import has_lone_surrogate, parse_client_body
from .records import Violation
from .transport import DaemonGone, frame


def replay(daemon_path, arguments, framing, deterministic, records, timed, timeout=30.0):
    """Sends the records to a fresh daemon (all at once, or at their original times) and
    returns the first Violation, or None."""
    exchange = Exchange(daemon_path, arguments, framing, deterministic, log_input=False)
    started = time.monotonic()
    try:
        for record in records:
            data = base64.b64decode(record["b"])
            if timed:
                delay = record["t"] - (time.monotonic() - started)
                if delay > 0:
                    exchange.daemon.flush()
                    end = time.monotonic() + delay
                    while time.monotonic() < end:
                        exchange.drain()
                        time.sleep(min(0.01, max(0.0, end - time.monotonic())))
            if "stream" in record:
                exchange.send_stream(data, record["stream"])
            else:
                exchange.send_body(data)
            if time.monotonic() - started > timeout:
                return None
        exchange.daemon.flush()
        exchange.drain()
        exchange.end()
        return None
    except Violation as violation:
        return violation
    except DaemonGone as gone:
        return Violation("exit", str(gone))
    finally:
        exchange.close()


_SESSION_IN_MESSAGE = re.compile(r'session"?:? ?(\d+)')
_SESSION_PARAM = re.compile(rb'"session":(-?\d+)')


def focus(records, violation, session_types, by_type):
    """A first cut: keeps the session/opens and closes (so that session ids stay the same: a
    close frees a key) and the messages that name no session, or a session the violation names
    (by_type: of the same type as one)."""
    sessions = {int(n) for n in _SESSION_IN_MESSAGE.findall(str(violation))}
    if by_type:
        types = {session_types.get(n) for n in sessions} - {None}
        sessions |= {n for n, t in session_types.items() if t in types}
    kept = []
    for record in records:
        body = base64.b64decode(record["b"])
        named = {int(n) for n in _SESSION_PARAM.findall(body)}
        if "stream" in record or b'"session/open"' in body or b'"session/close"' in body or not named \
                or named & sessions:
            kept.append(record)
    return kept


def minimize(records, reproduces, seconds, pinned=lambda record: False):
    """Delta debugging (ddmin) over the records that are not pinned (those stay, in place),
    within a time budget. Returns the records left and whether it finished."""
    deadline = time.monotonic() + seconds
    movable = [i for i, record in enumerate(records) if not pinned(record)]
    fixed = set(range(len(records))) - set(movable)

    def build(kept):
        keep = fixed | set(kept)
        return [record for i, record in enumerate(records) if i in keep]

    granularity = 2
    while len(movable) >= 2 and time.monotonic() < deadline:
        size = math.ceil(len(movable) / granularity)
        reduced = False
        for start in range(0, len(movable), size):
            if time.monotonic() >= deadline:
                break
            candidate = movable[:start] + movable[start + size:]
            if (candidate or fixed) and reproduces(build(candidate)):
                movable, granularity, reduced = candidate, max(granularity - 1, 2), True
                break
        if not reduced:
            if granularity >= len(movable):
                break
            granularity = min(len(movable), granularity * 2)
    if len(movable) == 1 and fixed and time.monotonic() < deadline and reproduces(build([])):
        movable = []
    return build(movable), time.monotonic() < deadline


def opens_or_closes(record):
    body = base64.b64decode(record["b"])
    return b'"session/open"' in body or b'"session/close"' in body


MINIMIZE_AT_MOST = 50000     # messages: beyond, a replay takes longer than the shrinking budget


def save_reproducer(options, soak, violation, records, session_types):
    """Shrinks the input to a few lines that still show the same check failing (preferably in
    NDJSON framing, sent all at once rather than at the original times) and writes them to --log."""
    out = sys.stdout
    if len(records) > MINIMIZE_AT_MOST or options.minimize_seconds <= 0:
        write_input(options.log, records, soak.framing)
        print(f"soak: the whole input ({len(records)} messages, {soak.framing} framing) saved to {options.log}",
              file=out)
        return
    print(f"soak: shrinking the reproducer ({len(records)} messages sent; up to {options.minimize_seconds:.0f} s)...",
          file=out, flush=True)

    def reproducer(framing, timed):
        def reproduces(candidate):
            found = replay(options.daemon, soak.arguments, framing, soak.deterministic, candidate, timed)
            return found is not None and (found.check, found.tag) == (violation.check, violation.tag)
        return reproduces

    without_stream = [r for r in records if "stream" not in r]
    attempts = [("ndjson", False, without_stream), (soak.framing, False, records)]
    if not soak.deterministic:           # live mode: async commands may need their real time
        attempts += [("ndjson", True, without_stream), (soak.framing, True, records)]
    for framing, timed, candidates in attempts:
        if reproducer(framing, timed)(candidates):
            break
    else:
        print("soak: the violation did not reproduce on replay (timing?); saving the whole input", file=out)
        write_input(options.log, records, soak.framing)
        return
    reproduces = reproducer(framing, timed)
    deadline = time.monotonic() + options.minimize_seconds
    for focused in (focus(candidates, violation, session_types, by_type=False),
                    focus(candidates, violation, session_types, by_type=True)):
        if len(focused) < len(candidates) and reproduces(focused):
            candidates = focused
            break
    # First everything but the opens and closes (removing one renumbers the sessions after it),
    # then everything.
    small, _ = minimize(candidates, reproduces, max(0.0, deadline - time.monotonic()), opens_or_closes)
    small, finished = minimize(small, reproduces, max(0.0, deadline - time.monotonic()))
    small = shrink_batches(small, reproduces, deadline)
    readable = [escaped_record(r) for r in small]     # "\u212a", not a K that looks like K
    if reproduces(readable):
        small = readable
    write_input(options.log, small, framing)
    found = replay(options.daemon, soak.arguments, framing, soak.deterministic, small, timed)
    flags = "".join(" " + a for a in soak.arguments)
    print(f"soak: reproducer: {len(small)} {framing} message(s){'' if finished else ' (not fully minimized)'} "
          f"saved to {options.log}", file=out)
    timing = " (sent at the original times)" if timed else ""
    print(f"soak: replay it with: {options.daemon}{flags} < {options.log}{timing}", file=out)
    if found is not None:
        print(f"soak: on replay: check '{found.check}': {found}", file=out)


def shrink_batches(records, reproduces, deadline):
    """Removes the elements of each batch that the violation does not need."""
    records = list(records)
    for index, record in enumerate(records):
        value, _ = parse_client_body(base64.b64decode(record["b"])) if "stream" not in record else (None, None)
        if not isinstance(value, list):
            continue
        position = 0
        while position < len(value) and len(value) > 1 and time.monotonic() < deadline:
            smaller = value[:position] + value[position + 1:]
            candidate = {**record, "b": base64.b64encode(json.dumps(smaller, ensure_ascii=False).encode()).decode()}
            if reproduces(records[:index] + [candidate] + records[index + 1:]):
                value, records[index] = smaller, candidate
            else:
                position += 1
    return records


def escaped_record(record):
    """The record with its JSON re-written in ASCII (\\u escapes), when it is plain JSON."""
    if "stream" in record:
        return record
    body = base64.b64decode(record["b"])
    value, _ = parse_client_body(body)
    try:
        if value is None or has_lone_surrogate(value):
            return record
        text = json.dumps(value, ensure_ascii=True, separators=(",", ":"), allow_nan=False)
    except (ValueError, TypeError):
        return record
    return {**record, "b": base64.b64encode(text.encode()).decode()}


def write_input(path, records, framing):
    with open(path, "wb") as file:
        for record in records:
            data = base64.b64decode(record["b"])
            file.write(data if "stream" in record else frame(data, framing))
