// Native values (lib/values.js): every kind of value protocol.md's "Value types" lists, encoded from
// and decoded to Date, Uint8Array, Set and strings; alone, then through the real appd
// (Examples/AppViewModels): every valueCatalogue member round-tripped (native in, the same native
// out), a to-do row toggled by passing the row shown, the order's decimal totals exact, a union
// with a payload, a set of ids and a dictionary of errors.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { decodeValue, encodeValue, InvalidParamsError, WrongValueTypeError } from 'bindery-client';
import { spawnAppd } from '../test-support/daemon.js';

const DATE = { type: 'string', format: 'date-time', nullable: false };
const DECIMAL = { type: 'string', format: 'decimal', nullable: false };
const BYTES = { type: 'string', format: 'byte', nullable: false };
const member = (name, type, optional = false) => ({ ...type, name, optional });

test('the forms alone: dates, bytes, sets, maps, bigints', () => {
  assert.equal(encodeValue(new Date(Date.UTC(2025, 10, 25, 10, 0, 0, 250))), '2025-11-25T10:00:00.250Z');
  assert.deepEqual(decodeValue('2026-01-01T09:30:00+01:00', DATE), new Date('2026-01-01T08:30:00.000Z'));
  assert.throws(() => encodeValue(new Date('nope')), InvalidParamsError);
  assert.throws(() => decodeValue('2026-01-01T09:30:00', DATE), /not an ISO 8601 date-time/);
  assert.equal(encodeValue(new Uint8Array([0, 1, 2, 250])), 'AAEC+g==');
  assert.equal(encodeValue(Buffer.from('hi')), 'aGk=');
  assert.equal(encodeValue(new Uint8Array([0, 1, 2, 250]).buffer), 'AAEC+g==');
  assert.deepEqual(decodeValue('AAEC+g==', BYTES), new Uint8Array([0, 1, 2, 250]));
  assert.throws(() => decodeValue('*', BYTES), /not base64/);
  assert.deepEqual(encodeValue(new Set(['b', 'a', 'c'])), ['a', 'b', 'c']);
  assert.deepEqual(encodeValue(new Map([[1, []], [2, ['x']]])), { 1: [], 2: ['x'] });
  assert.equal(encodeValue(10n ** 30n, DECIMAL), `1${'0'.repeat(30)}`); // exact where a Decimal goes
  assert.equal(encodeValue(7n), 7);
  assert.throws(() => encodeValue(2n ** 60n), InvalidParamsError);
  assert.throws(() => encodeValue(new (class Thing {})()), /cannot send a Thing/);
  assert.equal(decodeValue('0.3', DECIMAL), '0.3'); // decimals stay exact strings
  const unique = { type: 'array', items: { type: 'integer' }, uniqueItems: true, format: 'index-set' };
  assert.deepEqual(decodeValue([1, 2, 5], unique), new Set([1, 2, 5]));
});

test('the forms alone: types followed through arrays, objects, dictionaries and unions', () => {
  const line = { type: 'object', typeName: 'Line', members: [member('price', DECIMAL), member('due', DATE, true)] };
  const lines = { type: 'array', items: line };
  const wire = [{ price: '0.1', due: '2026-01-01T00:00:00.000Z' }, { price: '2' }];
  const native = decodeValue(wire, lines);
  assert.deepEqual(native, [{ price: '0.1', due: new Date('2026-01-01T00:00:00Z') }, { price: '2' }]);
  assert.deepEqual(encodeValue(native, lines), wire);
  assert.deepEqual(encodeValue([{ price: 2n, due: undefined }], lines), [{ price: '2' }]);
  const byDay = { type: 'dictionary', values: { type: 'array', items: DATE } };
  assert.deepEqual(decodeValue({ x: ['2026-01-01T00:00:00.000Z'] }, byDay), { x: [new Date('2026-01-01T00:00:00Z')] });
  const load = { type: 'union', typeName: 'Load', cases: [
    { name: 'idle', members: [] }, { name: 'paid', members: [member('_0', BYTES), member('at', DATE)] }] };
  const paid = decodeValue({ case: 'paid', _0: 'aGk=', at: '2026-01-01T00:00:00.000Z' }, load);
  assert.deepEqual(paid, { case: 'paid', _0: new Uint8Array([104, 105]), at: new Date('2026-01-01T00:00:00Z') });
  assert.deepEqual(encodeValue(paid, load), { case: 'paid', _0: 'aGk=', at: '2026-01-01T00:00:00.000Z' });
  const plain = { type: 'array', items: { type: 'object', typeName: 'T', members: [member('a', { type: 'string' })] } };
  const value = [{ a: 'x' }];
  assert.equal(decodeValue(value, plain), value, 'nothing to convert: the very value, not a copy');
});

/** A new value for every writable valueCatalogue member, as a script writes it. */
const CATALOGUE = {
  date: new Date('2026-01-01T09:30:00.125Z'),
  id: '12345678-1234-5678-1234-567812345678',
  link: 'https://example.org/x?y=z',
  price: '12345678901234567890.123456789',
  bytes: new Uint8Array([0, 255, 104, 105]),
  selection: new Set([3, 7, 9]),
  tags: new Set(['x', 'y', 'z']),
  scores: { q: 10, r: -1 },
  priority: 'high',
  shape: { case: 'rectangle', _0: 2.5, _1: 3 },
  address: { street: '1 Main St', city: 'Springfield' }, // not Decodable: only a value it holds
  labels: new Set([{ name: 'home', colour: 'green' }, { name: 'work', colour: 'blue' }]),
  context: { 3: ['a', 'b'] },
};

test('every valueCatalogue member reads as its native value', async (t) => {
  const client = await spawnAppd(t);
  const catalogue = await client.open('valueCatalogue');
  assert.equal(catalogue.state.date, '2025-11-25T10:00:00.250Z', 'state: the JSON as received');
  assert.deepEqual(catalogue.values(), {
    date: new Date('2025-11-25T10:00:00.250Z'),
    id: '0f8fad5b-d9cb-469f-a165-70867728950e',
    link: 'https://example.com/a?b=c',
    price: '0.3',
    bytes: new Uint8Array([0, 1, 2, 250]),
    selection: new Set([1, 2, 5]),
    tags: new Set(['a', 'b']),
    scores: { a: 1, b: 2 },
    priority: 'normal',
    shape: { case: 'circle', radius: 1.5 },
    address: { street: '1 Main St', city: 'Springfield' },
    labels: new Set([{ name: 'home', colour: 'green' }]),
    context: { 1: [], 2: ['x'] },
    bigCount: 9000000000,
    ratio: 0.5,
    window: { lowerBound: 1, upperBound: 1000000 },
    timeout: 1.5,
    lastError: 'Something went wrong',
    pair: { width: 3, height: 4 },
    'reset.enabled': true,
    'reset.running': false,
  });
  assert.equal(catalogue.values(), catalogue.values(), 'converted once per state');
});

test('every valueCatalogue member round-trips: native in, the same native out', async (t) => {
  const client = await spawnAppd(t);
  const catalogue = await client.open('valueCatalogue');
  const changes = catalogue.changes();
  for (const [name, value] of Object.entries(CATALOGUE)) {
    await catalogue.set(name, value);
    assert.deepEqual(catalogue.value(name), value, name); // what the client stored (no echo)...
  }
  await catalogue.refresh();
  for (const [name, value] of Object.entries(CATALOGUE)) {
    assert.deepEqual(catalogue.value(name), value, name); // ...is what the daemon holds
  }
  await catalogue.set('date', new Date('2026-01-01T18:30:00.125+09:00')); // the same instant
  assert.equal((await catalogue.refresh()).date, '2026-01-01T09:30:00.125Z');
  await catalogue.set('selection', [1, 1, 2]); // an array is fine too; duplicates merge
  assert.deepEqual((await catalogue.refresh()).selection, [1, 2]);
  await catalogue.set('scores', new Map([['m', 1]]));
  assert.deepEqual(catalogue.value('scores'), { m: 1 });
  await assert.rejects(catalogue.set('address', { street: '2 Side St', city: 'Shelbyville' }),
    (error) => error instanceof WrongValueTypeError && /Address is not Decodable/.test(error.message));
  await catalogue.invoke('reset');
  assert.equal(catalogue.value('price'), '0');
  let last;
  for await (const change of changes) {
    last = catalogue.values(change);
    if ('shape' in change) break;
  }
  assert.deepEqual(last, { price: '0', shape: { case: 'point' } });
});

test('a todo row is toggled by passing the row shown', async (t) => {
  const client = await spawnAppd(t);
  const todo = await client.open('todoList');
  await todo.set('newTitle', 'Buy milk');
  await todo.set('newDue', new Date('2026-01-01T09:30:00+01:00'));
  assert.deepEqual(todo.value('newDue'), new Date('2026-01-01T08:30:00Z'));
  await todo.invoke('add');
  await todo.set('newTitle', 'Post letter');
  await todo.invoke('add');
  const [milk, letter] = todo.value('items');
  assert.deepEqual(milk.due, new Date('2026-01-01T08:30:00Z'));
  assert.equal(typeof milk.id, 'string');
  assert.ok(!('due' in letter), 'an optional member without a value is left out');
  await todo.invoke('toggle', milk); // the native row, encoded back as it was shown
  assert.deepEqual(todo.value('items').map((row) => row.isDone), [true, false]);
  await todo.invoke('toggle', todo.state.items[1]); // the JSON row works the same
  assert.equal(todo.value('remainingCount'), 0);
  await todo.invoke('toggle', { ...milk, title: 'Buy oat milk' }); // changed since: matched by its id
  assert.deepEqual(todo.value('items').map((row) => row.isDone), [false, true]);
  await assert.rejects(todo.invoke('delete', { ...milk, id: '00000000-0000-0000-0000-000000000000' }),
    (error) => error instanceof InvalidParamsError && /TodoItem/.test(error.message));
  await todo.invoke('delete', letter);
  assert.deepEqual(todo.value('items').map((row) => row.title), ['Buy milk']);
});

test('order totals are exact decimal strings', async (t) => {
  const client = await spawnAppd(t);
  const order = await client.open('order');
  const [, cup, pot] = order.value('catalog');
  await order.invoke('add', cup);
  await order.invoke('add', pot);
  assert.equal(order.value('total'), '0.3'); // 0.1 + 0.2, not 0.30000000000000004
  await order.invoke('add', cup);
  await order.set('couponCode', 'SAVE10');
  assert.deepEqual([order.value('subtotal'), order.value('discount'), order.value('total')], ['0.4', '0.04', '0.36']);
  await order.invoke('remove', order.value('lines')[0]);
  assert.equal(order.value('total'), '0.18');
  await order.invoke('placeOrder');
  assert.match(order.value('placedOrderID'), /^[0-9a-f-]{36}$/);
});

test('a union with a payload, a set of ids, a dictionary, a date output', async (t) => {
  const live = await spawnAppd(t, { deterministic: false }); // the search's debounce and fake service: the real clock
  const search = await live.open('search');
  await search.set('query', 'the');
  await search.waitUntil((state) => state.state.case === 'loaded', { timeout: 10000 });
  assert.deepEqual(search.value('state'), { case: 'loaded', _0: [{ id: 3, title: 'The Third Man', year: 1949 }] });
  const client = await spawnAppd(t);
  const favorites = await client.open('favorites');
  await favorites.set('favoriteIDs', new Set([3, 1]));
  assert.deepEqual(favorites.state.favoriteIDs, [1, 3]);
  assert.deepEqual(favorites.value('favoriteIDs'), new Set([1, 3]));
  await favorites.invoke('toggleFavorite', favorites.value('shown')[0]);
  assert.deepEqual(favorites.value('favoriteIDs'), new Set([3]));
  await favorites.set('favoriteIDs', new Set());
  await favorites.invoke('validate');
  assert.deepEqual(favorites.value('errors'), { favoriteIDs: 'Pick at least one favourite' });
  const settings = await client.open('settings');
  assert.deepEqual(settings.value('reminderTime'), new Date('2026-01-01T08:00:00Z'));
  assert.equal(settings.value('lastSaved'), null);
  await settings.invoke('save');
  assert.ok(settings.value('lastSaved') instanceof Date);
});
