// Typed sessions generated for appd's view models (Examples/AppViewModels) by
// clients/codegen/bindery-codegen from the real appd, driven against it: native values (Date,
// Uint8Array, Set) in `state`, change sets, `changes()` and `waitUntil`; setters taking them; a to-do
// row toggled by passing the typed row; exact decimal totals. (test/typecheck.test.js checks the
// same generated typings with tsc.)
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { appdPath, PACKAGE_DIR, REPO_ROOT, spawnAppd } from '../test-support/daemon.js';

const run = promisify(execFile);
let appd; // the generated module

before(async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'bindery-appd-js-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(path.join(dir, 'package.json'), '{ "type": "module" }\n');
  await run('python3', [path.join(REPO_ROOT, 'clients', 'codegen', 'bindery-codegen'), '--daemon', appdPath(),
    '--node', path.join(dir, 'appd-types.js'), '--node-import', path.join(PACKAGE_DIR, 'index.js')]);
  appd = await import(pathToFileURL(path.join(dir, 'appd-types.js')).href);
});

test('valueCatalogue through its typed class: native values in and out', async (t) => {
  const client = await spawnAppd(t);
  const catalogue = await appd.ValueCatalogueSession.open(client);
  assert.deepEqual(catalogue.state.date, new Date('2025-11-25T10:00:00.250Z'));
  assert.deepEqual(catalogue.state.bytes, new Uint8Array([0, 1, 2, 250]));
  assert.deepEqual(catalogue.state.selection, new Set([1, 2, 5]));
  assert.equal(catalogue.state.price, '0.3');
  assert.equal(catalogue.session.state.date, '2025-11-25T10:00:00.250Z', 'the plain session keeps the JSON');
  const seen = [];
  catalogue.onChange((changes) => seen.push(changes));
  const stream = catalogue.changes();
  await catalogue.setDate(new Date('2026-01-01T09:30:00.125Z'));
  await catalogue.setBytes(new Uint8Array([7]));
  await catalogue.setTags(new Set(['z', 'y']));
  await catalogue.setShape({ case: 'rectangle', _0: 2, _1: 3 });
  assert.deepEqual(catalogue.state.date, new Date('2026-01-01T09:30:00.125Z'));
  assert.deepEqual(catalogue.state.tags, new Set(['y', 'z']));
  assert.deepEqual((await catalogue.refresh()).bytes, new Uint8Array([7]));
  await catalogue.reset();
  assert.deepEqual(seen, [{ price: '0', shape: { case: 'point' } }]);
  assert.deepEqual((await stream.next()).value, { price: '0', shape: { case: 'point' } });
  const state = await catalogue.waitUntil((s) => s.date instanceof Date && s.shape.case === 'point');
  assert.deepEqual(state.labels, new Set([{ name: 'home', colour: 'green' }]));
});

test('todoList and order through their typed classes: rows passed back, exact totals', async (t) => {
  const client = await spawnAppd(t);
  const todo = await appd.TodoListSession.open(client);
  await todo.setNewTitle('Buy milk');
  await todo.setNewDue(new Date('2026-01-01T09:30:00Z'));
  await todo.add();
  const [row] = todo.state.items;
  assert.deepEqual(row.due, new Date('2026-01-01T09:30:00Z'));
  await todo.toggle(row);
  assert.equal(todo.state.items[0].isDone, true);
  assert.equal(todo.state.remainingCount, 0);

  const order = await appd.OrderSession.open(client);
  assert.equal(order.state, order.session.state, 'a type without native values: the session\'s own state');
  await order.add(order.state.catalog[1]);
  await order.add(order.state.catalog[2]);
  assert.equal(order.state.total, '0.3');
  await order.remove(order.state.lines[0]);
  assert.equal(order.state.total, '0.2');
});

test('tabbedApp through its typed classes: a typed session per child, rows in order, the detail', async (t) => {
  const client = await spawnAppd(t);
  const app = await appd.TabbedAppSession.open(client);
  const counters = app.countersTab();
  assert.ok(counters instanceof appd.CountersTabViewModelSession);
  assert.equal(counters.session, app.session.child('countersTab'));
  for (let i = 0; i < 3; i++) await counters.add();
  const rows = counters.rows();
  assert.ok(rows.every((row) => row instanceof appd.CounterRowViewModelSession));
  await rows[1].increment();
  await counters.moveToTop(2);
  await counters.remove(1);
  assert.deepEqual(counters.rows().map((row) => [row.state.id, row.state.count]), [[2, 1], [3, 0]]);
  assert.ok(rows[0].session.detached);
  assert.equal(app.detail(), null);
  await app.showDetail(2);
  assert.equal(app.detail().state.summary, 'Counter 2: 1');
  await app.hideDetail();
  assert.equal(app.detail(), null);
  await app.clockTab().start();
  assert.equal(app.clockTab().state.isRunning, true);
});
