// A shared daemon killed under a socket client: the client says how it died, reconnects by itself
// (a new daemon started, --state keeping keyed forms), reopens its keyed sessions in the same
// Session objects, and closes the unkeyed ones with the daemon's error.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, DaemonExitedError, socketPath } from '../index.js';
import { GUARD_MS, daemonPath } from '../test-support/daemon.js';

function daemonPids(file) {
  try {
    return execFileSync('pgrep', ['-f', '--', `--listen ${file}`], { encoding: 'utf8' }).split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return []; // none
  }
}

async function until(condition, what) {
  const deadline = Date.now() + GUARD_MS;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

test('a killed shared daemon: reconnect with backoff, keyed sessions reattached, unkeyed closed', async (t) => {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'bindery-node-reconnect-'));
  process.env.XDG_RUNTIME_DIR = path.join(home, 'run');
  process.env.XDG_STATE_HOME = path.join(home, 'state');
  fs.mkdirSync(process.env.XDG_RUNTIME_DIR, { mode: 0o700 });
  const file = socketPath('auto');
  t.after(() => {
    for (const pid of daemonPids(file)) process.kill(pid, 'SIGTERM');
  });

  const client = await Client.connect({ socket: 'auto', daemon: daemonPath(), timeout: GUARD_MS });
  t.after(() => client.close());
  const events = [];
  client.on('reconnecting', (event) => events.push(['reconnecting', event]));
  client.on('reconnected', (event) => events.push(['reconnected', event]));
  const form = await client.open('survey', { key: 'form-1' });
  await form.set('name', 'Ada');
  const scratch = await client.open('email');
  await scratch.set('email', 'ada@example.com');
  // The daemon (started with --state in the state directory, a folder per socket) writes a keyed
  // session soon after it changes.
  const sessions = path.join(process.env.XDG_STATE_HOME, 'bindery', 'sessions');
  const storedFiles = () => (fs.existsSync(sessions) ? fs.readdirSync(sessions) : [])
    .flatMap((folder) => fs.readdirSync(path.join(sessions, folder)).map((name) => path.join(sessions, folder, name)));
  await until(() => storedFiles().some((name) => fs.readFileSync(name, 'utf8').includes('Ada')), 'the daemon to store form-1');

  const [pid] = daemonPids(file);
  assert.ok(pid, `no daemon listening on ${file}`);
  process.kill(pid, 'SIGKILL');
  await until(() => events.length > 0, 'the client to notice');
  const [kind, first] = events[0];
  assert.equal(kind, 'reconnecting');
  assert.equal(first.delay, 250);
  assert.ok(first.error instanceof DaemonExitedError, String(first.error));
  assert.equal(first.error.signal, 'SIGKILL');
  assert.match(first.error.message, /killed by SIGKILL \(the shared daemon on .* \(pid \d+\); its log: /);
  assert.equal(client.reconnecting, true);
  assert.equal(client.closed, false);
  // A call made while reconnecting waits for the reconnect, then goes to the new daemon.
  const meanwhile = form.set('companyName', 'Engines');

  await until(() => events.some(([name]) => name === 'reconnected'), 'the reconnect');
  assert.equal(await meanwhile, form.revision);
  assert.equal(client.reconnecting, false);
  assert.deepEqual(events.find(([name]) => name === 'reconnected')[1].sessions, [form]);
  assert.equal(form.closed, false);
  assert.equal(form.restored, true, 'the new daemon found form-1 stored');
  assert.equal(form.state.name, 'Ada');
  assert.equal(form.state.companyName, 'Engines');
  assert.equal(client.sessions.get(form.id), form);
  await form.set('name', 'Ada Lovelace');
  assert.equal((await form.snapshot()).fields.name, 'Ada Lovelace');

  assert.equal(scratch.closed, true);
  await assert.rejects(scratch.set('email', 'x'), DaemonExitedError);
  assert.notDeepEqual(daemonPids(file), [pid]);
});

test('close() while reconnecting: keyed sessions closed, waiting calls rejected, nothing left running', async (t) => {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'bindery-node-reconnect-'));
  const file = path.join(home, 'run', 'daemon.sock');
  t.after(() => {
    for (const pid of daemonPids(file)) process.kill(pid, 'SIGTERM');
  });
  const client = await Client.connect({ socket: file, daemon: daemonPath(), timeout: GUARD_MS });
  const form = await client.open('survey', { key: 'form-2' });
  const reconnecting = new Promise((resolve) => client.once('reconnecting', resolve));
  for (const pid of daemonPids(file)) process.kill(pid, 'SIGKILL');
  await reconnecting;
  const waiting = form.set('name', 'Ada');
  assert.equal(await client.close(), null);
  await assert.rejects(waiting, { name: 'ConnectionClosedError' });
  assert.equal(form.closed, true);
  assert.equal(client.closed, true);
  assert.equal(client.reconnecting, false);
});
