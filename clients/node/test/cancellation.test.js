// AbortSignal and timeout: $/cancelRequest is sent, the daemon answers RequestCancelled after the
// changes the cancellation caused, and the promise rejects with the state already reset.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AbortError, RequestCancelledError, TimeoutError } from '../index.js';
import { spawnClient } from '../test-support/daemon.js';

async function loginSession(client) {
  const login = await client.open('login');
  await login.set('firstName', 'Ada');
  await login.set('lastName', 'Lovelace');
  return login;
}

function recordNotifications(client) {
  const sent = [];
  const notify = client.connection.notify.bind(client.connection);
  client.connection.notify = (method, params) => { sent.push({ method, params }); notify(method, params); };
  return sent;
}

test('abort: $/cancelRequest, RequestCancelled from the daemon, state reset, invoke again works', async (t) => {
  const client = await spawnClient(t, { deterministic: true });
  const login = await loginSession(client);
  const sent = recordNotifications(client);
  const controller = new AbortController();
  const invoking = login.invoke('login', undefined, { signal: controller.signal }).catch((caught) => caught);
  await login.waitUntil((state) => state['login.running']);
  controller.abort();
  const error = await invoking;
  assert.ok(error instanceof AbortError, error.message);
  assert.equal(error.code, -32800);
  assert.ok(error.cause instanceof RequestCancelledError, 'the daemon answered');
  assert.equal(error.cause.message, 'Request cancelled: by the client');
  assert.equal(sent.length, 1);
  assert.equal(sent[0].method, '$/cancelRequest');
  assert.equal(typeof sent[0].params.id, 'number');
  // The changes the cancellation caused came before the daemon's answer: already applied.
  assert.equal(login.state['login.running'], false);
  assert.equal(login.state.userLoadingInProgress, false);
  assert.equal(login.state['login.enabled'], true);
  assert.equal(login.state.loggedInUser, null);

  const again = login.invoke('login');
  await client.advanceClock(1500);
  assert.equal((await again).firstName, 'Ada');
});

test('timeout: the request is cancelled like an aborted one and rejects with TimeoutError', async (t) => {
  const client = await spawnClient(t, { deterministic: true });
  const login = await loginSession(client);
  const sent = recordNotifications(client);
  // Under the virtual clock the login never ends by itself: only the timeout can stop it.
  const error = await login.invoke('login', undefined, { timeout: 50 }).catch((caught) => caught);
  assert.ok(error instanceof TimeoutError, error.message);
  assert.equal(error.timeout, 50);
  assert.ok(error.cause instanceof RequestCancelledError);
  assert.deepEqual(sent.map((message) => message.method), ['$/cancelRequest']);
  assert.equal(login.state['login.running'], false);
  assert.equal(login.state['login.enabled'], true);
});

test('AbortSignal.timeout counts as a timeout', async (t) => {
  const client = await spawnClient(t, { deterministic: true });
  const login = await loginSession(client);
  const error = await login.invoke('login', undefined, { signal: AbortSignal.timeout(30) }).catch((caught) => caught);
  assert.ok(error instanceof TimeoutError);
  assert.equal(login.state['login.running'], false);
});

test('an already aborted signal rejects without sending anything', async (t) => {
  const client = await spawnClient(t, { deterministic: true });
  const login = await loginSession(client);
  const revision = login.revision;
  const error = await login.invoke('login', undefined, { signal: AbortSignal.abort() }).catch((caught) => caught);
  assert.ok(error instanceof AbortError);
  assert.equal(error.cause?.name, 'AbortError', 'the cause is the signal\'s reason, not a daemon answer');
  assert.deepEqual(await login.refresh(), login.state);
  assert.equal(login.revision, revision, 'nothing ran');
});

test('closing a session cancels its running commands; open iterators end', async (t) => {
  const client = await spawnClient(t, { deterministic: true });
  const login = await loginSession(client);
  const other = await client.open('login');
  await other.set('firstName', 'Grace');
  await other.set('lastName', 'Hopper');
  const iterator = login.changes();
  const running = login.invoke('login').catch((caught) => caught);
  const otherRunning = other.invoke('login');
  await login.waitUntil((state) => state['login.running']);
  await login.close();
  const error = await running;
  assert.ok(error instanceof RequestCancelledError);
  assert.equal(error.message, `Request cancelled: session ${login.id} was closed`);
  const seen = [];
  for await (const changes of iterator) seen.push(changes);
  assert.equal(seen.length, 1, 'the running change, then the end');
  // The other session's login is untouched.
  await client.advanceClock(1500);
  assert.equal((await otherRunning).firstName, 'Grace');
});

test('an abort after the answer changes nothing', async (t) => {
  const client = await spawnClient(t);
  const form = await client.open('email');
  const controller = new AbortController();
  await form.set('email', 'a@b.co', { signal: controller.signal });
  controller.abort();
  assert.equal(form.state.isValid, true);
});
