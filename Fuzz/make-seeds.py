#!/usr/bin/env python3
"""Writes the committed seed corpora Fuzz/corpus/{framer,json}/ (run from anywhere; idempotent).

Seeds are small on purpose: libFuzzer mutates them, so each should show one feature. Bodies come from
the conformance transcripts (Tests/Transcripts/*.jsonl) plus hand-written edge cases.
"""
import glob, json, os, shutil

ROOT = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(ROOT)


def transcript_bodies():
    bodies = []
    for path in sorted(glob.glob(os.path.join(REPO, "Tests/Transcripts/*.jsonl"))):
        for line in open(path, encoding="utf-8"):
            line = line.strip()
            if not line:
                continue
            entry = json.loads(line)
            if "in" in entry:
                bodies.append(json.dumps(entry["in"], separators=(",", ":"), ensure_ascii=False).encode())
            elif "inRaw" in entry:
                bodies.append(entry["inRaw"].encode())
    return bodies


def pick(bodies, count):
    """A spread of distinct bodies: the shortest of each method, batches first."""
    seen, chosen = set(), []
    for body in sorted(bodies, key=lambda b: (not b.startswith(b"["), len(b))):
        key = body[:40] if body.startswith(b"[") else (json.loads(body).get("method") if body.startswith(b"{") and body.endswith(b"}") else body)
        if str(key) in seen or body in seen:
            continue
        seen.update((str(key), body))
        chosen.append(body)
    return chosen[:count]


def lsp(body, header=b"Content-Length"):
    return header + b": " + str(len(body)).encode() + b"\r\n\r\n" + body


JSON_EDGE = {
    "escapes": rb'"\" \\ \/ \b \f \n \r \t \u0000 \u001F \u00e9 \u20AC"',
    "surrogate-pair": rb'["\uD83D\uDE00","\uDBFF\uDFFF","\ud800\udc00"]',
    "lone-high-surrogate": rb'"\uD83D"',
    "lone-low-surrogate": rb'"\uDE00x"',
    "raw-utf8": '{"é":"€😀","k":"中文"}'.encode(),
    "invalid-utf8": b'"\xed\xa0\x80 \xc0\xaf \xf4\x90\x80\x80"',
    "control-char": b'"a\x01b"',
    "deep-nesting": b"[" * 40 + b"{\"a\":" * 10 + b"1" + b"}" * 10 + b"]" * 40,
    "too-deep": b"[" * 513 + b"]" * 513,
    "integers": b"[0,-0,1,-1,9223372036854775807,-9223372036854775808,9223372036854775808,-9223372036854775809,18446744073709551616]",
    "doubles": b"[0.0,-0.0,1.5,-2.25e-3,1E22,1e23,5e-324,2.2250738585072014e-308,1.7976931348623157e308,9007199254740993,0.1,123456789012345678901234567890]",
    "out-of-range": b"[1e999,-1e999,1e-999,-0e5]",
    "bad-numbers": b"[01,1.,.5,+1,1e,-,0x10,NaN,Infinity]",
    "literals-whitespace": b" \t\r\n[true ,false,\tnull\n] \r\n",
    "trailing-comma": b'{"a":1,}',
    "duplicate-keys": b'{"a":1,"a":2,"":3}',
    "empty-containers": b'[{},[],"",{"":[]}]',
    "comment": b"// c\n{}",
    "trailing-garbage": b'{"a":1} x',
    "unterminated": b'{"jsonrpc":"2.0","id":1,"method":"initi',
}

FRAMER_EDGE = {
    "lsp-two-frames": lsp(b'{"jsonrpc":"2.0","id":1,"method":"a"}') + lsp(b"[1,2]"),
    "lsp-lowercase-extra-header": b"content-length: 2\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n{}",
    "lsp-lf-only": b"Content-Length: 7\n\n{\"a\":1}",
    "lsp-blank-lines-between": lsp(b"{}") + b"\r\n\r\n" + lsp(b"[]") + b"\n",
    "lsp-zero-length": b"Content-Length: 0\r\n\r\n" + lsp(b"null"),
    "lsp-missing-length": b"X-Foo: 1\r\n\r\n{}" + lsp(b"{}"),
    "lsp-no-colon": b"Content-Length 2\r\n\r\n{}" + lsp(b"1"),
    "lsp-bad-length": b"Content-Length: -5\r\n\r\n" + lsp(b"2"),
    "lsp-conflicting-lengths": b"Content-Length: 2\r\nContent-Length: 3\r\n\r\n{}" + lsp(b"3"),
    "lsp-huge-length": b"Content-Length: 999999999999999999\r\n\r\n{}",
    "lsp-truncated-body": b"Content-Length: 50\r\n\r\n{\"jsonrpc\":",
    "lsp-truncated-header": b"Content-Length: 5\r\n",
    "lsp-garbage-body": lsp(b'{"a":\x00\xff}') + lsp(b"\xef\xbb\xbf{}"),
    "ndjson-two-lines": b'{"jsonrpc":"2.0","method":"initialized"}\n[{"jsonrpc":"2.0","id":1,"method":"x"}]\n',
    "ndjson-crlf-blank": b'\r\n  \n{"a":1}\r\n\r\n\t\n[2]\r\n',
    "ndjson-no-final-newline": b'{"a":1}\n{"b":2}',
    "ndjson-garbage-lines": b'{"a":1}\nnot json\n\x00\x01\x02\n{"b":\n2}\n',
    "ndjson-long-line": b'{"k":"' + b"x" * 2000 + b'"}\n{}\n',
}


def write(directory, files):
    shutil.rmtree(directory, ignore_errors=True)
    os.makedirs(directory)
    for name, data in files.items():
        with open(os.path.join(directory, name), "wb") as f:
            f.write(data)


def main():
    bodies = transcript_bodies()
    chosen = pick(bodies, 14)

    json_seeds = {f"transcript-{i:02}": body for i, body in enumerate(chosen)}
    json_seeds.update(JSON_EDGE)
    write(os.path.join(ROOT, "corpus/json"), json_seeds)

    framer_seeds = {}
    for i, body in enumerate(chosen[:8]):
        framer_seeds[f"transcript-lsp-{i:02}"] = lsp(body)
    ndjson = [b for b in chosen if b"\n" not in b and b[:1] in (b"{", b"[")]
    framer_seeds["transcript-ndjson-stream"] = b"\n".join(ndjson[:6]) + b"\n"
    framer_seeds["transcript-lsp-stream"] = b"".join(lsp(b) for b in ndjson[6:12])
    framer_seeds.update(FRAMER_EDGE)
    write(os.path.join(ROOT, "corpus/framer"), framer_seeds)
    print(f"json: {len(json_seeds)} seeds, framer: {len(framer_seeds)} seeds")


if __name__ == "__main__":
    main()
