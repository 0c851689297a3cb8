// List splices (protocol.md, "List splices"): the client asks for them, folds them into whole lists,
// and resynchronises when one does not fit. applySplice alone; a session fed by a scripted peer;
// the recorded transcripts replayed through the whole client; and seeded random sequences against
// the real daemon, with and without the capability, where after every step each session's `state`
// must equal a fresh `session/state`.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { Client } from '../index.js';
import { applySplice } from '../lib/mirror.js';
import { AddMovieSession, MovieListSession } from '../seeds.js';
import { GUARD_MS, TRANSCRIPTS_DIR, daemonPath, spawnClient } from '../test-support/daemon.js';
import { FakeDaemon } from '../test-support/fake-daemon.js';

const op = (at, remove, ...insert) => ({ at, delete: remove, insert });
const splice = (length, ...ops) => ({ ops, length });

// applySplice alone.

test('applySplice: append, insert, delete, replace, several ops in order', () => {
  const cases = [
    [[], splice(1, op(0, 0, 'a')), ['a']],
    [['a', 'b'], splice(3, op(2, 0, 'c')), ['a', 'b', 'c']],
    [['a', 'c'], splice(3, op(1, 0, 'b')), ['a', 'b', 'c']],
    [['a', 'b', 'c'], splice(2, op(1, 1)), ['a', 'c']],
    [['a', 'b', 'c'], splice(3, op(1, 1, 'B')), ['a', 'B', 'c']],
    [['a', 'b', 'c'], splice(0, op(0, 3)), []],
    [['a', 'b', 'c', 'd'], splice(4, op(0, 1), op(2, 1, 'x', 'y')), ['b', 'c', 'x', 'y']],
    [[{ id: 1 }], splice(2, op(1, 0, [1, 2])), [{ id: 1 }, [1, 2]]],
    [['a'], splice(1), ['a']],
  ];
  for (const [before, edit, after] of cases) {
    const kept = [...before];
    assert.deepEqual(applySplice(before, edit), after, JSON.stringify(edit));
    assert.deepEqual(before, kept, 'the old list is left as it was');
  }
  const long = Array.from({ length: 300000 }, (_, i) => i);
  assert.equal(applySplice(['x'], { ops: [{ at: 1, delete: 0, insert: long }], length: 300001 }).length, 300001,
    'a long insert does not overflow the stack');
});

test('applySplice refuses a splice that does not fit', () => {
  const cases = [
    [['a', 'b'], splice(2, op(2, 0, 'c'))],
    [['a', 'b'], splice(1, op(2, 1))],
    [['a', 'b'], splice(3, op(3, 0, 'c'))],
    [['a'], splice(1, op(-1, 0))],
    [['a'], splice(1, op(0.5, 0))],
    [['a'], { ops: [{ at: 0, delete: 0 }], length: 1 }],
    [['a'], { ops: 'x', length: 1 }],
    [['a'], { length: 1 }],
    [null, splice(0)],
    ['ab', splice(2)],
  ];
  for (const [before, edit] of cases) assert.equal(applySplice(before, edit), null, JSON.stringify([before, edit]));
});

// A session fed by a scripted peer.

const LIST_SCHEMA = {
  type: 'lists',
  fields: [
    { name: 'items', label: 'Items', type: 'array', items: { type: 'string', nullable: false }, nullable: true, writable: false },
    { name: 'tags', label: 'Tags', type: 'array', items: { type: 'string', nullable: false }, nullable: false, writable: true },
    { name: 'count', label: 'Count', type: 'integer', nullable: false, writable: false },
  ],
  commands: [],
};

async function openLists(state = { items: ['a', 'b'], tags: [], count: 2 }) {
  const fake = new FakeDaemon();
  const client = new Client({ input: fake.toClient, output: fake.fromClient });
  const lists = await fake.openThing(client, state, LIST_SCHEMA);
  const events = [];
  lists.on('change', (changes, info) => events.push({ changes, info }));
  return { fake, client, lists, events };
}

test('the client asks for splices by default, and not with splices: false', async () => {
  for (const [splices, expected] of [[undefined, { splices: true }], [false, undefined]]) {
    const fake = new FakeDaemon();
    const client = new Client({ input: fake.toClient, output: fake.fromClient, splices });
    const initializing = client.initialize();
    const request = await fake.next();
    assert.deepEqual(request.params.capabilities, expected);
    fake.respond(request, { protocolVersion: 1, serverInfo: { name: 'fake', version: '0' }, viewModels: [],
      ...(expected ? { capabilities: expected } : {}) });
    await initializing;
    assert.deepEqual(client.capabilities, expected ?? {});
  }
});

test('splices fold into whole values; change events carry both', async () => {
  const { fake, lists, events } = await openLists();
  const held = lists.state.items;
  fake.didChange(1, 1, { count: 3 }, 7, { items: splice(3, op(2, 0, 'c')) });
  await lists.waitUntil((state) => state.count === 3, { timeout: GUARD_MS });
  assert.deepEqual(lists.state, { items: ['a', 'b', 'c'], tags: [], count: 3 });
  assert.equal(lists.revision, 1);
  assert.deepEqual(held, ['a', 'b'], 'a list handed out earlier is not mutated');
  assert.deepEqual(events[0].changes, { count: 3, items: ['a', 'b', 'c'] });
  assert.deepEqual(events[0].info, { revision: 1, cause: 7, source: 'didChange', splices: { items: splice(3, op(2, 0, 'c')) } });
  fake.didChange(1, 2, { count: 1 }, undefined, { items: splice(1, op(0, 1), op(1, 1)) });
  fake.didChange(1, 3, { items: ['z'] });
  await lists.waitUntil((state) => state.items[0] === 'z', { timeout: GUARD_MS });
  assert.deepEqual(events.map((event) => event.changes.items), [['a', 'b', 'c'], ['b'], ['z']]);
  assert.deepEqual(events[2].info.splices, {}, 'sent whole: no splices');
});

test('a length mismatch resyncs and never folds into the wrong list', async () => {
  const { fake, lists, events } = await openLists({ items: ['a'], tags: [], count: 1 });
  fake.didChange(1, 1, { count: 2 }, undefined, { items: splice(3, op(1, 0, 'b')) }); // the daemon's had 2
  const resync = await fake.next();
  assert.equal(resync.method, 'session/state');
  assert.deepEqual(resync.params, { session: 1 });
  // protocol.md, "Client mirror": out of step, nothing of the message is folded; session/state brings it.
  assert.deepEqual(lists.state, { items: ['a'], tags: [], count: 1 }, 'nothing folded: the state waits');
  assert.deepEqual(events, []);
  fake.didChange(1, 2, {}, undefined, { items: splice(4, op(3, 0, 'd')) }); // older than the state coming
  fake.respond(resync, { revision: 2, state: { items: ['x', 'y', 'z', 'd'], tags: [], count: 2 } });
  await lists.waitUntil((state) => state.items.length === 4, { timeout: GUARD_MS });
  assert.equal(lists.revision, 2);
  assert.deepEqual(events.at(-1), {
    changes: { items: ['x', 'y', 'z', 'd'], count: 2 }, info: { revision: 2, cause: undefined, source: 'resync', splices: {} },
  });
  fake.didChange(1, 3, {}, undefined, { items: splice(5, op(4, 0, 'e')) }); // in step again
  await lists.waitUntil((state) => state.items.length === 5, { timeout: GUARD_MS });
  assert.deepEqual(lists.state.items, ['x', 'y', 'z', 'd', 'e']);
});

test('a splice of a member that is not a list, or not observed, resyncs', async () => {
  const { fake, lists, events } = await openLists({ items: null, tags: [], count: 0 });
  fake.didChange(1, 1, {}, undefined, { items: splice(1, op(0, 0, 'a')), ghost: splice(0) });
  assert.equal((await fake.next()).method, 'session/state');
  assert.equal(lists.state.items, null);
  assert.deepEqual(events, [], 'nothing fitted: no empty change event');
});

test('a splice of the field this client just wrote applies to the written value', async () => {
  // No echo: the daemon counts the written list as sent, so a model that stores something else
  // (here: sorted) sends the difference from the written list, before the write's response.
  const { fake, lists } = await openLists();
  const setting = lists.set('tags', ['c', 'b']);
  const request = await fake.next();
  assert.deepEqual(request.params, { session: 1, field: 'tags', value: ['c', 'b'] });
  fake.didChange(1, 1, {}, request.id, { tags: splice(2, op(0, 2, 'b', 'c')) });
  fake.respond(request, { revision: 1 });
  assert.equal(await setting, 1);
  assert.deepEqual(lists.state.tags, ['b', 'c'], 'the stored value, not the written one');
});

// The recorded transcripts, replayed through the whole client over a scripted peer: the client
// sends the same requests (ids included) and its state matches every session/state answered.

function transcript(name) {
  const lines = readFileSync(path.join(TRANSCRIPTS_DIR, name), 'utf8').split('\n').filter((line) => line.trim());
  return lines.map((line) => JSON.parse(line));
}

/**
 * A peer that answers each request with what the transcript recorded after it. `open` initializes
 * first when a transcript does not: that request is answered with splices.jsonl's initialize
 * result, and the ids after it (responses, causes) are shifted by one.
 */
function transcriptPeer(lines) {
  const fake = new FakeDaemon();
  const exchanges = [];
  for (const line of lines) {
    if (line.in) exchanges.push({ sent: line.in, outs: [] });
    else if (line.out) exchanges.at(-1).outs.push(line.out);
  }
  const initialized = transcript('splices.jsonl').find((line) => line.out?.id === 1).out.result;
  const serve = async () => {
    let shift = 0;
    for (const { sent, outs } of exchanges) {
      let request = await fake.next();
      if (request.method === 'initialize' && sent.method !== 'initialize') {
        fake.respond(request, { ...initialized, capabilities: undefined });
        shift += 1;
        request = await fake.next();
      }
      assert.deepEqual([request.id, request.method], [sent.id + shift, sent.method]);
      if (sent.method !== 'initialize') assert.deepEqual(request.params, sent.params, 'the client sends what the transcript did');
      for (const out of outs) {
        const moved = { ...out };
        if (Number.isInteger(out.id)) moved.id = out.id + shift;
        if (Number.isInteger(out.params?.cause)) moved.params = { ...out.params, cause: out.params.cause + shift };
        fake.send(moved);
      }
    }
  };
  return { fake, exchanges, served: serve() };
}

async function replayThroughClient(name, options = {}) {
  const { fake, exchanges, served } = transcriptPeer(transcript(name));
  const client = new Client({ input: fake.toClient, output: fake.fromClient, timeout: GUARD_MS, ...options });
  const spliced = [];
  for (const { sent, outs } of exchanges) {
    const params = sent.params ?? {};
    const session = client.sessions.get(params.session);
    try {
      if (sent.method === 'initialize') await client.initialize();
      else if (sent.method === 'session/open') {
        const { type, ...rest } = params;
        const opened = await client.open(type, rest);
        opened.on('change', (changes, info) => { if (Object.keys(info.splices).length > 0) spliced.push({ changes, info }); });
      } else if (sent.method === 'setField' && session) await session.set(params.field, params.value);
      else if (sent.method === 'invoke' && session) await session.invoke(params.command, params.args);
      else if (sent.method === 'session/undo' && session) await session.undo();
      else if (sent.method === 'session/redo' && session) await session.redo();
      else if (sent.method === 'session/snapshot' && session) await session.snapshot();
      else {
        const result = await client.request(sent.method, sent.params);
        if (sent.method === 'session/state') assert.deepEqual([session.revision, session.state], [result.revision, result.state]);
      }
    } catch (error) {
      const recorded = outs.find((out) => out.id === sent.id)?.error;
      if (recorded?.code !== error?.code) throw error; // only an error the transcript records
    }
  }
  await served;
  await new Promise(setImmediate);
  assert.deepEqual(fake.received, [], 'no resync: the client never fell out of step');
  return { client, spliced };
}

test('splices.jsonl replays through the client', async () => {
  const { client, spliced } = await replayThroughClient('splices.jsonl');
  assert.deepEqual(client.capabilities, { splices: true });
  assert.equal(spliced.length, 4);
  for (const { changes, info } of spliced) assert.equal(changes.movies.length, info.splices.movies.length);
});

test('capabilities.jsonl replays through the client', async () => {
  const { client } = await replayThroughClient('capabilities.jsonl', { splices: false });
  assert.deepEqual(client.capabilities, {});
});

for (const name of ['movies.jsonl', 'undo.jsonl', 'undo-commands.jsonl', 'snapshot.jsonl']) {
  test(`${name} replays through the client`, async () => {
    const { client } = await replayThroughClient(name);
    if (name === 'undo.jsonl') { // what no echo, undo and redo leave: fields and the output agree
      const { state } = client.sessions.get(1);
      assert.equal(state.name, 'Ada');
      assert.equal(state.companyName, 'Mills');
      assert.ok(state.prettyString.startsWith('Name: Ada\nCompany: Mills\n'));
    }
  });
}

// Seeded random sequences against the real daemon: state equals session/state after every step.

const TITLES = ['Alien', 'Brazil', 'Heat', 'Jaws', 'Ran', 'Up', 'Zelig'];
const RATINGS = ['notSeen', 'terrible', 'poor', 'decent', 'good', 'excellent'];
const OBSERVE = [undefined, ['movies'], ['isPresentingAddMovie', 'movies']];

/** mulberry32: a small seeded generator, the same sequence on every run. */
function random(seed) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  next.pick = (items) => items[Math.floor(next() * items.length)];
  return next;
}

/** Folds every change event of a list: proof that listeners see whole new values. */
function shadow(session) {
  const seen = { movies: session.state.movies, splices: 0, resyncs: 0 };
  session.on('change', (changes, info) => {
    if (info.source === 'resync') seen.resyncs += 1;
    for (const [name, edit] of Object.entries(info.splices)) {
      const before = name === 'movies' ? seen.movies : undefined;
      assert.deepEqual(applySplice(before, edit), changes[name], 'the splice makes the whole value');
      seen.splices += 1;
    }
    if (changes.movies) seen.movies = changes.movies;
  });
  return seen;
}

async function save(adder, rng) {
  await adder.set('title', rng.pick(TITLES));
  await adder.set('rating', rng.pick(RATINGS));
  await adder.invoke('save');
}

async function randomSequence(client, seed, steps = 60) {
  const rng = random(seed);
  const adders = [await client.open('addMovie'), await client.open('addMovie'), await client.open('addMovie')];
  const lists = [await client.open('movieList'), await client.open('movieList', { observe: ['movies'] })];
  const shadows = new Map(lists.map((list) => [list, shadow(list)]));
  for (let step = 0; step < steps; step += 1) {
    const roll = rng();
    if (roll < 0.5) {
      await save(rng.pick(adders), rng);
    } else if (roll < 0.6) {
      const late = await client.open('movieList', { observe: rng.pick(OBSERVE) });
      lists.push(late);
      shadows.set(late, shadow(late));
    } else if (roll < 0.67 && lists.length > 1) {
      await lists.splice(Math.floor(rng() * lists.length), 1)[0].close();
    } else if (roll < 0.75) {
      await rng.pick(lists).set('isPresentingAddMovie', rng() < 0.5);
    } else if (roll < 0.82) {
      await rng.pick(lists).observe(rng.pick(OBSERVE) ?? ['movies', 'isPresentingAddMovie']);
    } else if (roll < 0.88) {
      adders.push(await client.open('addMovie'));
      if (adders.length > 4) await adders.shift().close();
    } else { // saves from every form at once: pipelined, fanned out to every list
      await Promise.all(adders.map((adder) => save(adder, random(Math.floor(rng() * 1e9)))));
    }
    for (const session of [...lists, ...adders]) {
      const fresh = await client.request('session/state', { session: session.id });
      assert.deepEqual(session.state, fresh.state, `step ${step}, session ${session.id}: state differs from session/state`);
      assert.equal(session.revision, fresh.revision, `step ${step}, session ${session.id}: revision`);
      if (shadows.has(session)) {
        assert.deepEqual(shadows.get(session).movies, fresh.state.movies, `step ${step}, session ${session.id}: events do not add up`);
      }
    }
  }
  const seen = [...shadows.values()];
  return { spliced: seen.reduce((sum, each) => sum + each.splices, 0), resyncs: seen.reduce((sum, each) => sum + each.resyncs, 0) };
}

for (const splices of [true, false]) {
  for (const seed of [1, 2, 3, 4, 5]) {
    test(`random saves keep state equal to session/state (${splices ? 'splices' : 'whole lists'}, seed ${seed})`, async (t) => {
      const client = await spawnClient(t, { deterministic: true, seed, splices });
      assert.deepEqual(client.capabilities, splices ? { splices: true } : {});
      const { spliced, resyncs } = await randomSequence(client, seed);
      if (splices) assert.ok(spliced > 10, `the daemon sent splices and the client folded them (${spliced})`);
      else assert.equal(spliced, 0);
      assert.equal(resyncs, 0, 'every splice fitted: no resync was needed');
    });
  }
}

test('typed sessions see whole lists', async (t) => {
  const client = await spawnClient(t, { deterministic: true });
  const movies = await MovieListSession.open(client);
  const seen = [];
  movies.onChange((changes, info) => seen.push([changes.movies.map((movie) => movie.fullTitle), Object.keys(info.splices)]));
  const add = await AddMovieSession.open(client);
  for (const title of ['Alien', 'Brazil', 'Heat']) {
    await add.setTitle(title);
    await add.save();
  }
  assert.deepEqual(seen, [[['Alien'], []], [['Alien', 'Brazil'], ['movies']], [['Alien', 'Brazil', 'Heat'], ['movies']]]);
});

test('spawn({ splices: false }) gets whole lists', async () => {
  const client = await Client.spawn({ daemon: daemonPath(), deterministic: true, splices: false, timeout: GUARD_MS });
  try {
    assert.deepEqual(client.capabilities, {});
  } finally {
    await client.close();
  }
});
