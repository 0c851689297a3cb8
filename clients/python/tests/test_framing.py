"""The framing layer on its own: both framings, split anywhere, and broken headers."""
from __future__ import annotations

import pytest

from bindery import CONTENT_LENGTH, NDJSON, FrameDecoder, FramingError, encode_frame


def test_content_length_writes_only_that_header() -> None:
    assert encode_frame(b'{"a":1}') == b'Content-Length: 7\r\n\r\n{"a":1}'


def test_content_length_counts_bytes_not_characters() -> None:
    body = '{"s":"é"}'.encode("utf-8")
    frame = encode_frame(body)
    assert frame.startswith(b"Content-Length: %d\r\n\r\n" % len(body))
    assert FrameDecoder().feed(frame) == [body]


def test_ndjson_is_one_line_per_message() -> None:
    assert encode_frame(b"{}", NDJSON) == b"{}\n"
    with pytest.raises(FramingError):
        encode_frame(b"{\n}", NDJSON)


@pytest.mark.parametrize("framing", [CONTENT_LENGTH, NDJSON])
def test_every_split_point_gives_the_same_bodies(framing: str) -> None:
    bodies = [b'{"id":1}', b'{"text":"a\\nb"}', b"[]", b'{"x":"' + "ü".encode() * 3 + b'"}']
    stream = b"".join(encode_frame(body, framing) for body in bodies)
    for split in range(len(stream) + 1):
        decoder = FrameDecoder(framing)
        got = decoder.feed(stream[:split]) + decoder.feed(stream[split:]) + decoder.finish()
        assert got == bodies, split
    decoder = FrameDecoder(framing)
    assert [b for i in range(len(stream)) for b in decoder.feed(stream[i:i + 1])] == bodies


def test_headers_are_case_insensitive_extra_ones_ignored_and_lf_accepted() -> None:
    stream = (b"content-length: 2\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n{}"
              b"CONTENT-LENGTH:3\n\n[1]")
    assert FrameDecoder().feed(stream) == [b"{}", b"[1]"]


def test_ndjson_accepts_crlf_blank_lines_and_a_last_line_without_newline() -> None:
    decoder = FrameDecoder(NDJSON)
    assert decoder.feed(b'{"a":1}\r\n\n  \n{"b":2}') == [b'{"a":1}']
    assert decoder.finish() == [b'{"b":2}']


@pytest.mark.parametrize("header", [
    b"Content-Type: x\r\n\r\n",                      # no Content-Length
    b"Content-Length: -1\r\n\r\n",                   # not a non-negative integer
    b"Content-Length: 2\r\nContent-Length: 3\r\n\r\n",  # two different values
    b"Content-Length 2\r\n\r\n",                     # no colon
])
def test_bad_header_blocks_raise(header: bytes) -> None:
    with pytest.raises(FramingError):
        FrameDecoder().feed(header + b"{}")


def test_a_frame_cut_off_at_end_of_stream_raises() -> None:
    decoder = FrameDecoder()
    assert decoder.feed(b"Content-Length: 10\r\n\r\n{}") == []
    assert decoder.pending == 2
    with pytest.raises(FramingError):
        decoder.finish()


def test_unknown_framing_is_refused() -> None:
    with pytest.raises(ValueError):
        FrameDecoder("xml")
