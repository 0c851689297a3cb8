import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FrameDecoder, FramingError, encodeFrame } from '../index.js';

const texts = (buffers) => buffers.map((body) => body.toString('utf8'));

test('encodeFrame writes only Content-Length, counting bytes not characters', () => {
  const body = '{"text":"héllo ✓"}';
  const frame = encodeFrame(body);
  const byteLength = Buffer.byteLength(body);
  assert.notEqual(byteLength, body.length);
  assert.equal(frame.toString('utf8'), `Content-Length: ${byteLength}\r\n\r\n${body}`);
  assert.equal(encodeFrame(body, 'ndjson').toString('utf8'), `${body}\n`);
});

test('a frame split at every byte boundary, multi-byte characters included', () => {
  const body = '{"jsonrpc":"2.0","method":"didChange","params":{"changes":{"name":"Zoë 🚀"}}}';
  const frame = encodeFrame(body);
  for (let cut = 1; cut < frame.length; cut += 1) {
    const decoder = new FrameDecoder();
    const first = decoder.push(frame.subarray(0, cut));
    const second = decoder.push(frame.subarray(cut));
    assert.deepEqual(texts([...first, ...second]), [body], `split at byte ${cut}`);
    assert.equal(decoder.bufferedBytes, 0);
  }
});

test('one byte at a time, and several frames merged into one chunk with a partial one', () => {
  const bodies = ['{"id":1}', '{"id":2,"text":"ü"}', '[]', '{"id":3}'];
  const stream = Buffer.concat(bodies.map((body) => encodeFrame(body)));
  const decoder = new FrameDecoder();
  const got = [];
  for (const byte of stream) got.push(...decoder.push(Buffer.from([byte])));
  assert.deepEqual(texts(got), bodies);

  const merged = new FrameDecoder();
  const cut = stream.length - 3;
  assert.deepEqual(texts(merged.push(stream.subarray(0, cut))), bodies.slice(0, 3));
  assert.deepEqual(texts(merged.push(stream.subarray(cut))), bodies.slice(3));
});

test('headers: case-insensitive, other headers ignored, \\n\\n accepted, blank lines between frames', () => {
  const decoder = new FrameDecoder();
  const input = 'content-length: 2\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n{}'
    + '\r\nCONTENT-LENGTH:3\n\n[1]';
  assert.deepEqual(texts(decoder.push(Buffer.from(input))), ['{}', '[1]']);
});

test('an unreadable header block is reported and skipped; the next frame is still read', () => {
  const errors = [];
  const decoder = new FrameDecoder({ onError: (error) => errors.push(error) });
  const input = 'Content-Type: x\r\n\r\n' + 'Content-Length: two\r\n\r\n' + 'Content-Length: 2\r\n\r\n{}';
  assert.deepEqual(texts(decoder.push(Buffer.from(input))), ['{}']);
  assert.equal(errors.length, 2);
  assert.ok(errors.every((error) => error instanceof FramingError));
  assert.match(errors[0].message, /without Content-Length/);
  assert.match(errors[1].message, /not a non-negative integer/);
});

test('the end of the stream inside a frame is an error', () => {
  const errors = [];
  const decoder = new FrameDecoder({ onError: (error) => errors.push(error) });
  decoder.push(Buffer.from('Content-Length: 10\r\n\r\n{"a"'));
  assert.deepEqual(decoder.end(), []);
  assert.match(errors[0].message, /ended inside a frame/);
});

test('NDJSON: split lines, \\r\\n, blank lines, and a last line without its newline', () => {
  const decoder = new FrameDecoder({ framing: 'ndjson' });
  const got = [
    ...decoder.push(Buffer.from('{"a":1}\r\n\n{"b":')),
    ...decoder.push(Buffer.from('"ß"}\n{"c"')),
    ...decoder.push(Buffer.from(':3}')),
  ];
  assert.deepEqual(texts(got), ['{"a":1}', '{"b":"ß"}']);
  assert.deepEqual(texts(decoder.end()), ['{"c":3}']);
});

test('a large body arriving in many small chunks', () => {
  const body = JSON.stringify({ items: Array.from({ length: 20000 }, (_, i) => `item ${i} ✓`) });
  const frame = encodeFrame(body);
  const decoder = new FrameDecoder();
  const got = [];
  for (let offset = 0; offset < frame.length; offset += 1000) got.push(...decoder.push(frame.subarray(offset, offset + 1000)));
  assert.deepEqual(texts(got), [body]);
});
