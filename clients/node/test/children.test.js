// Child view models (protocol.md, "Child view models") against the real appd's `tabbedApp`: each
// child (a tab, a counter row, the detail) is a Session of its own, made from the `children` of a
// message, kept current by its own didChanges, reachable from its parent (`child`, `rows`,
// `children`), and detached when the parent no longer shows it; a resync rebuilds the tree.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { InvalidParamsError, Session, SessionClosedError, UnknownSessionError } from 'bindery-client';
import { spawnAppd } from '../test-support/daemon.js';

/** [id, count] of each row, in the order the rows are shown. */
const counts = (counters) => counters.rows('rows').map((row) => [row.state.id, row.state.count]);

test('tabs, rows in their order, and a detached row refuses', async (t) => {
  const client = await spawnAppd(t);
  const app = await client.open('tabbedApp');
  const counters = app.child('countersTab');
  assert.ok(counters instanceof Session);
  assert.equal(counters.type, 'CountersTabViewModel');
  assert.equal(counters.parent, app);
  assert.equal(app.parent, null);
  assert.equal(app.child('countersTab'), counters); // the same object every time
  assert.deepEqual(app.children().map((c) => c.type), ['ClockTabViewModel', 'ProfileTabViewModel', 'CountersTabViewModel']);
  assert.equal(app.child('detail'), null);
  assert.deepEqual(app.children('detail'), []);
  assert.deepEqual(counters.commands, ['add', 'remove', 'moveToTop']);

  const orders = [];
  counters.on('change', (changes) => {
    if ('rows' in changes) orders.push(counters.rows('rows').map((row) => row.id)); // children exist already
  });
  for (let i = 0; i < 3; i++) await counters.invoke('add');
  const [first, second, third] = counters.rows('rows');
  assert.deepEqual(counts(counters), [[1, 0], [2, 0], [3, 0]]);
  assert.equal(first.parent, counters);

  await second.invoke('increment'); // the row's own didChange; the tab's total follows
  assert.equal(second.state.count, 1);
  assert.equal(second.revision, 1);
  assert.equal(counters.state.total, 1);
  await second.set('title', 'Cups');
  assert.equal(second.state.summary, 'Cups: 1');
  assert.equal((await second.undo()).canRedo, true);
  assert.equal(second.state.title, 'Counter 2');

  await counters.invoke('moveToTop', 2);
  assert.deepEqual(counters.rows('rows'), [second, first, third]); // each row keeps its session
  await counters.invoke('remove', 1);
  assert.deepEqual(counts(counters), [[2, 1], [3, 0]]);
  assert.equal(counters.state.total, 1);
  assert.ok(first.detached && first.closed && !second.detached);
  await assert.rejects(first.invoke('increment'), (error) => error instanceof SessionClosedError
    && error.message === `session ${first.id} (CounterRowViewModel) is detached: its parent, session ${counters.id}, no longer shows it`);
  assert.equal(client.sessions.has(first.id), false);
  assert.deepEqual(orders.at(-2), [second.id, first.id, third.id]);
  assert.deepEqual(orders.at(-1), [second.id, third.id]);

  assert.throws(() => counters.child('rows'), /holds rows of child view models: use rows\("rows"\)/);
  assert.throws(() => app.rows('countersTab'), /holds one child view model, not rows/);
  assert.throws(() => counters.rows('total'), /"total" of CountersTabViewModel is not a child view model/);
  await assert.rejects(counters.close(), InvalidParamsError); // a child closes with its parent
});

test('the detail comes and goes; the daemon refuses a detached session; closing the parent closes all', async (t) => {
  const client = await spawnAppd(t);
  const app = await client.open('tabbedApp');
  const counters = app.child('countersTab');
  await counters.invoke('add');
  const [row] = counters.rows('rows');
  await app.invoke('showDetail', 1);
  const detail = app.child('detail');
  assert.ok(detail && detail !== row); // a session per member that shows the object
  await detail.invoke('increment');
  assert.equal(detail.state.count, 1);
  await row.waitUntil((state) => state.count === 1, { timeout: 5000 }); // the same object, told too
  const ended = detail.changes();
  await app.invoke('hideDetail');
  assert.equal(app.child('detail'), null);
  assert.ok(detail.detached && !row.detached);
  assert.deepEqual((await ended.next()).done, true); // its change stream ends
  await assert.rejects(client.request('invoke', { session: detail.id, command: 'increment' }),
    (error) => error instanceof UnknownSessionError && error.code === -32011 && !error.local);
  await app.close();
  assert.ok(counters.closed && row.closed);
  assert.equal(client.sessions.size, 0);
});

test('a resync after a lost didChange, and refresh(), rebuild the children', async (t) => {
  const client = await spawnAppd(t);
  const app = await client.open('tabbedApp');
  const counters = app.child('countersTab');
  await counters.invoke('add');
  const [kept] = counters.rows('rows');
  // Lose the didChange that shows the next row: the one after it has a gap, and the client resyncs.
  const emit = client.connection.emit;
  let dropped = 0;
  client.connection.emit = function (event, method, params, ...rest) {
    if (event === 'notification' && method === 'didChange' && params?.children && dropped++ === 0) return true;
    return emit.call(this, event, method, params, ...rest);
  };
  await counters.invoke('add');
  client.connection.emit = emit;
  assert.equal(dropped, 1);
  assert.equal(counters.state.rows.length, 1);
  await counters.invoke('remove', 1); // revision 3 after 1: a gap
  await counters.waitUntil((state) => state.rows.length === 1 && state.rows[0].session === kept.id + 1, { timeout: 5000 });
  const [added] = counters.rows('rows');
  assert.equal(added.state.id, 2);
  assert.equal(added.parent, counters);
  assert.ok(kept.detached);

  await added.invoke('increment');
  await app.refresh(); // every child re-read with the root
  assert.equal(app.child('countersTab'), counters);
  assert.deepEqual(counts(counters), [[2, 1]]);
});
