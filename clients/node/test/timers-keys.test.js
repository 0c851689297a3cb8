// bottomBar's timer (virtual and real clock) and sessions opened by key.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { NeedsDeterministicModeError, OpenFailedError } from '../index.js';
import { GUARD_MS, spawnClient } from '../test-support/daemon.js';

test('bottomBar: ticks as the virtual clock advances; no cause for timer changes', async (t) => {
  const client = await spawnClient(t, { seed: 7 });
  const bar = await client.open('bottomBar', { key: 'bar' });
  assert.equal(bar.reopened, false);
  const infos = [];
  bar.on('change', (changes, info) => infos.push({ ...info, text: changes.text }));
  assert.equal(await client.advanceClock(1999), 1999);
  assert.equal(bar.state.text, '');
  await client.advanceClock(1);
  assert.equal(bar.state.text, 'Random number: 38');
  await client.advanceClock(4000);
  assert.equal(bar.state.text, 'Random number: 90');
  assert.deepEqual(infos.map((info) => info.text), ['Random number: 38', 'Random number: 1', 'Random number: 90']);
  assert.deepEqual(infos.map((info) => info.revision), [1, 2, 3]);
  assert.ok(infos.every((info) => info.cause === undefined));

  const again = await client.open('bottomBar', { key: 'bar' });
  assert.equal(again, bar, 'the same key gives the same Session object');
  assert.equal(bar.reopened, true);
  assert.equal(bar.revision, 3);

  const other = await client.open('bottomBar');
  await client.advanceClock(2000);
  assert.equal(bar.state.text, 'Random number: 58');
  assert.equal(other.state.text, 'Random number: 45');
  await bar.close();
  await client.advanceClock(4000);
  assert.equal(bar.state.text, 'Random number: 58', 'a closed session no longer changes');
  assert.equal(other.revision, 3);
});

test('bottomBar: one tick of the real clock', async (t) => {
  const client = await spawnClient(t);
  const bar = await client.open('bottomBar');
  const state = await bar.waitUntil((current) => current.text !== '', { timeout: GUARD_MS });
  assert.match(state.text, /^Random number: \d+$/);
  assert.equal(bar.revision, 1);
  await assert.rejects(client.advanceClock(100), NeedsDeterministicModeError);
});

test('session keys: reopen keeps state; a key held by another type; a closed key is free again', async (t) => {
  const client = await spawnClient(t);
  const form = await client.open('email', { key: 'form' });
  assert.equal(form.key, 'form');
  assert.equal(form.reopened, false);
  await form.set('email', 'ada@example.com');
  const again = await client.open('email', { key: 'form' });
  assert.equal(again, form);
  assert.equal(form.reopened, true);
  assert.deepEqual(form.state, { email: 'ada@example.com', isValid: true, validationMessage: 'Email is valid' });

  const clash = await client.open('survey', { key: 'form' }).catch((error) => error);
  assert.ok(clash instanceof OpenFailedError);
  assert.deepEqual(clash.data, { key: 'form', type: 'email' });
  await assert.rejects(client.open('email', { key: 7 }), { name: 'InvalidParamsError', data: { param: 'key' } });

  await form.close();
  const fresh = await client.open('email', { key: 'form' });
  assert.notEqual(fresh, form);
  assert.equal(fresh.reopened, false);
  assert.equal(fresh.state.email, '');
});
