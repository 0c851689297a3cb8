// The email and survey seeds: state kept current, no echo, events, iterators, observe, refresh.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { GUARD_MS, spawnClient } from '../test-support/daemon.js';

test('email: open, set, state current when set resolves', async (t) => {
  const client = await spawnClient(t);
  assert.equal(client.protocolVersion, 1);
  assert.equal(client.serverInfo.name, 'binderyd');
  const form = await client.open('email');
  assert.equal(form.id, 1);
  assert.equal(form.revision, 0);
  assert.deepEqual(form.state, { email: '', isValid: false, validationMessage: 'Email is invalid' });
  assert.deepEqual(form.fields, ['email']);
  assert.deepEqual(form.outputs, ['isValid', 'validationMessage']);
  assert.deepEqual(form.commands, []);

  const events = [];
  form.on('change', (changes, info) => events.push({ changes, info }));
  const revision = await form.set('email', 'ada@example.com');
  assert.equal(revision, 1);
  assert.equal(form.revision, 1);
  // No echo: the daemon does not send the written field back; the client stores it itself.
  assert.deepEqual(form.state, { email: 'ada@example.com', isValid: true, validationMessage: 'Email is valid' });
  assert.equal(form.get('email'), 'ada@example.com');
  assert.equal(events.length, 1);
  assert.deepEqual(events[0].changes, { isValid: true, validationMessage: 'Email is valid' });
  assert.equal(events[0].info.revision, 1);
  assert.equal(events[0].info.source, 'didChange');
  assert.equal(typeof events[0].info.cause, 'number');

  // A value that changes no output: no didChange, same revision, field still stored.
  const before = form.state;
  assert.equal(await form.set('email', 'grace@example.org'), 1);
  assert.equal(form.state.email, 'grace@example.org');
  assert.equal(before.email, 'ada@example.com', 'state is replaced, not mutated: old references are snapshots');
  assert.equal(events.length, 1);

  // The daemon agrees with what the client shows.
  const shown = form.state;
  assert.deepEqual(await form.refresh(), shown);
});

test('email: pipelined keystrokes keep their order; changes() buffers every change set', async (t) => {
  const client = await spawnClient(t);
  const form = await client.open('email');
  const iterator = form.changes();
  const typed = ['a', 'a@', 'a@b', 'a@b.', 'a@b.c', 'a@b.co', 'a@b.com', 'a@b.comm', 'a@b.commm'];
  const revisions = await Promise.all(typed.map((text) => form.set('email', text)));
  assert.deepEqual(revisions, [0, 0, 0, 0, 0, 1, 1, 1, 2]);
  assert.deepEqual(form.state, { email: 'a@b.commm', isValid: false, validationMessage: 'Email is invalid' });
  const sets = [];
  for await (const changes of iterator) {
    sets.push(changes);
    if (sets.length === 2) break;
  }
  assert.deepEqual(sets, [
    { isValid: true, validationMessage: 'Email is valid' },
    { isValid: false, validationMessage: 'Email is invalid' },
  ]);
  assert.equal(form.listenerCount('change'), 0, 'breaking out of the loop detaches the iterator');
});

test('waitUntil resolves on a later change, and at once when the predicate already holds', async (t) => {
  const client = await spawnClient(t);
  const form = await client.open('email');
  const valid = form.waitUntil((state) => state.isValid, { timeout: GUARD_MS });
  await form.set('email', 'x@y.io');
  assert.equal((await valid).isValid, true);
  assert.equal((await form.waitUntil((state) => state.email === 'x@y.io')).email, 'x@y.io');
});

test('survey: nullable fields, numbers, outputs', async (t) => {
  const client = await spawnClient(t);
  const survey = await client.open('survey');
  assert.equal(survey.state.name, null);
  assert.equal(survey.state.prettyString, 'Name: --\nCompany: --\nExperience: --\nCurrent Employer?: NO\napprox Salary: --\nComments: --');
  await survey.set('name', 'Ada Lovelace');
  await survey.set('companyName', 'Analytical Engines');
  await survey.set('yearsOfExperience', 3);
  assert.equal(survey.state.experienceString, '3.0 yrs');
  await survey.set('isCurrentEmployer', true);
  await survey.set('approxSalary', 45000);
  assert.equal(survey.state.salaryString, '45.0k');
  await survey.set('comments', 'Notes');
  await survey.set('comments', null);
  assert.equal(survey.state.comments, null);
  assert.equal(survey.state.prettyString,
    'Name: Ada Lovelace\nCompany: Analytical Engines\nExperience: 3.0 yrs\nCurrent Employer?: YES\napprox Salary: 45.0k\nComments: --');
  assert.equal(survey.revision, 7);
  const shown = survey.state;
  assert.deepEqual(await survey.refresh(), shown);
});

test('observe: only the chosen members are kept; get() of an unobserved member is undefined', async (t) => {
  const client = await spawnClient(t);
  const survey = await client.open('survey', { observe: ['prettyString'] });
  assert.deepEqual(Object.keys(survey.state), ['prettyString']);
  await survey.set('name', 'Ada');
  assert.deepEqual(Object.keys(survey.state), ['prettyString'], 'an unobserved written field is not added');
  assert.match(survey.state.prettyString, /Name: Ada/);

  const state = await survey.observe(['name', 'experienceString']);
  assert.deepEqual(state, { name: 'Ada', experienceString: '--' });
  await survey.set('yearsOfExperience', 12);
  assert.deepEqual(survey.state, { name: 'Ada', experienceString: '12.0 yrs' });
  assert.equal(survey.get('prettyString'), undefined);
});

test('sessions: ids, the client registry, close', async (t) => {
  const client = await spawnClient(t);
  const first = await client.open('email');
  const second = await client.open('email');
  assert.notEqual(first.id, second.id);
  assert.deepEqual([...client.sessions.keys()], [first.id, second.id]);
  let closedEvents = 0;
  first.on('close', () => { closedEvents += 1; });
  await first.close();
  await first.close(); // closing twice is harmless
  assert.equal(first.closed, true);
  assert.equal(closedEvents, 1);
  assert.deepEqual([...client.sessions.keys()], [second.id]);
  await assert.rejects(first.set('email', 'x'), { name: 'SessionClosedError', code: -32011, local: true });
  await assert.rejects(first.waitUntil(() => false), { name: 'SessionClosedError' });
  const done = await first.changes().next();
  assert.equal(done.done, true);
});

test('describe: every type, or one', async (t) => {
  const client = await spawnClient(t);
  const all = await client.describe();
  assert.deepEqual(all.map((schema) => schema.type),
    ['email', 'survey', 'login', 'package', 'element', 'movieList', 'addMovie', 'bottomBar']);
  assert.deepEqual(client.viewModels.map((schema) => schema.type), all.map((schema) => schema.type));
  const email = await client.describe('email');
  assert.equal(email.type, 'email');
  assert.deepEqual(email.fields.map((field) => field.name), ['email', 'isValid', 'validationMessage']);
});

test('display: true: the daemon\'s text for each value, folded beside the state', async (t) => {
  const client = await spawnClient(t, { display: true });
  assert.equal(client.capabilities.display, true);
  const form = await client.open('email');
  assert.equal(form.display.isValid, 'false');
  assert.equal(form.display.email, undefined, 'a string is its own text');
  await form.set('email', 'ada@example.com');
  assert.equal(form.display.isValid, 'true');
});
