// index.d.ts is written by hand: check it names exactly what index.js exports, and that the
// public members it declares on Client, Session, Connection and FrameDecoder exist (and back).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import * as bindery from '../index.js';
import { PACKAGE_DIR } from '../test-support/daemon.js';

const typings = readFileSync(path.join(PACKAGE_DIR, 'index.d.ts'), 'utf8');
const packageJson = JSON.parse(readFileSync(path.join(PACKAGE_DIR, 'package.json'), 'utf8'));

/** Names index.d.ts declares as values (classes, consts, functions), not types. */
function declaredValues() {
  return new Set([...typings.matchAll(/^export declare (?:class|const|function) (\w+)/gm)].map((match) => match[1]));
}

/** Member names declared in the body of `export declare class Name`. */
function declaredMembers(name) {
  const start = typings.indexOf(`export declare class ${name} `);
  assert.notEqual(start, -1, `no class ${name} in index.d.ts`);
  const open = typings.indexOf('{', start);
  let depth = 0;
  let end = open;
  for (; end < typings.length; end += 1) {
    if (typings[end] === '{') depth += 1;
    if (typings[end] === '}' && (depth -= 1) === 0) break;
  }
  const body = typings.slice(open + 1, end);
  const members = new Set();
  for (const line of body.split('\n')) {
    const match = /^ {2}(?:static |readonly |private )*(\w+)\s*[(<:?]/.exec(line);
    if (match && match[1] !== 'constructor' && match[1] !== 'on') members.add(match[1]);
  }
  return members;
}

/** Public members of a class at run time: prototype methods and getters, plus instance fields. */
function runtimeMembers(Class, instance) {
  const names = new Set(Object.getOwnPropertyNames(Class.prototype).filter((name) => name !== 'constructor'));
  for (const name of Object.keys(instance ?? {})) names.add(name);
  return new Set([...names].filter((name) => !name.startsWith('_')));
}

test('every export of index.js is declared in index.d.ts, and every declared value is exported', () => {
  const exported = new Set(Object.keys(bindery));
  const declared = declaredValues();
  assert.deepEqual([...exported].filter((name) => !declared.has(name)), [], 'exported but not typed');
  assert.deepEqual([...declared].filter((name) => !exported.has(name)), [], 'typed but not exported');
});

test('class members declared in index.d.ts exist at run time, and public ones are declared', async () => {
  const fake = await import('../test-support/fake-daemon.js');
  const peer = new fake.FakeDaemon();
  const client = new bindery.Client({ input: peer.toClient, output: peer.fromClient });
  const session = await peer.openThing(client);
  const decoder = new bindery.FrameDecoder();
  const checks = [
    ['Client', bindery.Client, client, ['spawn']],
    ['Session', bindery.Session, session, []],
    ['Connection', bindery.Connection, client.connection, []],
    ['FrameDecoder', bindery.FrameDecoder, decoder, []],
  ];
  for (const [name, Class, instance, statics] of checks) {
    const declared = declaredMembers(name);
    const runtime = runtimeMembers(Class, instance);
    for (const member of statics) runtime.add(member);
    // EventEmitter's own instance fields are not this package's API.
    for (const inherited of ['_events', '_eventsCount', '_maxListeners']) runtime.delete(inherited);
    assert.deepEqual([...declared].filter((member) => !runtime.has(member) && !(member in instance) && !(member in Class)), [],
      `${name}: declared in index.d.ts but missing at run time`);
    assert.deepEqual([...runtime].filter((member) => !declared.has(member)), [], `${name}: public but not declared`);
  }
});

test('ErrorCodes in index.d.ts match the exported values', () => {
  for (const [name, code] of Object.entries(bindery.ErrorCodes)) {
    assert.match(typings, new RegExp(`\\b${name}: ${code};`), name);
  }
});

test('package.json: ESM, exports and types point at real files, no dependencies, version in sync', () => {
  assert.equal(packageJson.name, 'bindery-client');
  assert.equal(packageJson.type, 'module');
  assert.equal(packageJson.types, './index.d.ts');
  assert.equal(packageJson.exports['.'].import, './index.js');
  assert.equal(packageJson.exports['.'].types, './index.d.ts');
  assert.equal(packageJson.engines.node, '>=20'); // the one Node version both READMEs name
  const major = Number(process.versions.node.split('.')[0]);
  assert.ok(major >= 20, `these tests run on Node ${process.versions.node}; the client needs Node 20 or later`);
  assert.equal(packageJson.dependencies, undefined);
  assert.equal(packageJson.devDependencies, undefined);
  assert.equal(bindery.VERSION, packageJson.version);
});
