// History (protocol.md, "History"): undo, redo, snapshots, restore, and binderyd --state DIR.
// Against the real daemon, in deterministic mode (a typing burst is writes to one field less than
// 500 ms apart on the session's clock, which moves only on advanceClock). After each call the
// client's state must equal a fresh session/state: the fields an undo writes back come by
// didChange (cause: the undo), and the no-echo bookkeeping of earlier writes must not hide them.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { SessionClosedError, SnapshotMismatchError } from '../index.js';
import { SurveySession } from '../seeds.js';
import { spawnClient } from '../test-support/daemon.js';

const SURVEY = ['name', 'companyName', 'prettyString'];

const pretty = (name = '--', company = '--') =>
  `Name: ${name}\nCompany: ${company}\nExperience: --\nCurrent Employer?: NO\napprox Salary: --\nComments: --`;

async function inStep(client, session) {
  const fresh = await client.request('session/state', { session: session.id });
  assert.deepEqual([session.revision, session.state], [fresh.revision, fresh.state]);
}

test('undo takes back a typing burst at once, and redo writes it again', async (t) => {
  const client = await spawnClient(t, { deterministic: true });
  const form = await client.open('survey', { observe: SURVEY });
  const events = [];
  form.on('change', (changes, info) => events.push({ changes, info }));
  for (const text of ['A', 'Ad', 'Ada']) await form.set('name', text); // fast consecutive writes: one step
  const undone = await form.undo();
  assert.deepEqual(undone, { revision: form.revision, canUndo: false, canRedo: true });
  assert.deepEqual(form.state, { name: null, companyName: null, prettyString: pretty() });
  assert.equal(events.at(-1).changes.name, null, 'the field itself comes back');
  assert.equal(typeof events.at(-1).info.cause, 'number', 'caused by the undo');
  await inStep(client, form);
  assert.deepEqual(await form.redo(), { revision: form.revision, canUndo: true, canRedo: false });
  assert.equal(form.state.name, 'Ada');
  await inStep(client, form);
  const revision = form.revision;
  assert.deepEqual(await form.redo(), { revision, canUndo: true, canRedo: false }, 'nothing to redo: nothing changes');
});

test('a pause or another field starts a new step', async (t) => {
  const client = await spawnClient(t, { deterministic: true });
  const form = await client.open('survey', { observe: SURVEY });
  await form.set('name', 'Ada');
  await client.advanceClock(1000); // a pause: the next write to the same field is a step of its own
  await form.set('name', 'Ada L');
  await form.set('companyName', 'Engines'); // another field: another step
  assert.equal((await form.undo()).canUndo, true);
  assert.deepEqual([form.state.name, form.state.companyName], ['Ada L', null]);
  await form.undo();
  assert.equal(form.state.name, 'Ada');
  const last = await form.undo();
  assert.equal(form.state.name, null);
  assert.deepEqual([last.canUndo, last.canRedo], [false, true]);
  await inStep(client, form);
});

test('a new write clears what could be redone', async (t) => {
  const client = await spawnClient(t, { deterministic: true });
  const form = await client.open('survey', { observe: SURVEY });
  await form.set('name', 'Ada');
  await client.advanceClock(1000);
  await form.set('name', 'Grace');
  assert.equal((await form.undo()).canRedo, true);
  assert.equal(form.state.name, 'Ada');
  await form.set('companyName', 'Navy');
  assert.deepEqual(await form.redo(), { revision: form.revision, canUndo: true, canRedo: false });
  assert.deepEqual([form.state.name, form.state.companyName], ['Ada', 'Navy']);
  await inStep(client, form);
});

test('undo is per session', async (t) => {
  const client = await spawnClient(t, { deterministic: true });
  const add = await client.open('addMovie');
  const movies = await client.open('movieList', { observe: ['movies'] });
  await add.set('title', 'Alien');
  await add.invoke('save');
  assert.deepEqual(await movies.undo(), { revision: movies.revision, canUndo: false, canRedo: false });
  assert.equal(movies.state.movies.length, 1);
  await add.undo();
  assert.deepEqual([add.state.title, add.state.canSave], ['', false]);
  await inStep(client, add);
  await inStep(client, movies);
});

test('pipelined writes and undo keep state exact', async (t) => {
  // Sent back to back: the write's no-echo store (at its response) comes before the undo's
  // didChange, which then writes the field back.
  const client = await spawnClient(t, { deterministic: true });
  const form = await client.open('survey', { observe: SURVEY });
  await Promise.all([form.set('name', 'A'), form.set('name', 'Ad'), form.undo(), form.set('companyName', 'X')]);
  assert.deepEqual([form.state.name, form.state.companyName], [null, 'X']);
  await inStep(client, form);
  await Promise.all([form.undo(), form.redo(), form.undo(), form.set('name', 'Z'), form.redo()]);
  await inStep(client, form);
});

test('undo, redo and snapshot on a closed session fail locally', async (t) => {
  const client = await spawnClient(t);
  const form = await client.open('email');
  await form.close();
  for (const call of [() => form.undo(), () => form.redo(), () => form.snapshot()]) {
    await assert.rejects(call(), (error) => error instanceof SessionClosedError && error.local);
  }
});

test('a snapshot restores into a new session', async (t) => {
  const client = await spawnClient(t, { deterministic: true });
  const form = await client.open('survey', { observe: SURVEY });
  await form.set('name', 'Ada');
  await form.set('yearsOfExperience', 12);
  const snapshot = await form.snapshot();
  assert.equal(snapshot.type, 'survey');
  assert.equal(snapshot.schemaHash, SurveySession.schemaHash);
  assert.equal(snapshot.fields.name, 'Ada');
  assert.equal(snapshot.fields.yearsOfExperience, 12);
  assert.equal('prettyString' in snapshot.fields, false, 'outputs are recomputed, not kept');
  const copy = await client.open('survey', { restore: JSON.parse(JSON.stringify(snapshot)) });
  assert.notEqual(copy.id, form.id);
  assert.equal(copy.revision, 0);
  assert.equal(copy.restored, false);
  assert.equal(copy.state.name, 'Ada');
  assert.equal(copy.state.experienceString, '12.0 yrs');
  await copy.set('name', 'Grace');
  assert.equal(form.state.name, 'Ada', 'two sessions: the restored one is a copy');
  await inStep(client, copy);
});

test('a doctored snapshot rejects with SnapshotMismatchError', async (t) => {
  const client = await spawnClient(t, { deterministic: true });
  const cases = [
    [{ type: 'survey', fields: { nickname: 'Amazing' } }, 'it has a field "nickname" the type does not have'],
    [{ type: 'survey', fields: { yearsOfExperience: 'twelve' } }, 'expected number or null, found string'],
    [{ type: 'survey', fields: { experienceString: 'lots' } }, '"experienceString" is not a writable field'],
    [{ type: 'email', fields: {} }, 'it is a snapshot of email'],
  ];
  for (const [restore, reason] of cases) {
    await assert.rejects(client.open('survey', { restore }), (error) => {
      assert.ok(error instanceof SnapshotMismatchError);
      assert.equal(error.code, -32022);
      assert.equal(error.local, false);
      assert.equal(error.method, 'session/open');
      assert.equal(error.data.type, 'survey');
      assert.ok(error.data.reason.includes(reason) && error.message.includes(reason), error.message);
      return true;
    });
  }
  assert.equal(client.sessions.size, 0, 'nothing was opened');
  const restore = { type: 'email', schemaHash: '0000000000000000', fields: { email: 'ada@example.com' } };
  const taken = await client.open('email', { restore });
  assert.equal(taken.state.isValid, true, 'another schema version whose fields fit is taken');
});

test('binderyd --state DIR keeps a keyed session across a restart', async (t) => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'bindery-state-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const first = await spawnClient(t, { args: ['--state', dir] });
  const form = await first.open('survey', { key: 'form-1', observe: SURVEY });
  assert.equal(form.restored, false);
  await form.set('name', 'Ada');
  await form.set('companyName', 'Engines');
  assert.deepEqual(await first.close(), { exitCode: 0, signal: null });

  // A new daemon: the key finds the stored fields; outputs are recomputed.
  const second = await spawnClient(t, { args: ['--state', dir] });
  const back = await second.open('survey', { key: 'form-1', observe: SURVEY });
  assert.equal(back.restored, true);
  assert.deepEqual(back.state, { name: 'Ada', companyName: 'Engines', prettyString: pretty('Ada', 'Engines') });
  const again = await second.open('survey', { key: 'form-1' });
  assert.equal(again, back);
  assert.equal(back.restored, false, 'a reopen of the live session restores nothing');
  const other = await second.open('survey', { key: 'form-2' });
  assert.equal(other.restored, false);
  assert.equal(other.state.name, null);
  await inStep(second, back);

  // Typed sessions pass the flag through.
  const typed = await SurveySession.open(second, { key: 'typed' });
  await typed.setName('Grace');
  await second.close();
  const third = await spawnClient(t, { args: ['--state', dir] });
  const typedBack = await SurveySession.open(third, { key: 'typed' });
  assert.equal(typedBack.restored, true);
  assert.equal(typedBack.state.name, 'Grace');
});

test('typed sessions: undo, redo, snapshot and restore', async (t) => {
  const client = await spawnClient(t, { deterministic: true });
  const form = await SurveySession.open(client);
  await form.setName('Ada');
  assert.deepEqual(await form.undo(), { revision: form.revision, canUndo: false, canRedo: true });
  assert.equal(form.state.name, null);
  assert.equal((await form.redo()).canUndo, true);
  assert.equal(form.state.name, 'Ada');
  const copy = await SurveySession.open(client, { restore: await form.snapshot() });
  assert.equal(copy.state.name, 'Ada');
  assert.equal(copy.restored, false);
  await assert.rejects(SurveySession.open(client, { restore: { type: 'survey', fields: { nickname: 'x' } } }), SnapshotMismatchError);
});
