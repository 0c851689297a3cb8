"""JSON: what the daemon may write (strict parsing), what it will read, how values are encoded, and
when two values are the same."""
import json
import math
import re

from .constants import MAX_DEPTH


class RawNumber:
    """A number written as literal JSON text: values Python cannot write (1e400, 400 digits)."""
    __slots__ = ("text",)

    def __init__(self, text):
        self.text = text


def encode_json(value, ensure_ascii):
    try:
        return json.dumps(value, ensure_ascii=ensure_ascii, separators=(",", ":"), allow_nan=False)
    except TypeError:   # a RawNumber inside: the slow path writes it verbatim
        return _encode_with_raw_numbers(value, ensure_ascii)


def _encode_with_raw_numbers(value, ensure_ascii):
    if isinstance(value, RawNumber):
        return value.text
    if isinstance(value, dict):
        return "{" + ",".join(json.dumps(k, ensure_ascii=ensure_ascii) + ":" +
                              _encode_with_raw_numbers(v, ensure_ascii) for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ",".join(_encode_with_raw_numbers(v, ensure_ascii) for v in value) + "]"
    return json.dumps(value, ensure_ascii=ensure_ascii, allow_nan=False)


def _reject_constant(name):
    raise ValueError(f"{name} is not JSON")


def _finite_float(text):
    number = float(text)
    if not math.isfinite(number):
        raise ValueError(f"the number {text} is beyond the range of a double")
    return number


def _object_without_duplicates(pairs):
    obj = dict(pairs)
    if len(obj) != len(pairs):
        raise ValueError("an object with a duplicate key")
    return obj


_STRICT_DECODER = json.JSONDecoder(parse_float=_finite_float, parse_constant=_reject_constant,
                                   object_pairs_hook=_object_without_duplicates)
# An escaped high surrogate not followed by a low one, or a low one not preceded by a high one
# (may also match an escaped backslash before "u": the value is then checked for certain).
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89abAB][0-9a-fA-F]{2}(?!\\u[dD][c-fC-F])|"
                               r"(?<!\\u[dD][89abAB][0-9a-fA-F]{2})\\u[dD][c-fC-F]")


def might_hold_lone_surrogate(text):
    return ("\\ud" in text or "\\uD" in text) and _SURROGATE_ESCAPE.search(text) is not None


def has_lone_surrogate(value):
    """Python's json reads a lone \\uD800 escape as a lone surrogate code point: find one."""
    if isinstance(value, str):
        return any("\ud800" <= c <= "\udfff" for c in value)
    if isinstance(value, list):
        return any(has_lone_surrogate(v) for v in value)
    if isinstance(value, dict):
        return any(has_lone_surrogate(k) or has_lone_surrogate(v) for k, v in value.items())
    return False


def parse_daemon_body(body):
    """Parses what the daemon wrote, strictly: UTF-8, RFC 8259, no duplicate keys, no lone
    surrogates, no number beyond a double (it must write a non-finite value as null)."""
    text = body.decode("utf-8")
    value = _STRICT_DECODER.decode(text)
    if might_hold_lone_surrogate(text) and has_lone_surrogate(value):
        raise ValueError("a lone surrogate in a string")
    return value


def nesting_depth(text):
    depth = deepest = 0
    in_string = escaped = False
    for c in text:
        if in_string:
            if escaped:
                escaped = False
            elif c == "\\":
                escaped = True
            elif c == '"':
                in_string = False
        elif c == '"':
            in_string = True
        elif c in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif c in "]}":
            depth -= 1
    return deepest


def _client_int(text):
    return int(text)


def parse_client_body(body):
    """Reads a body the way binderyd does: (value, None), or (None, why it answers -32700)."""
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        return None, "invalid UTF-8"
    if not text.strip():
        return None, "blank"
    if text.count("[") + text.count("{") > MAX_DEPTH and nesting_depth(text) > MAX_DEPTH:
        return None, "nesting too deep"
    try:
        # Numbers beyond a double become infinity, as binderyd reads them.
        value = json.loads(text, parse_constant=_reject_constant, parse_int=_client_int)
    except (ValueError, RecursionError) as error:
        return None, f"not JSON: {error}"
    if might_hold_lone_surrogate(text) and has_lone_surrogate(value):
        return None, "lone surrogate"
    return value, None


def canon(value):
    """A hashable form of a JSON value for the fold's equality: numbers compare as the doubles
    they denote (what a JSON client reads), except that -0.0 and 0.0 differ; strings compare by
    code points (never by Unicode canonical equivalence); objects ignore member order."""
    kind = type(value)
    if kind is str:
        return value
    if kind is bool or value is None:
        return (kind.__name__, value)
    if kind is int:
        try:
            return ("n", float(value), False)
        except OverflowError:
            return ("n", math.inf if value > 0 else -math.inf, False)
    if kind is float:
        return ("n", value, value == 0 and math.copysign(1.0, value) < 0)
    if kind is list:
        return ("a", tuple(canon(v) for v in value))
    if kind is dict:
        return ("o", frozenset((k, canon(v)) for k, v in value.items()))
    return ("?", repr(value))


def same(a, b):
    return canon(a) == canon(b)


def id_key(value):
    """A dictionary key for a request id that keeps 1, "1" and true apart; None if not an id."""
    kind = type(value)
    if kind is int:
        return value
    if kind is str:
        return "s:" + value
    return None


def show(value, limit=300):
    text = json.dumps(value, ensure_ascii=True) if not isinstance(value, RawNumber) else value.text
    return text if len(text) <= limit else text[:limit] + f"…({len(text)} chars)"
