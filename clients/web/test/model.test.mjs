// The page's pure parts in Node (node --test clients/web/test/): folding didChange and splices,
// the stale-echo rule, recovery snapshots, and the daemon's text for values.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { SessionModel, applyOps, sameValue } from '../static/model.js';
import { controlKind, memberText, parseArgs, inlineText, refusal } from '../static/values.js';

const email = {
  type: 'email', schemaHash: 'cfb889dd8d9bfc95', commands: [],
  fields: [
    { name: 'email', type: 'string', nullable: false, writable: true },
    { name: 'isValid', type: 'boolean', nullable: false, writable: false },
  ],
};

function opened() {
  const model = new SessionModel(email);
  model.take({ session: 1, revision: 0, state: { email: '', isValid: false } });
  return model;
}

test('didChange is folded and a revision gap asks for a resync', () => {
  const model = opened();
  assert.deepEqual(model.applyDidChange({ session: 1, revision: 1, changes: { isValid: true } }).changed, ['isValid']);
  assert.equal(model.state.isValid, true);
  const gap = model.applyDidChange({ session: 1, revision: 3, changes: { isValid: false } });
  assert.equal(gap.resync, true);
  assert.equal(model.state.isValid, true);
});

test('a change of a field with a write in flight, caused by something else, is stale', () => {
  const model = opened();
  model.beginWrite(10, 'email', { value: 'mine' });
  // Another client wrote "theirs" before the daemon handled request 10: stale.
  const stale = model.applyDidChange({ revision: 1, changes: { email: 'theirs', isValid: true }, cause: 7 });
  assert.deepEqual(stale.changed, ['isValid']);
  assert.equal(model.state.email, '');
  assert.deepEqual(model.endWrite(10, true), ['email']);
  assert.equal(model.state.email, 'mine');
  // With no write in flight, the same change is news.
  assert.deepEqual(model.applyDidChange({ revision: 2, changes: { email: 'later' }, cause: 8 }).changed, ['email']);
  assert.equal(model.state.email, 'later');
});

test('what the daemon stored instead of the write wins over the write', () => {
  const model = opened();
  model.beginWrite(5, 'email', { value: 'Typed' });
  model.applyDidChange({ revision: 1, changes: { email: 'typed' }, cause: 5 });
  assert.equal(model.state.email, 'typed');
  assert.deepEqual(model.endWrite(5, true), []);
  assert.equal(model.state.email, 'typed');
});

test('of two writes in flight the later decides; a refused write changes nothing', () => {
  const model = opened();
  model.beginWrite(1, 'email', { value: 'a' });
  model.beginWrite(2, 'email', { value: 'ab' });
  model.endWrite(1, true);
  assert.equal(model.hasWriteInFlight('email'), true);
  model.endWrite(2, true);
  assert.equal(model.state.email, 'ab');
  model.beginWrite(3, 'email', { value: 42 });
  assert.deepEqual(model.endWrite(3, false), []);
  assert.equal(model.state.email, 'ab');
});

test('session/state keeps fields written after it was asked', () => {
  const model = opened();
  model.beginWrite(9, 'email', { value: 'newer' });
  model.take({ revision: 4, state: { email: 'older', isValid: true } }, 8);
  assert.equal(model.state.email, '');
  assert.equal(model.state.isValid, true);
  assert.equal(model.revision, 4);
});

test('splices apply in order and a wrong length asks for a resync', () => {
  assert.deepEqual(applyOps([1, 2, 3], [{ at: 1, delete: 1, insert: [9, 8] }, { at: 0, delete: 0, insert: [0] }]), [0, 1, 9, 8, 3]);
  const list = { type: 'movieList', commands: [], fields: [{ name: 'movies', type: 'array', items: { type: 'string' }, writable: false }] };
  const model = new SessionModel(list);
  model.take({ session: 1, revision: 0, state: { movies: ['a'] } });
  const done = model.applyDidChange({ revision: 1, changes: {}, splices: { movies: { ops: [{ at: 1, delete: 0, insert: ['b'] }], length: 2 } } });
  assert.deepEqual(done.splices, { movies: [{ at: 1, delete: 0, insert: ['b'] }] });
  assert.deepEqual(model.state.movies, ['a', 'b']);
  const wrong = model.applyDidChange({ revision: 2, changes: {}, splices: { movies: { ops: [{ at: 0, delete: 0, insert: ['z'] }], length: 9 } } });
  assert.equal(wrong.resync, true);
  assert.deepEqual(model.state.movies, ['a', 'b']);
});

test('commands: running from the state member or an invoke in flight; outcomes kept', () => {
  const login = { type: 'login', commands: [{ name: 'login' }], fields: [] };
  const model = new SessionModel(login);
  model.take({ session: 1, revision: 0, state: { 'login.enabled': false, 'login.running': false } });
  assert.equal(model.enabled('login'), false);
  model.beginInvoke(4, 'login');
  assert.equal(model.running('login'), true);
  assert.equal(model.endInvoke(4, { ok: true, value: 1 }), 'login');
  assert.equal(model.running('login'), false);
  assert.deepEqual(model.outcomes.login, { ok: true, value: 1 });
});

test('a recovery snapshot holds the writable fields, with unacknowledged edits over them', () => {
  const model = opened();
  assert.deepEqual(model.snapshot({ email: 'half typed' }),
    { type: 'email', schemaHash: 'cfb889dd8d9bfc95', revision: 0, fields: { email: 'half typed' } });
});

test('values: exact equality; the daemon\'s text, and the page\'s own only for lists and arguments', () => {
  assert.equal(sameValue(0, -0), false);
  assert.equal(sameValue({ a: [1, { b: null }] }, { a: [1, { b: null }] }), true);
  assert.equal(controlKind({ type: 'enum' }), 'select');
  assert.equal(controlKind({ type: 'number' }), 'text');
  assert.equal(memberText(0.5, '0.5'), '0.5');
  assert.equal(memberText({ case: 'point' }, 'point'), 'point');
  assert.equal(memberText('a\nb', undefined), 'a\nb');
  assert.equal(memberText([1, 2], undefined), '[1,2]');
  assert.equal(memberText(null, undefined), '');
  assert.equal(refusal({ code: -32602, message: 'x', data: { field: 'n', text: 'x', expected: 'a number' } }), 'expected a number');
  assert.equal(refusal({ code: -32013, message: 'read-only' }), 'read-only');
  assert.deepEqual(parseArgs('{"symbol": "He"}'), { ok: true, value: { symbol: 'He' } });
  assert.deepEqual(parseArgs('symbol=He'), { ok: true, value: { symbol: 'He' } });
  assert.equal(parseArgs('[1]').ok, false);
  assert.equal(inlineText({ firstName: 'Ada', tags: ['x', 'y'] }), 'firstName: Ada, tags: [x; y]');
});

test('display: the daemon\'s text follows each value; a text write shows what was typed until the daemon speaks', () => {
  const model = new SessionModel({ type: 't', fields: [{ name: 'n', type: 'integer', writable: true }], commands: [] });
  model.take({ session: 1, revision: 0, state: { n: 1 }, display: { n: '1' } });
  assert.equal(model.text('n'), '1');
  model.beginWrite(4, 'n', { text: ' 2 ' });
  assert.deepEqual(model.endWrite(4, true), []);
  assert.equal(model.text('n'), ' 2 ');
  assert.deepEqual(model.snapshot().fields, {}, 'its value is the daemon\'s to read again');
  model.applyDidChange({ revision: 1, changes: { n: 3 }, display: { n: '3' } });
  assert.equal(model.text('n'), '3');
  model.applyDidChange({ revision: 2, changes: { n: null }, display: {} });
  assert.equal(model.text('n'), '');
});
