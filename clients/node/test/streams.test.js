// The stream constructor: over a child process we spawn ourselves, and over a scripted peer.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { test } from 'node:test';
import { Client, ConnectionClosedError, encodeFrame } from '../index.js';
import { GUARD_MS, daemonPath } from '../test-support/daemon.js';
import { FakeDaemon } from '../test-support/fake-daemon.js';

for (const framing of ['content-length', 'ndjson']) {
  test(`a child_process we spawned, wired with new Client({input, output}) (${framing})`, async (t) => {
    const child = spawn(daemonPath(), [], { stdio: ['pipe', 'pipe', 'inherit'] });
    t.after(() => child.kill('SIGKILL'));
    const exited = once(child, 'exit');
    const client = new Client({ input: child.stdout, output: child.stdin, framing, timeout: GUARD_MS });
    assert.equal(client.process, null);
    const result = await client.initialize();
    assert.equal(result.protocolVersion, 1);
    const form = await client.open('email');
    await form.set('email', 'ada@example.com');
    assert.equal(form.state.isValid, true);
    assert.equal(await client.close(), null);
    assert.deepEqual(await exited, [0, null], 'shutdown then exit: code 0');
    await assert.rejects(client.describe(), ConnectionClosedError);
  });
}

test('open() initializes first when nobody did', async (t) => {
  const child = spawn(daemonPath(), [], { stdio: ['pipe', 'pipe', 'inherit'] });
  t.after(() => child.kill('SIGKILL'));
  const client = new Client({ input: child.stdout, output: child.stdin, timeout: GUARD_MS });
  const form = await client.open('email');
  assert.equal(client.serverInfo.name, 'binderyd');
  assert.deepEqual(form.fields, ['email']);
  await client.close();
});

test('frames split into single bytes and merged into one chunk reach the session intact', async () => {
  const fake = new FakeDaemon();
  const client = new Client({ input: fake.toClient, output: fake.fromClient });
  const thing = await fake.openThing(client);
  const changes = [];
  thing.on('change', (set) => changes.push(set));
  fake.sendBytewise([
    { jsonrpc: '2.0', method: 'didChange', params: { session: 1, revision: 1, changes: { upper: 'ZOË ✓' } } },
    { jsonrpc: '2.0', method: 'didChange', params: { session: 1, revision: 2, changes: { upper: 'B' } } },
  ]);
  const setting = thing.set('name', 'c');
  const request = await fake.next();
  const change = JSON.stringify({ jsonrpc: '2.0', method: 'didChange', params: { session: 1, revision: 3, changes: { upper: 'C' }, cause: request.id } });
  const response = JSON.stringify({ jsonrpc: '2.0', id: request.id, result: { revision: 3 } });
  // Both frames in one chunk.
  fake.toClient.write(Buffer.concat([encodeFrame(change), encodeFrame(response)]));
  assert.equal(await setting, 3);
  assert.deepEqual(changes, [{ upper: 'ZOË ✓' }, { upper: 'B' }, { upper: 'C' }]);
  assert.deepEqual(thing.state, { name: 'c', upper: 'C', 'go.enabled': true, 'go.running': false });
});

test('no echo: the written value is kept, unless the daemon sent back what it stored', async () => {
  const fake = new FakeDaemon();
  const client = new Client({ input: fake.toClient, output: fake.fromClient });
  const thing = await fake.openThing(client);

  const plain = thing.set('name', 'ada');
  fake.respond(await fake.next(), { revision: 0 });
  await plain;
  assert.equal(thing.state.name, 'ada');

  const trimmed = thing.set('name', '  grace  ');
  const request = await fake.next();
  fake.didChange(1, 1, { name: 'grace', upper: 'GRACE' }, request.id);
  fake.respond(request, { revision: 1 });
  await trimmed;
  assert.equal(thing.state.name, 'grace', 'the stored value, not the written one');
});

test('a revision gap makes the session fetch session/state; older messages are then ignored', async () => {
  const fake = new FakeDaemon();
  const client = new Client({ input: fake.toClient, output: fake.fromClient });
  const thing = await fake.openThing(client);
  const infos = [];
  thing.on('change', (changes, info) => infos.push({ changes, source: info.source, revision: info.revision }));

  fake.didChange(1, 1, { upper: 'A' });
  fake.didChange(1, 3, { upper: 'C' }); // revision 2 was lost
  const resync = await fake.next();
  assert.equal(resync.method, 'session/state');
  assert.deepEqual(resync.params, { session: 1 });
  fake.didChange(1, 4, { upper: 'D' }); // written before the answer: covered by it
  fake.respond(resync, { revision: 4, state: { name: 'x', upper: 'D', 'go.enabled': true, 'go.running': false } });
  fake.didChange(1, 5, { upper: 'E' });
  await thing.waitUntil((state) => state.upper === 'E', { timeout: GUARD_MS });
  assert.equal(thing.revision, 5);
  assert.deepEqual(infos, [
    { changes: { upper: 'A' }, source: 'didChange', revision: 1 },
    { changes: { name: 'x', upper: 'D' }, source: 'resync', revision: 4 },
    { changes: { upper: 'E' }, source: 'didChange', revision: 5 },
  ]);

  // A response naming a later revision than the client has also means something was lost.
  const setting = thing.set('name', 'y');
  fake.respond(await fake.next(), { revision: 7 });
  await setting;
  const again = await fake.next();
  assert.equal(again.method, 'session/state');
  fake.respond(again, { revision: 7, state: { name: 'y', upper: 'Y', 'go.enabled': true, 'go.running': false } });
  await thing.waitUntil((state) => state.upper === 'Y', { timeout: GUARD_MS });
});

test('odd traffic: unknown ids and id-null errors are protocolErrors; requests to the client are refused', async () => {
  const fake = new FakeDaemon();
  const client = new Client({ input: fake.toClient, output: fake.fromClient });
  const errors = [];
  client.on('protocolError', (error) => errors.push(error));
  const initializing = client.initialize();
  const initialize = await fake.next();
  fake.send({ jsonrpc: '2.0', id: 999, result: null });
  fake.send({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error: x' } });
  fake.toClient.write('Content-Length: 3\r\n\r\nnot');
  fake.send({ jsonrpc: '2.0', id: 'srv-1', method: 'workspace/configuration', params: {} });
  fake.respond(initialize, { protocolVersion: 1, serverInfo: { name: 'fake', version: '0' }, viewModels: [] });
  await initializing;
  assert.deepEqual(errors.map((error) => error.name), ['BinderyError', 'ParseError', 'ParseError']);
  assert.equal(errors[1].code, -32700);
  const reply = await fake.next();
  assert.equal(reply.id, 'srv-1');
  assert.equal(reply.error.code, -32601);
});

test('params that cannot be serialised reject without sending or leaving anything pending', async () => {
  const fake = new FakeDaemon();
  const client = new Client({ input: fake.toClient, output: fake.fromClient });
  await assert.rejects(client.request('x', { n: 1n }), TypeError);
  assert.equal(client.connection.pendingCount, 0);
  assert.equal(fake.received.length, 0);
});

test('a protocol version this client does not speak is refused', async () => {
  const fake = new FakeDaemon();
  const client = new Client({ input: fake.toClient, output: fake.fromClient });
  const initializing = client.initialize();
  fake.respond(await fake.next(), { protocolVersion: 2, serverInfo: { name: 'fake', version: '9' }, viewModels: [] });
  await assert.rejects(initializing, /protocol version 2/);
});

test('the input ending rejects pending requests with ConnectionClosedError', async () => {
  const fake = new FakeDaemon();
  const client = new Client({ input: fake.toClient, output: fake.fromClient });
  const pending = [client.request('a'), client.request('b')];
  await fake.next();
  fake.toClient.end();
  for (const result of await Promise.allSettled(pending)) {
    assert.equal(result.status, 'rejected');
    assert.ok(result.reason instanceof ConnectionClosedError);
  }
  assert.equal(client.closed, true);
});
