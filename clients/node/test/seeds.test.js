// The package, element and movie seeds.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { OpenFailedError, ReadOnlyFieldError, WrongValueTypeError } from '../index.js';
import { spawnClient } from '../test-support/daemon.js';

test('package: a sync command with seeded randomness; arrays of objects', async (t) => {
  const client = await spawnClient(t, { seed: 1 });
  const pkg = await client.open('package');
  assert.equal(pkg.state.recipientFirstName, 'Ada');
  assert.deepEqual(pkg.state.contents, []);
  await pkg.set('recipientFirstName', 'Grace');
  await pkg.set('recipientLastName', 'Hopper');
  await pkg.set('street', '37 Christie St');
  assert.equal(await pkg.invoke('addRandomItem'), null);
  assert.deepEqual(pkg.state.contents, [{ title: 'Light bulb', weight: 257 }]);
  await pkg.invoke('addRandomItem');
  assert.deepEqual(pkg.state.contents, [{ title: 'Light bulb', weight: 257 }, { title: 'Light bulb', weight: 275 }]);
  assert.equal(pkg.state.summary,
    'Recipient: Grace Hopper\nPostal address: 37 Christie St\nLondon SW1Y 4JH\nUnited Kingdom\nContents: Light bulb 257, Light bulb 275');
  assert.equal(pkg.state['addRandomItem.enabled'], true);
  await assert.rejects(pkg.set('summary', 'x'), ReadOnlyFieldError);
  await assert.rejects(pkg.set('street', 37), WrongValueTypeError);
  const shown = pkg.state;
  assert.deepEqual(await pkg.refresh(), shown);
});

test('element: open args, case-insensitive symbols, an unknown symbol', async (t) => {
  const client = await spawnClient(t);
  const hydrogen = await client.open('element', { args: { symbol: 'H' } });
  assert.deepEqual(hydrogen.state, {
    name: 'Hydrogen', symbol: 'H', atomicNumber: 1, atomicWeight: 1.008,
    numberDescription: 'Number: 1', weightDescription: 'Weight: 1.008',
  });
  assert.deepEqual(hydrogen.fields, [], 'every element member is read-only');
  const calcium = await client.open('element', { args: { symbol: 'ca' } });
  assert.equal(calcium.state.name, 'Calcium');

  const error = await client.open('element', { args: { symbol: 'Xx' } }).catch((caught) => caught);
  assert.ok(error instanceof OpenFailedError);
  assert.equal(error.code, -32018);
  assert.equal(error.data.symbol, 'Xx');
  assert.ok(error.data.known.includes('Ne'));
  await assert.rejects(client.open('element'), (error) => error.name === 'OpenFailedError'
    && error.message.includes('args.symbol is missing') && error.data.known.includes('He'));
  await assert.rejects(hydrogen.set('name', 'Deuterium'), ReadOnlyFieldError);
});

test('movies: saving in addMovie fans out to two movie lists before save resolves', async (t) => {
  const client = await spawnClient(t, { deterministic: true });
  const list = await client.open('movieList');
  const moviesOnly = await client.open('movieList', { observe: ['movies'] });
  assert.deepEqual(moviesOnly.state, { movies: [] });
  await list.set('isPresentingAddMovie', true);
  assert.equal(list.state.isPresentingAddMovie, true);

  const add = await client.open('addMovie');
  assert.equal(add.state.rating, 'notSeen');
  assert.deepEqual(add.schema.fields.find((field) => field.name === 'rating').cases,
    ['notSeen', 'terrible', 'poor', 'decent', 'good', 'excellent']);
  await assert.rejects(add.invoke('save'), { name: 'CommandDisabledError' });
  await add.set('title', 'Alien');
  assert.equal(add.state['save.enabled'], true);
  await assert.rejects(add.set('rating', 'great'), { name: 'WrongValueTypeError', code: -32014 });
  await add.set('rating', 'excellent');

  const listEvents = [];
  moviesOnly.on('change', (changes, info) => listEvents.push(info.cause));
  const saved = await add.invoke('save');
  const alien = { id: '1', fullTitle: 'Alien', givenRating: 'excellent' };
  assert.deepEqual(saved, alien);
  assert.deepEqual(list.state.movies, [alien]);
  assert.deepEqual(moviesOnly.state.movies, [alien]);
  assert.equal(listEvents.length, 1);

  await add.close();
  const second = await client.open('addMovie');
  await second.set('title', 'Heat');
  await second.invoke('save');
  assert.deepEqual(list.state.movies.map((movie) => movie.fullTitle), ['Alien', 'Heat']);
  assert.deepEqual(moviesOnly.state.movies, list.state.movies);
  const late = await client.open('movieList', { observe: ['movies'] });
  assert.deepEqual(late.state.movies, list.state.movies);
});
