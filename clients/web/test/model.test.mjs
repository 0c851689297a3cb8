// The page's pure parts in Node (node --test clients/web/test/): folding didChange and splices,
// pending writes shown as typed (mirror.js, the Node client's), recovery snapshots, and the daemon's text for values.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { SessionModel } from '../static/model.js';
import { Mirror, applySplice, sameValue } from '../static/mirror.js';
import { controlKind, memberLabel, memberText, parseArgs, inlineText, refusal } from '../static/values.js';

const email = {
  type: 'email', schemaHash: 'cfb889dd8d9bfc95', commands: [],
  fields: [
    { name: 'email', type: 'string', nullable: false, writable: true },
    { name: 'isValid', type: 'boolean', nullable: false, writable: false },
  ],
};

function opened(schema = email, state = { email: '', isValid: false }, display = undefined) {
  const mirror = new Mirror();
  const model = new SessionModel(schema);
  model.attach(mirror, mirror.take(1, { type: schema.type, revision: 0, state, display }).record);
  return { mirror, model };
}

test('the page folds with the Node client\'s mirror: didChange, and a revision gap asks for a resync', () => {
  const { mirror, model } = opened();
  assert.deepEqual(mirror.didChange({ session: 1, revision: 1, changes: { isValid: true } }).changes, { isValid: true });
  assert.equal(model.state.isValid, true);
  assert.equal(mirror.didChange({ session: 1, revision: 3, changes: { isValid: false } }).resync, true);
  assert.equal(model.state.isValid, true);
});

test('a write pending shows what was typed, whatever arrives meanwhile; its answer puts it back', () => {
  const { mirror, model } = opened();
  model.beginWrite(10, 'email', { text: 'mine' });
  // Another client wrote "theirs" before the daemon handled request 10: shown, it is not.
  mirror.didChange({ session: 1, revision: 1, changes: { email: 'theirs', isValid: true }, cause: 7 });
  assert.equal(model.text('email'), 'mine');
  assert.deepEqual(model.endWrite(10, { result: { revision: 1 } }), { changed: ['email'], resync: false });
  assert.equal(model.state.email, 'mine');
  // With no write pending, a change is shown.
  mirror.didChange({ session: 1, revision: 2, changes: { email: 'later' }, cause: 8 });
  assert.equal(model.text('email'), 'later');
});

test('what the daemon stored instead of the write wins over the write; a refused write changes nothing', () => {
  const { mirror, model } = opened();
  model.beginWrite(5, 'email', { text: 'Typed' });
  mirror.didChange({ session: 1, revision: 1, changes: { email: 'typed' }, cause: 5 });
  model.endWrite(5, { result: { revision: 1 } });
  assert.equal(model.text('email'), 'typed');
  model.beginWrite(6, 'email', { value: 42 });
  model.endWrite(6, { error: { code: -32014 } });
  assert.equal(model.state.email, 'typed');
});

test('splices apply in order, a long insert too; one that does not fit asks for a resync', () => {
  assert.deepEqual(applySplice([1, 2, 3], { ops: [{ at: 1, delete: 1, insert: [9, 8] }, { at: 0, delete: 0, insert: [0] }], length: 5 }), [0, 1, 9, 8, 3]);
  const long = Array.from({ length: 300000 }, (_, i) => i);
  assert.equal(applySplice([], { ops: [{ at: 0, delete: 0, insert: long }], length: long.length }).length, long.length);
  const list = { type: 'movieList', commands: [], fields: [{ name: 'movies', type: 'array', items: { type: 'string' }, writable: false }] };
  const { mirror, model } = opened(list, { movies: ['a'] });
  const done = mirror.didChange({ session: 1, revision: 1, changes: {}, splices: { movies: { ops: [{ at: 1, delete: 0, insert: ['b'] }], length: 2 } } });
  assert.deepEqual(done.splices, { movies: { ops: [{ at: 1, delete: 0, insert: ['b'] }], length: 2 } });
  assert.deepEqual(model.state.movies, ['a', 'b']);
  const wrong = mirror.didChange({ session: 1, revision: 2, changes: {}, splices: { movies: { ops: [{ at: 0, delete: 0, insert: ['z'] }], length: 9 } } });
  assert.equal(wrong.resync, true);
  assert.deepEqual(model.state.movies, ['a', 'b']);
  mirror.take(1, { revision: 2, state: { movies: ['z', 'a', 'b'] } });
  assert.deepEqual(model.state.movies, ['z', 'a', 'b']);
});

test('commands: running from the state member or an invoke in flight; outcomes kept', () => {
  const login = { type: 'login', commands: [{ name: 'login' }], fields: [] };
  const { model } = opened(login, { 'login.enabled': false, 'login.running': false });
  assert.equal(model.enabled('login'), false);
  model.beginInvoke(4, 'login');
  assert.equal(model.running('login'), true);
  assert.equal(model.endInvoke(4, { ok: true, value: 1 }), 'login');
  assert.equal(model.running('login'), false);
  assert.deepEqual(model.outcomes.login, { ok: true, value: 1 });
});

test('a recovery snapshot holds the writable fields, with unacknowledged edits over them', () => {
  const { model } = opened();
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
  const number = { type: 't', fields: [{ name: 'n', type: 'integer', writable: true }], commands: [] };
  const { mirror, model } = opened(number, { n: 1 }, { n: '1' });
  assert.equal(model.text('n'), '1');
  model.beginWrite(4, 'n', { text: ' 2 ' });
  assert.equal(model.text('n'), ' 2 ');
  model.endWrite(4, { result: { revision: 0 } });
  assert.equal(model.text('n'), ' 2 ');
  assert.deepEqual(model.snapshot().fields, {}, 'its value is the daemon\'s to read again');
  model.folded(Object.keys(mirror.didChange({ session: 1, revision: 1, changes: { n: 3 }, display: { n: '3' } }).changes));
  assert.equal(model.text('n'), '3');
  mirror.didChange({ session: 1, revision: 2, changes: { n: null }, display: {} });
  assert.equal(model.text('n'), '');
});

test("a list's struct members are labelled as the daemon labels fields (Exposure.swift's examples)", () => {
  const labels = ['firstName', 'placedOrderID', 'favoriteIDs', 'urlString', 'URLString', 'isDone', 'due']
    .map((name) => memberLabel({ name }));
  assert.deepEqual(labels, ['First name', 'Placed order ID', 'Favorite IDs', 'Url string', 'URL string', 'Is done', 'Due']);
  assert.equal(memberLabel({ name: 'isDone', label: 'Done' }), 'Done');
});
