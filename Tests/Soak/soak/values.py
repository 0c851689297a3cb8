"""Values: what setField must answer for a value of a schema, and the values the generator writes:
valid ones per schema type, wrong types, and the edge cases the defects hide in."""
import math
import unicodedata

from .constants import FAILING_FIRST_NAME, FLOAT_MAX, INT64_MAX, INT64_MIN
from .jsonwire import RawNumber


def expected_for_value(field, value):
    """protocol.md, Value types: "ok" when setField accepts the value for a field of this
    schema, -32014 when it refuses it, None when the schema cannot tell (a `number` may be a
    Float or a Double: numbers beyond Float's range)."""
    if value is None:
        return "ok" if field.get("nullable") else -32014
    kind, vtype = field.get("type"), type(value)
    if kind == "string":
        return "ok" if vtype is str else -32014
    if kind == "boolean":
        return "ok" if vtype is bool else -32014
    if kind == "enum":
        return "ok" if vtype is str and value in field.get("cases", []) else -32014
    if kind == "integer":
        if vtype is int:
            return "ok" if INT64_MIN <= value <= INT64_MAX else -32014
        if vtype is float:
            if not math.isfinite(value) or not value.is_integer():
                return -32014
            return "ok" if abs(value) < 2 ** 62 else None
        return -32014
    if kind == "number":
        if vtype not in (int, float):
            return -32014
        try:
            number = float(value)
        except OverflowError:
            return -32014
        if not math.isfinite(number):
            return -32014
        return "ok" if abs(number) <= FLOAT_MAX else None
    if kind == "array":
        return None if vtype is list else -32014
    if kind == "object":
        return None if vtype is dict else -32014
    return None


def codepoints(text):
    return " ".join(f"U+{ord(c):04X}" for c in text) if isinstance(text, str) else repr(text)

# Canonically equivalent pairs: Swift's String == calls them equal, JSON and the protocol do not.
EQUIVALENT = [("\u00e9", "e\u0301"), ("K", "\u212a"), ("\u00c5", "\u212b"), ("\u00c5", "A\u030a"),
              ("\u03a9", "\u2126"), ("\u1e69", "s\u0323\u0307"), ("\u00f1", "n\u0303"), ("\uac00", "\u1100\u1161")]
STRINGS = ["", "Ada", "Lovelace", "Grace", "Hopper", "Alan", "Turing", FAILING_FIRST_NAME, "ada@example.com",
           "a@b.co", "grace.hopper@navy.mil", "not an email", "x@y", " ", "O'Brien \"quoted\" \\ back/slash",
           "tab\tnew\nline\r", "nul\u0000byte", "\u65e5\u672c\u8a9e", "\u05e9\u05dc\u05d5\u05dd", "\U0001f469\u200d\U0001f4bb",
           "line\u2028separator", "Zo\u00eb", "Jos\u00e9", "Jose\u0301", "\u212aelvin", "Kelvin", "\ufeffbom",
           "12 St James's Square", "--", "null", "0", "Light bulb"]
NUMBERS = [0, 1, -1, 3, 42, 45000, 0.5, 0.1, 45.1, 3.0, -2.5, 1e20, 1e-7, 123456.789, 16777216, 16777217,
           -16777217, 16777218, FLOAT_MAX, -FLOAT_MAX, 1e38, 2 ** 53, 2 ** 53 + 1, 2 ** 63 - 1, 2 ** 63, 2 ** 64,
           1e300, -0.0, 0.0, 5e-324, 1e-45, 1e-50, 1.17549435e-38, 0.30000001192092896, 3.4028235e38,
           RawNumber("1e400"), RawNumber("-1e400"), RawNumber("1" + "0" * 400), RawNumber("1E2"), RawNumber("2.50e1")]


def equivalent_variant(text, rng):
    """A different string canonically equivalent to `text`, or None."""
    candidates = {unicodedata.normalize("NFC", text), unicodedata.normalize("NFD", text)}
    for a, b in EQUIVALENT:
        if a in text:
            candidates.add(text.replace(a, b))
        if b in text:
            candidates.add(text.replace(b, a))
    candidates.discard(text)
    return rng.choice(sorted(candidates)) if candidates else None


def equal_but_different(value, rng):
    """A value an implementation may wrongly take for `value`: a canonically equivalent string,
    the other zero (-0.0), or a number that rounds to the same Float (16777216 -> 16777217)."""
    if isinstance(value, str):
        return equivalent_variant(value, rng)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    if value == 0:
        return rng.choice([0.0, 0]) if math.copysign(1.0, value) < 0 else -0.0
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if float(value).is_integer() and abs(value) >= 2 ** 24 and abs(value) < 2 ** 64:
        return int(value) + rng.choice([1, -1])
    return math.nextafter(float(value), math.inf)


class Values:
    def __init__(self, rng):
        self.rng = rng

    def string(self):
        rng, roll = self.rng, self.rng.random()
        if roll < 0.45:
            return rng.choice(STRINGS)
        if roll < 0.75:
            a, b = rng.choice(EQUIVALENT)
            return rng.choice(["", "Caf", "Name ", "x"]) + rng.choice([a, b]) + rng.choice(["", " Corp", "!"])
        if roll < 0.97:
            return "".join(self._character() for _ in range(rng.randint(1, 24)))
        return self.long_string()

    def long_string(self):
        # Long values are echoed in outputs (survey's prettyString): the daemon's time, mostly.
        size = self.rng.choice([1000, 4096, 4096, 16384, 65536]) if self.rng.random() < 0.95 else 250000
        unit = self.rng.choice(["a", "\u00e9", "e\u0301", "\U0001f600", "ab\\\"c"])
        return (unit * (size // len(unit) + 1))[:size]

    def _character(self):
        rng = self.rng
        block = rng.choice([(0x20, 0x7e), (0x20, 0x7e), (0xa0, 0x17f), (0x300, 0x36f), (0x391, 0x3c9),
                            (0x2100, 0x214f), (0x4e00, 0x4e50), (0x1f600, 0x1f64f), (0, 0x1f)])
        return chr(rng.randint(*block))

    def number(self):
        rng = self.rng
        roll = rng.random()
        if roll < 0.5:
            return rng.choice(NUMBERS)
        if roll < 0.75:
            return rng.randint(-100000, 100000)
        return round(rng.uniform(-1e6, 1e6), rng.randint(0, 4))

    def valid(self, field):
        """A value of the field's type, as protocol.md's Value types table describes."""
        rng, kind = self.rng, field.get("type")
        if field.get("nullable") and rng.random() < 0.12:
            return None
        if kind == "string":
            return self.string()
        if kind == "boolean":
            return rng.random() < 0.5
        if kind == "number":
            value = self.number()
            return value if not isinstance(value, RawNumber) else 45000
        if kind == "integer":
            return rng.choice([0, 1, -1, 42, 3.0, INT64_MAX, INT64_MIN, rng.randint(-10 ** 6, 10 ** 6)])
        if kind == "enum":
            return rng.choice(field.get("cases") or [""])
        if kind == "array":
            return []
        if kind == "object":
            return {}
        return None

    def edge(self, field):
        kind = field.get("type")
        if kind in ("number", "integer"):
            return self.rng.choice(NUMBERS)
        if kind == "string":
            a, b = self.rng.choice(EQUIVALENT)
            return self.rng.choice([a, b, "K", "\u212a", self.long_string() if self.rng.random() < 0.5 else "x", ""])
        return self.valid(field)

    def wrong(self, field):
        """A value of another JSON type (or null where the field is not nullable)."""
        kind = field.get("type")
        options = {"string": [42, True, [], {}, 1.5], "boolean": [0, 1, "true", "", []],
                   "number": ["42", True, [], {"x": 1}, "NaN"], "integer": ["1", 1.5, False, [], 2 ** 64],
                   "enum": ["not a case", 3, True, "", "GOOD"], "array": [1, "x", {}], "object": [1, "x", []]}
        choices = list(options.get(kind, [1, "x"]))
        if not field.get("nullable"):
            choices += [None, None]
        return self.rng.choice(choices)
