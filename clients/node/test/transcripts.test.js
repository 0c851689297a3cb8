// Conformance: every recorded exchange under Tests/Transcripts replayed through this package's
// framing layer against a fresh daemon; every `out` body must come back byte for byte.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { FrameDecoder, encodeFrame } from '../index.js';
import { GUARD_MS, TRANSCRIPTS_DIR, appdPath, daemonPath } from '../test-support/daemon.js';

/** The transcript format: bodies are taken byte for byte from their line, never re-serialised. */
function parseTranscript(bytes) {
  const transcript = { framing: 'content-length', daemon: 'binderyd', arguments: [], steps: [], exitCode: 0 };
  const inPrefix = Buffer.from('{"in":');
  const outPrefix = Buffer.from('{"out":');
  let start = 0;
  while (start < bytes.length) {
    let end = bytes.indexOf(0x0a, start);
    if (end === -1) end = bytes.length;
    const line = bytes.subarray(start, end);
    start = end + 1;
    if (line.toString().trim() === '') continue;
    if (line.subarray(0, inPrefix.length).equals(inPrefix)) {
      transcript.steps.push({ send: line.subarray(inPrefix.length, line.length - 1) });
    } else if (line.subarray(0, outPrefix.length).equals(outPrefix)) {
      transcript.steps.push({ expect: line.subarray(outPrefix.length, line.length - 1) });
    } else {
      const value = JSON.parse(line.toString('utf8'));
      if (typeof value.inRaw === 'string') transcript.steps.push({ send: Buffer.from(value.inRaw, 'utf8') });
      else if (typeof value.framing === 'string') {
        transcript.framing = value.framing;
        transcript.arguments = value.arguments ?? [];
        transcript.daemon = value.daemon ?? 'binderyd'; // "appd": recorded with appd, replayed against it
      } else if (Number.isInteger(value.exit)) transcript.exitCode = value.exit;
      else throw new Error(`unrecognised transcript line: ${line}`);
    }
  }
  return transcript;
}

/** The daemon's bodies, one at a time; null at the end of its output. */
function bodyReader(stream, framing) {
  const decoder = new FrameDecoder({ framing });
  const bodies = [];
  let ended = false;
  let wake = null;
  const poke = () => { wake?.(); wake = null; };
  stream.on('data', (chunk) => { bodies.push(...decoder.push(chunk)); poke(); });
  stream.on('end', () => { bodies.push(...decoder.end()); ended = true; poke(); });
  return async function next(what) {
    const deadline = Date.now() + GUARD_MS;
    while (bodies.length === 0 && !ended) {
      if (Date.now() > deadline) throw new Error(`hang guard: no body from the daemon while waiting for ${what}`);
      await new Promise((resolve) => {
        wake = resolve;
        setTimeout(resolve, 250);
      });
    }
    return bodies.length > 0 ? bodies.shift() : null;
  };
}

function difference(expected, actual) {
  let common = 0;
  while (common < expected.length && common < actual.length && expected[common] === actual[common]) common += 1;
  const from = Math.max(0, common - 60);
  const window = (bytes) => bytes.subarray(from, common + 80).toString('utf8');
  return `first difference at byte ${common}\n  expected …${window(expected)}…\n  actual   …${window(actual)}…`;
}

async function replay(file) {
  const transcript = parseTranscript(readFileSync(file));
  const daemon = transcript.daemon === 'appd' ? appdPath() : daemonPath();
  const child = spawn(daemon, transcript.arguments, { stdio: ['pipe', 'pipe', 'pipe'] });
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  let stderr = '';
  child.stderr.on('data', (chunk) => { stderr += chunk; });
  child.stdin.on('error', () => {}); // the daemon may exit (after `exit`) before we close its input
  const next = bodyReader(child.stdout, transcript.framing);
  // Input closes right after the last `in` line, as when the transcript was recorded: the daemon
  // answers everything it has read either way, and what it does at end of input is recorded too.
  const lastSend = transcript.steps.findLastIndex((step) => step.send);
  try {
    for (const [index, step] of transcript.steps.entries()) {
      if (step.send) {
        child.stdin.write(encodeFrame(step.send, transcript.framing));
        if (index === lastSend) child.stdin.end();
        continue;
      }
      const actual = await next(`step ${index}`);
      assert.ok(actual, `step ${index}: expected ${step.expect}, but the daemon's output ended; stderr: ${stderr}`);
      if (!actual.equals(step.expect)) assert.fail(`step ${index}: ${difference(step.expect, actual)}`);
    }
    child.stdin.end();
    const extra = await next('the end of output');
    assert.equal(extra, null, `unexpected output after the last step: ${extra}`);
    const { code, signal } = await exited;
    assert.equal(signal, null, `the daemon was killed by ${signal}`);
    assert.equal(code, transcript.exitCode, `exit code; stderr: ${stderr}`);
  } finally {
    child.kill('SIGKILL');
  }
}

const files = readdirSync(TRANSCRIPTS_DIR).filter((name) => name.endsWith('.jsonl')).sort();

test('the transcripts folder is not empty', () => {
  assert.ok(files.length > 0, `no transcripts in ${TRANSCRIPTS_DIR}`);
  for (const name of ['splices.jsonl', 'capabilities.jsonl', 'undo.jsonl', 'undo-commands.jsonl', 'snapshot.jsonl']) {
    assert.ok(files.includes(name), `${name} is replayed`);
  }
});

for (const name of files) {
  test(`transcript ${name}`, () => replay(path.join(TRANSCRIPTS_DIR, name)));
}
