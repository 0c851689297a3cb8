// A daemon that dies: every pending promise rejects at once with DaemonExitedError.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Client, ConnectionClosedError, DaemonExitedError, DaemonNotFoundError, RequestCancelledError } from '../index.js';
import { daemonPath, spawnClient } from '../test-support/daemon.js';

// A shell that says something on stderr, then becomes the daemon (same pid, same pipes).
const WRAPPER = 'echo "wrapper: starting $0" >&2; exec "$0" "$@"';

test('killed mid-invoke: all pending calls reject with DaemonExitedError, stderr included', async (t) => {
  const client = await spawnClient(t, { daemon: '/bin/sh', args: ['-c', WRAPPER, daemonPath(), '--deterministic'] });
  const login = await client.open('login');
  await login.set('firstName', 'Ada');
  await login.set('lastName', 'Lovelace');
  const other = await client.open('login');
  await other.set('firstName', 'Grace');
  await other.set('lastName', 'Hopper');
  const exits = [];
  client.on('exit', (status) => exits.push(status));

  // Under the virtual clock these never end by themselves.
  const pending = [login.invoke('login'), other.invoke('login')];
  await other.waitUntil((state) => state['login.running']);
  pending.push(login.waitUntil((state) => state.loggedInUser !== null), other.changes().next());
  client.process.kill('SIGKILL');

  const results = await Promise.allSettled(pending);
  const errors = results.map((result) => result.reason);
  assert.ok(results.every((result) => result.status === 'rejected'), JSON.stringify(results));
  assert.ok(errors.every((error) => error instanceof DaemonExitedError), errors.map(String).join('\n'));
  const [error] = errors;
  assert.equal(error.signal, 'SIGKILL');
  assert.equal(error.exitCode, null);
  assert.ok(error.stderr.some((line) => line.startsWith('wrapper: starting')), error.stderr.join('\n'));
  assert.match(error.message, /killed by SIGKILL[\s\S]*wrapper: starting/);
  assert.equal(error.code, null);

  assert.equal(client.closed, true);
  assert.equal(login.closed, true);
  await assert.rejects(client.describe(), DaemonExitedError);
  assert.deepEqual(await client.close(), { exitCode: null, signal: 'SIGKILL' });
  assert.deepEqual(exits, [{ exitCode: null, signal: 'SIGKILL' }]);
});

test('a daemon that exits at start-up: spawn rejects with its exit code and stderr', async () => {
  const error = await Client.spawn({ daemon: daemonPath(), args: ['--frobnicate'] }).catch((caught) => caught);
  assert.ok(error instanceof DaemonExitedError, String(error));
  assert.equal(error.exitCode, 2);
  assert.equal(error.signal, null);
  assert.ok(error.stderr.some((line) => line.includes('unknown argument "--frobnicate"')), error.stderr.join('\n'));
  assert.ok(error.stderr.length <= 20);
});

test('close(): shutdown, exit code 0, pending work rejected as closed, idempotent', async (t) => {
  const client = await spawnClient(t, { deterministic: true });
  const login = await client.open('login');
  await login.set('firstName', 'Ada');
  await login.set('lastName', 'Lovelace');
  const running = login.invoke('login').catch((caught) => caught);
  await login.waitUntil((state) => state['login.running']);
  const closing = client.close();
  assert.equal(client.close(), closing, 'the same promise');
  assert.deepEqual(await closing, { exitCode: 0, signal: null });
  const error = await running;
  // protocol.md, `exit`: running commands are cancelled first and answer -32800 "the client sent
  // exit"; a daemon from before that rule leaves them unanswered, and the client's close rejects them.
  assert.ok(error instanceof RequestCancelledError || error instanceof ConnectionClosedError, String(error));
  if (error instanceof RequestCancelledError) assert.match(error.message, /the client sent exit/);
  assert.ok(!(error instanceof DaemonExitedError), 'closed by us, not a crash');
  assert.equal(login.closed, true);
  await assert.rejects(login.set('firstName', 'x'), { name: 'SessionClosedError' });
});

test('no daemon anywhere: DaemonNotFoundError lists every place tried', async () => {
  const previous = process.env.BINDERYD;
  process.env.BINDERYD = '/nonexistent/binderyd';
  try {
    const error = await Client.spawn({ daemon: '/nonexistent/explicit/binderyd' }).catch((caught) => caught);
    assert.ok(error instanceof DaemonNotFoundError);
    assert.match(error.message, /\/nonexistent\/explicit\/binderyd.*does not exist/);
  } finally {
    if (previous === undefined) delete process.env.BINDERYD;
    else process.env.BINDERYD = previous;
  }
});
