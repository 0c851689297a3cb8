"""Native Python values to and from the daemon's wire forms (protocol.md, "Value types").

``encode(value, type)`` turns what a script passes into JSON: a ``datetime`` (aware) or a ``date``
into ISO 8601 in UTC with milliseconds, a ``uuid.UUID`` into its lowercase string, a
``decimal.Decimal`` into its exact decimal string (never through a float), ``bytes`` into base64,
a ``set`` / ``frozenset`` into an array, a mapping into an object (integer keys as their decimal
string), an ``enum.Enum`` into its value; lists, tuples and dicts are encoded item by item. JSON
values pass through unchanged. The schema's type object, when given, is followed into arrays,
objects, dictionaries and unions (an ``int`` where a ``Decimal`` is expected is sent as an exact
string).

``decode(value, type)`` reads a value as the daemon sent it into native values by the member's
type object: ``format: "date-time"`` gives a timezone-aware UTC ``datetime``, ``"uuid"`` a
``uuid.UUID``, ``"decimal"`` a ``decimal.Decimal``, ``"byte"`` ``bytes``; an array with
``uniqueItems`` gives a ``set`` when its elements are hashable (strings, numbers, booleans, enum
values and the string formats above), else a list; dictionaries, objects and unions give dicts of
decoded values; everything else (``uri``, ``error``, enums, ``any``) stays as sent. A value whose
type needs no conversion is returned as it is, not copied.
"""
from __future__ import annotations

import base64
import binascii
import datetime
import decimal
import enum
import json
import re
import uuid
from typing import Any, Dict, List, Mapping, Optional

from .errors import InvalidParams

__all__ = ["encode", "decode", "converts", "format_datetime", "parse_datetime"]

TypeObject = Mapping[str, Any]

_UTC = datetime.timezone.utc
_DATETIME = re.compile(r"(\d{4,})-(\d\d)-(\d\d)[Tt ](\d\d):(\d\d)(?::(\d\d)(?:[.,](\d+))?)?"
                       r"(?:([Zz])|([+-])(\d\d):?(\d\d))\Z")
#: String formats that decode to another Python type (uri and error stay strings).
_CONVERTED_FORMATS = {"date-time", "uuid", "decimal", "byte"}
#: Element types that decode to hashable values: a uniqueItems array of them becomes a set.
_HASHABLE_KINDS = {"string", "integer", "number", "boolean", "enum"}


def _refuse(message: str, found: str) -> InvalidParams:
    return InvalidParams.make(message, {"found": found}, local=True)


# Dates.

def format_datetime(value: datetime.date) -> str:
    """ISO 8601 in UTC with milliseconds, as the daemon writes dates: ``2025-11-25T10:00:00.250Z``.

    A ``date`` is midnight UTC of that day. A naive ``datetime`` (no tzinfo) is refused: which
    zone it means is unknown (``datetime.now(timezone.utc)`` is aware). Microseconds are cut to
    milliseconds, the daemon's precision."""
    if isinstance(value, datetime.datetime):
        if value.tzinfo is None or value.tzinfo.utcoffset(value) is None:
            raise _refuse("a naive datetime (%s) has no time zone, so the instant it means is unknown: give it one "
                          "(datetime(..., tzinfo=timezone.utc), datetime.now(timezone.utc), .astimezone())"
                          % value.isoformat(), "naive datetime")
        value = value.astimezone(_UTC)
        millis = value.microsecond // 1000
    else:
        value = datetime.datetime(value.year, value.month, value.day, tzinfo=_UTC)
        millis = 0
    return "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ" % (value.year, value.month, value.day, value.hour, value.minute,
                                                   value.second, millis)


def parse_datetime(text: str) -> datetime.datetime:
    """An ISO 8601 date-time with an offset (``Z`` or ``+01:00``) as a timezone-aware UTC datetime."""
    match = _DATETIME.match(text)
    if match is None:
        raise ValueError("not an ISO 8601 date-time with an offset: %r" % text)
    year, month, day, hour, minute, second, fraction, zulu, sign, off_h, off_m = match.groups()
    micro = int((fraction or "0")[:6].ljust(6, "0"))
    offset = datetime.timedelta(0) if zulu else datetime.timedelta(hours=int(off_h), minutes=int(off_m))
    zone = _UTC if not offset else datetime.timezone(offset if sign == "+" else -offset)
    moment = datetime.datetime(int(year), int(month), int(day), int(hour), int(minute), int(second or 0), micro,
                               tzinfo=zone)
    return moment.astimezone(_UTC)


# Encoding.

def _decimal_text(value: decimal.Decimal) -> str:
    if not value.is_finite():
        raise _refuse("a Decimal must be finite to be sent, not %s" % value, "decimal")
    return format(value, "f")  # positional, exact: Decimal("1E+2") is "100", never "1E+2"


def _key(key: Any) -> str:
    if isinstance(key, str):
        return key
    if isinstance(key, int) and not isinstance(key, bool):
        return str(key)  # a [Int: T] dictionary's keys are integers written as strings
    if isinstance(key, enum.Enum):
        return _key(key.value)
    encoded = encode(key)
    if isinstance(encoded, str):
        return encoded  # a UUID, a date
    raise _refuse("a dictionary key must be a string, an integer, or a value sent as a string "
                  "(a UUID, a date), not %s" % type(key).__name__, type(key).__name__)


def _member_types(t: Optional[TypeObject]) -> Dict[str, TypeObject]:
    return {m["name"]: m for m in (t or {}).get("members") or [] if isinstance(m, Mapping) and "name" in m}


def _case_members(t: Optional[TypeObject], value: Mapping[str, Any]) -> Dict[str, TypeObject]:
    for case in (t or {}).get("cases") or []:
        if isinstance(case, Mapping) and case.get("name") == value.get("case"):
            return _member_types(case)
    return {}


def encode(value: Any, type: Optional[TypeObject] = None) -> Any:
    """``value`` in the wire form the daemon reads (see the module's doc), following ``type``, a
    schema type object (a field, an object member, a command's ``args``), when given. Raises
    InvalidParams (locally) for a value with no wire form (a naive datetime, a NaN Decimal, an
    object of another class)."""
    kind = type.get("type") if type is not None else None
    if value is None or isinstance(value, (str, bool, float)):
        return value
    if isinstance(value, int):
        if type is not None and type.get("format") == "decimal":
            return str(value)  # exact, however many digits
        return value
    if isinstance(value, enum.Enum):
        return encode(value.value, type)
    if isinstance(value, decimal.Decimal):
        if kind == "integer" and value == value.to_integral_value():
            return int(value)
        if kind == "number":
            return float(value)  # a Double member: the daemon reads a number
        return _decimal_text(value)
    if isinstance(value, (datetime.datetime, datetime.date)):
        return format_datetime(value)
    if isinstance(value, uuid.UUID):
        return str(value)
    if isinstance(value, (bytes, bytearray, memoryview)):
        return base64.b64encode(bytes(value)).decode("ascii")
    if isinstance(value, Mapping):
        if kind == "dictionary":
            values = type.get("values") if type is not None else None
            return {_key(k): encode(v, values) for k, v in value.items()}
        members = _case_members(type, value) if kind == "union" else _member_types(type)
        return {_key(k): encode(v, members.get(k) if isinstance(k, str) else None) for k, v in value.items()}
    items = type.get("items") if type is not None and kind == "array" else None
    if isinstance(value, (set, frozenset)):
        encoded = [encode(item, items) for item in value]
        return sorted(encoded, key=lambda item: json.dumps(item, sort_keys=True, default=str))
    if isinstance(value, (list, tuple)):
        return [encode(item, items) for item in value]
    raise _refuse("cannot send a %s: Bindery's values are JSON, datetime/date, uuid.UUID, decimal.Decimal, bytes, "
                  "set/frozenset, enum.Enum, and lists, tuples and dicts of them" % type_name(value), type_name(value))


def type_name(value: Any) -> str:
    cls = value.__class__
    return cls.__name__ if cls.__module__ == "builtins" else "%s.%s" % (cls.__module__, cls.__name__)


# Decoding.

def converts(type: Optional[TypeObject]) -> bool:
    """Whether ``decode`` by this type object can give anything other than the JSON as sent."""
    if not type:
        return False
    kind = type.get("type")
    if kind == "string":
        return type.get("format") in _CONVERTED_FORMATS
    if kind == "array":
        items = type.get("items")
        return bool(type.get("uniqueItems")) or converts(items)
    if kind == "dictionary":
        return converts(type.get("values"))
    if kind == "object":
        return any(converts(m) for m in _member_types(type).values())
    if kind == "union":
        return any(converts(m) for case in type.get("cases") or [] if isinstance(case, Mapping)
                   for m in _member_types(case).values())
    return False


def _is_hashable_kind(items: Optional[TypeObject]) -> bool:
    return items is not None and items.get("type") in _HASHABLE_KINDS


def decode(value: Any, type: Optional[TypeObject]) -> Any:
    """A value as the daemon sent it, read as native values by its type object (see the module's
    doc). ``null`` is None. Raises ValueError for a string that is not in its format's form."""
    if value is None or not converts(type):
        return value
    assert type is not None
    kind = type.get("type")
    if kind == "string":
        return _decode_string(value, type.get("format"))
    if kind == "array" and isinstance(value, list):
        items = type.get("items")
        decoded: List[Any] = [decode(item, items) for item in value]
        if type.get("uniqueItems") and _is_hashable_kind(items):
            return set(decoded)
        return decoded
    if kind == "dictionary" and isinstance(value, dict):
        values = type.get("values")
        return {k: decode(v, values) for k, v in value.items()}
    if kind in ("object", "union") and isinstance(value, dict):
        members = _case_members(type, value) if kind == "union" else _member_types(type)
        return {k: decode(v, members.get(k)) for k, v in value.items()}
    return value


def _decode_string(value: Any, form: Optional[str]) -> Any:
    if form == "decimal":
        text = repr(value) if isinstance(value, float) else value  # a number: its shortest form
        if not isinstance(text, (int, str)) or isinstance(text, bool):
            return value
        try:
            return decimal.Decimal(text)
        except decimal.InvalidOperation:
            raise ValueError("not a decimal: %r" % (value,)) from None
    if not isinstance(value, str):
        return value
    if form == "date-time":
        return parse_datetime(value)
    if form == "uuid":
        return uuid.UUID(value)
    if form == "byte":
        try:
            return base64.b64decode(value, validate=True)
        except binascii.Error as error:
            raise ValueError("not base64: %r (%s)" % (value, error)) from None
    return value
