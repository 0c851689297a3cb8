"""Error codes map to one exception class each; unknown codes to BinderyError itself."""
from __future__ import annotations

import pytest

import bindery
from bindery import BinderyError, ERROR_CLASSES, error_from_json

DOCUMENTED = {
    -32700: "ParseError", -32600: "InvalidRequest", -32601: "MethodNotFound", -32602: "InvalidParams",
    -32603: "InternalError", -32010: "UnknownType", -32011: "UnknownSession", -32012: "UnknownField",
    -32013: "ReadOnlyField", -32014: "WrongValueType", -32015: "UnknownCommand", -32016: "CommandDisabled",
    -32017: "CommandFailed", -32018: "OpenFailed", -32019: "NeedsDeterministicMode", -32021: "SchemaMismatch",
    -32022: "SnapshotMismatch", -32023: "StaleRevision", -32800: "RequestCancelled",
}


@pytest.mark.parametrize("code,name", sorted(DOCUMENTED.items()))
def test_each_documented_code_has_its_class(code: int, name: str) -> None:
    cls = getattr(bindery, name)
    assert issubclass(cls, BinderyError) and cls is not BinderyError
    assert ERROR_CLASSES[code] is cls and cls.code_value == code
    error = error_from_json({"code": code, "message": "m", "data": {"k": 1}})
    assert type(error) is cls
    assert (error.code, error.message, error.data) == (code, "m", {"k": 1})
    assert "m" in str(error) and str(code) in str(error)


def test_all_classes_are_covered() -> None:
    assert set(ERROR_CLASSES) == set(DOCUMENTED)


def test_schema_mismatch_says_to_regenerate() -> None:
    error = error_from_json({"code": -32021, "message": "Schema mismatch: ...",
                             "data": {"type": "email", "schemaHash": "cfb889dd8d9bfc95", "expected": "0"}})
    assert type(error) is bindery.SchemaMismatch and error.data["expected"] == "0"
    assert error.message == ("the daemon's `email` differs from the generated client (the daemon's schemaHash is "
                             "cfb889dd8d9bfc95, the client's 0); regenerate with clients/codegen/bindery-codegen")


def test_an_unknown_code_is_a_plain_bindery_error() -> None:
    error = error_from_json({"code": -32099, "message": "new"})
    assert type(error) is BinderyError and error.code == -32099 and error.data is None


def test_a_malformed_error_object_still_becomes_an_error() -> None:
    assert isinstance(error_from_json("oops"), BinderyError)
    assert isinstance(error_from_json({"code": "x", "message": "m"}), BinderyError)


def test_client_failures_have_the_usual_bases() -> None:
    assert issubclass(bindery.RequestTimeout, TimeoutError)
    assert issubclass(bindery.WaitTimeout, TimeoutError)
    assert issubclass(bindery.DaemonNotFound, FileNotFoundError)
    for cls in (bindery.RequestTimeout, bindery.DaemonExited, bindery.DaemonNotFound, BinderyError,
                bindery.ClientClosed):
        assert issubclass(cls, bindery.BinderyException)
