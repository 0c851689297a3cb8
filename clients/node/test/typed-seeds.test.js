// Every seed type through its generated class (bindery-client/seeds, made by
// clients/codegen/bindery-codegen): typed setters, commands, change listeners; and the schemaHash
// check that refuses a class generated from another version of a type.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SchemaMismatchError, TypedSession } from 'bindery-client';
import {
  AddMovieSession, BottomBarSession, ElementSession, EmailSession, LoginSession, MovieListSession, PackageSession,
  SurveySession,
} from 'bindery-client/seeds';
import { spawnClient } from '../test-support/daemon.js';

const USER = { firstName: 'Ada', lastName: 'Lovelace', authToken: '123adasdsadasdasdasdd' };

test('email and survey: typed setters, set by name, change listeners', async (t) => {
  const client = await spawnClient(t, { deterministic: true });
  const form = await EmailSession.open(client);
  assert.ok(form instanceof TypedSession);
  const seen = [];
  const stop = form.onChange((changes, info) => seen.push([changes, info.revision]));
  assert.equal(await form.setEmail('a@b.co'), 1);
  assert.deepEqual(seen, [[{ isValid: true, validationMessage: 'Email is valid' }, 1]]);
  stop();
  await form.set('email', 'nope');
  assert.equal(seen.length, 1, 'the listener was removed');
  assert.deepEqual(form.state, { email: 'nope', isValid: false, validationMessage: 'Email is invalid' });
  assert.equal(form.id, form.session.id);
  assert.equal(form.revision, 2);

  const survey = await SurveySession.open(client);
  const changes = survey.changes();
  await survey.setName('Ada Lovelace');
  await survey.setCompanyName('Analytical Engines');
  await survey.setYearsOfExperience(3);
  await survey.setIsCurrentEmployer(true);
  await survey.setApproxSalary(45000);
  await survey.setComments(null);
  assert.deepEqual(survey.state.prettyString.split('\n'), [
    'Name: Ada Lovelace', 'Company: Analytical Engines', 'Experience: 3.0 yrs',
    'Current Employer?: YES', 'approx Salary: 45.0k', 'Comments: --']);
  const first = (await changes.next()).value;
  assert.match(first.prettyString, /^Name: Ada Lovelace/);
  await survey.close();
  assert.ok(survey.closed);
});

test('login: the typed async command on the virtual clock', async (t) => {
  const client = await spawnClient(t, { deterministic: true });
  const login = await LoginSession.open(client);
  const users = [];
  login.onChange((changes) => { if ('loggedInUser' in changes) users.push(changes.loggedInUser); });
  await login.setFirstName('Ada');
  await login.setLastName('Lovelace');
  assert.equal(login.state['login.enabled'], true);
  const call = login.login();
  await login.waitUntil((state) => state['login.running']);
  await client.advanceClock(1500);
  assert.deepEqual(await call, USER);
  assert.deepEqual(users, [USER]);
  assert.deepEqual(login.state.loggedInUser, USER);
});

test('package, element and bottomBar', async (t) => {
  const client = await spawnClient(t, { seed: 1 });
  const pkg = await PackageSession.open(client);
  const seen = [];
  pkg.onChange((changes) => seen.push(changes));
  await pkg.setRecipientFirstName('Grace');
  await pkg.setRecipientLastName('Hopper');
  await pkg.setStreet('37 Christie St');
  assert.equal(await pkg.addRandomItem(), null);
  assert.deepEqual(pkg.state.contents, [{ title: 'Light bulb', weight: 257 }]);
  assert.deepEqual(seen.at(-1).contents, pkg.state.contents);
  assert.match(pkg.state.summary, /^Recipient: Grace Hopper\nPostal address: 37 Christie St/);

  const helium = await ElementSession.open(client, { args: { symbol: 'He' } });
  assert.equal(helium.state.name, 'Helium');
  assert.equal(helium.state.atomicNumber, 2);
  assert.deepEqual(Object.getOwnPropertyNames(ElementSession.prototype), ['constructor'], 'outputs only: no setters');

  const bar = await BottomBarSession.open(client, { key: 'bar' });
  const texts = [];
  bar.onChange((changes) => texts.push(changes.text));
  await client.advanceClock(4000);
  assert.equal(texts.length, 2);
  for (const text of texts) assert.match(text, /^Random number: \d+$/);
  assert.equal((await BottomBarSession.open(client, { key: 'bar' })).session, bar.session, 'a key reopens the session');
});

test('movies: a typed save reaches the typed list', async (t) => {
  const client = await spawnClient(t, { deterministic: true });
  const list = await MovieListSession.open(client);
  const lists = [];
  list.onChange((changes) => lists.push(changes.movies));
  await list.setIsPresentingAddMovie(true);
  const add = await AddMovieSession.open(client);
  await add.setTitle('Alien');
  await add.setRating('excellent');
  const movie = await add.save();
  assert.deepEqual(movie, { id: movie.id, fullTitle: 'Alien', givenRating: 'excellent' });
  assert.deepEqual(lists, [[movie]]);
  assert.deepEqual(list.state.movies, [movie]);
  assert.deepEqual(await list.refresh(), list.state);
});

test('a class generated from another version of a type is refused with SchemaMismatchError', async (t) => {
  const client = await spawnClient(t);
  class DoctoredLogin extends LoginSession {
    static schemaHash = '0000000000000000';
  }
  const error = await DoctoredLogin.open(client).catch((caught) => caught);
  assert.ok(error instanceof SchemaMismatchError, String(error));
  assert.equal(error.code, -32021);
  assert.equal(error.message, `the daemon's \`login\` differs from the generated client (the daemon's schemaHash is ${
    LoginSession.schemaHash}, the client's 0000000000000000); regenerate with clients/codegen/bindery-codegen`);
  assert.deepEqual(error.data, { type: 'login', schemaHash: LoginSession.schemaHash, expected: '0000000000000000' });
  assert.equal(client.sessions.size, 0);
  assert.equal((await client.open('login', { schemaHash: LoginSession.schemaHash })).type, 'login');
  const email = await client.open('email');
  assert.throws(() => new LoginSession(email), /LoginSession wraps sessions of "login", not "email"/);
});
