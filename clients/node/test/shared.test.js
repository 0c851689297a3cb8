// Clients of a shared daemon (`Client.connect`): keyed sessions shared live, optimistic writes, auto.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, StaleRevisionError, UnknownSessionError, socketPath } from '../index.js';

function stopDaemons(file) {
  let pids = '';
  try {
    pids = execFileSync('pgrep', ['-f', '--', `--listen ${file}`], { encoding: 'utf8' });
  } catch {
    return; // none
  }
  for (const pid of pids.split(/\s+/).filter(Boolean)) process.kill(Number(pid), 'SIGTERM');
}

function place() {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'bindery-node-'));
  return path.join(directory, 'run', 'daemon.sock');
}

test('a keyed session is shared live between two clients', async () => {
  const file = place();
  try {
    const editor = await Client.connect({ socket: file, timeout: 10000 });
    const script = await Client.connect({ socket: file, timeout: 10000 });
    const form = await editor.open('survey', { key: 'form-1' });
    const filled = await script.open('survey', { key: 'form-1' });
    assert.equal(filled.id, form.id);
    await filled.set('name', 'Ada');
    await form.waitUntil((state) => state.name === 'Ada', { timeout: 5000 });
    await form.set('yearsOfExperience', 3);
    await filled.waitUntil((state) => state.experienceString === '3.0 yrs', { timeout: 5000 });
    assert.deepEqual(filled.state, form.state);
    assert.equal(filled.revision, form.revision);
    const mine = await editor.open('email');
    await assert.rejects(script.request('session/state', { session: mine.id }), UnknownSessionError);
    await script.close();
    await editor.close();
  } finally {
    stopDaemons(file);
  }
});

test('expectedRevision: refused when another client wrote first, accepted after', async () => {
  const file = place();
  try {
    const a = await Client.connect({ socket: file });
    const b = await Client.connect({ socket: file });
    const first = await a.open('email', { key: 'k' });
    const second = await b.open('email', { key: 'k' });
    const seen = second.revision;
    await first.set('email', 'ada@example.com', { expectedRevision: seen });
    const error = await second.set('email', 'x', { expectedRevision: seen }).catch((failure) => failure);
    assert.ok(error instanceof StaleRevisionError);
    assert.equal(error.data.value, 'ada@example.com');
    await second.waitUntil((state) => state.email === 'ada@example.com', { timeout: 5000 });
    await second.set('email', 'grace@example.com', { expectedRevision: second.revision });
    await first.waitUntil((state) => state.email === 'grace@example.com', { timeout: 5000 });
    await a.close();
    await b.close();
  } finally {
    stopDaemons(file);
  }
});

test('auto is under XDG_RUNTIME_DIR', () => {
  assert.equal(socketPath('auto', { XDG_RUNTIME_DIR: '/run/user/7' }), '/run/user/7/bindery/daemon.sock');
  assert.equal(socketPath('auto', {}), `/tmp/bindery-${process.getuid()}/daemon.sock`);
});
