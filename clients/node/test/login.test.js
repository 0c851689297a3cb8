// The login seed: an async command, under the virtual clock and once under the real one.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CommandDisabledError, CommandFailedError } from '../index.js';
import { spawnClient } from '../test-support/daemon.js';

const USER = { firstName: 'Ada', lastName: 'Lovelace', authToken: '123adasdsadasdasdasdd' };

test('login (deterministic): disabled, running, logged in, failed, with advanceClock', async (t) => {
  const client = await spawnClient(t, { deterministic: true, seed: 1 });
  const login = await client.open('login');
  assert.deepEqual(login.commands, ['login']);
  assert.equal(login.state['login.enabled'], false);
  await assert.rejects(login.invoke('login'), CommandDisabledError);

  await login.set('firstName', 'Ada');
  await login.set('lastName', 'Lovelace');
  assert.equal(login.state['login.enabled'], true);
  assert.equal(login.state.loginInputValid, true);

  const running = login.invoke('login');
  await login.waitUntil((state) => state['login.running']);
  assert.equal(login.state.userLoadingInProgress, true);
  assert.equal(await client.advanceClock(1000), 1000);
  assert.equal(login.state['login.running'], true, 'still waiting for the API');
  assert.equal(await client.advanceClock(500), 1500);
  // The invoke answered before clock/advance did, so its changes are already applied.
  assert.deepEqual(login.state.loggedInUser, USER);
  assert.deepEqual(await running, USER);
  assert.equal(login.state['login.running'], false);

  // The fake API rejects Mallory: CommandFailedError with the view model's detail.
  await login.set('firstName', 'Mallory');
  const failing = login.invoke('login').catch((caught) => caught);
  await client.advanceClock(1500);
  const error = await failing;
  assert.ok(error instanceof CommandFailedError);
  assert.equal(error.code, -32017);
  assert.deepEqual(error.data, { session: login.id, command: 'login', detail: { reason: 'rejected' } });
  assert.equal(login.state.errorMessage, 'The user API rejected Mallory Lovelace');
  assert.equal(login.state['login.enabled'], true);
});

test('login (deterministic): the state is current when invoke resolves', async (t) => {
  const client = await spawnClient(t, { deterministic: true });
  const login = await client.open('login');
  await login.set('firstName', 'Grace');
  await login.set('lastName', 'Hopper');
  const seen = [];
  login.on('change', (changes) => seen.push(changes));
  const invoked = login.invoke('login').then((user) => ({ user, state: login.state }));
  await client.advanceClock(1500);
  const { user, state } = await invoked;
  assert.equal(user.firstName, 'Grace');
  assert.deepEqual(state.loggedInUser, user);
  assert.equal(state['login.running'], false);
  assert.deepEqual(seen.map((changes) => changes['login.running']), [true, false]);
});

test('login with the real clock', async (t) => {
  const client = await spawnClient(t);
  const login = await client.open('login');
  await login.set('firstName', 'Ada');
  await login.set('lastName', 'Lovelace');
  const user = await login.invoke('login', {});
  assert.deepEqual(user, USER);
  assert.deepEqual(login.state.loggedInUser, USER);
  assert.equal(login.state['login.running'], false);
});
