// The client mirror corpus (Tests/ClientMirror): every case run through lib/mirror.js, the module
// the client's sessions (and the web page) fold with, compared as reference_mirror.py's `run` does.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { Mirror } from '../lib/mirror.js';
import { REPO_ROOT } from '../test-support/daemon.js';

const CASES_DIR = path.join(REPO_ROOT, 'Tests', 'ClientMirror', 'cases');

/** A case file's shorthand: `{"$range": N}` is the list 0..N-1. */
function expand(value) {
  if (Array.isArray(value)) return value.map(expand);
  if (value === null || typeof value !== 'object') return value;
  const keys = Object.keys(value);
  if (keys.length === 1 && keys[0] === '$range') return Array.from({ length: value.$range }, (_, i) => i);
  return Object.fromEntries(keys.map((key) => [key, expand(value[key])]));
}

/** What differs from the case's expectation once its messages are folded (reference_mirror.run). */
export function run(testCase) {
  const given = expand(testCase.given);
  const mirror = new Mirror();
  for (const [id, session] of Object.entries(given.sessions ?? {})) mirror.take(Number(id), session);
  for (const write of given.pending ?? []) mirror.write(write.id, write.session, write.field, { value: write.value });
  for (const message of expand(testCase.receive)) mirror.receive(message);
  const expect = expand(testCase.expect);
  const problems = [];
  const resync = [...mirror.outOfStep].map(String).sort();
  const wanted = (expect.resync ?? []).map(String).sort();
  if (!isDeepStrictEqual(resync, wanted)) problems.push(`resync ${resync}, expected ${wanted}`);
  if (expect.sessions) {
    const held = [...mirror.sessions.keys()].filter((id) => !mirror.outOfStep.has(id)).map(String).sort();
    if (!isDeepStrictEqual(held, Object.keys(expect.sessions).sort())) problems.push(`sessions ${held}, expected ${Object.keys(expect.sessions).sort()}`);
    for (const [id, expected] of Object.entries(expect.sessions)) {
      const actual = mirror.outOfStep.has(Number(id)) ? {} : mirror.sessions.get(Number(id)) ?? {};
      for (const [key, value] of Object.entries(expected)) {
        if (!isDeepStrictEqual(actual[key], value)) problems.push(`session ${id} ${key}: ${JSON.stringify(actual[key])}, expected ${JSON.stringify(value)}`);
      }
    }
  }
  for (const [id, expected] of Object.entries(expect.shown ?? {})) {
    const shown = mirror.shown(Number(id));
    for (const [name, value] of Object.entries(expected)) {
      if (!isDeepStrictEqual(shown[name], value)) problems.push(`session ${id} shows ${name} = ${JSON.stringify(shown[name])}, expected ${JSON.stringify(value)}`);
    }
  }
  const pending = mirror.pending.map((write) => write.request);
  if (expect.pending && !isDeepStrictEqual(pending, expect.pending)) problems.push(`pending ${pending}, expected ${expect.pending}`);
  return problems;
}

test('every case of the client mirror corpus folds as the reference does', () => {
  const files = fs.readdirSync(CASES_DIR).filter((name) => name.endsWith('.json')).sort();
  assert.ok(files.length > 0, `no cases in ${CASES_DIR}`);
  const failures = [];
  let ran = 0;
  for (const file of files) {
    for (const testCase of JSON.parse(fs.readFileSync(path.join(CASES_DIR, file), 'utf8')).cases) {
      ran += 1;
      const problems = run(testCase);
      if (problems.length > 0) failures.push(`${file}: ${testCase.name}: ${problems.join('; ')}`);
    }
  }
  assert.deepEqual(failures, []);
  const receipts = process.env.BINDERY_MIRROR_RECEIPTS;
  if (receipts) fs.writeFileSync(path.join(receipts, 'node.json'), JSON.stringify({ face: 'node', cases: ran }) + '\n');
});
