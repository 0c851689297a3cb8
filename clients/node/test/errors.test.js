// Errors: the class for every code, those the seeds make the daemon send, and local fail-fast.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as bindery from '../index.js';
import { spawnClient } from '../test-support/daemon.js';

const { ErrorCodes, BinderyError, errorFromResponse } = bindery;

test('ErrorCodes and one class per code, found by errorFromResponse', () => {
  assert.deepEqual({ ...ErrorCodes }, {
    ParseError: -32700, InvalidRequest: -32600, MethodNotFound: -32601, InvalidParams: -32602, InternalError: -32603,
    UnknownType: -32010, UnknownSession: -32011, UnknownField: -32012, ReadOnlyField: -32013, WrongValueType: -32014,
    UnknownCommand: -32015, CommandDisabled: -32016, CommandFailed: -32017, OpenFailed: -32018,
    NeedsDeterministicMode: -32019, SchemaMismatch: -32021, SnapshotMismatch: -32022, StaleRevision: -32023, RequestCancelled: -32800,
  });
  const classNames = {
    ParseError: 'ParseError', InvalidRequest: 'InvalidRequestError', MethodNotFound: 'MethodNotFoundError',
    InvalidParams: 'InvalidParamsError', InternalError: 'InternalError',
  };
  for (const [name, code] of Object.entries(ErrorCodes)) {
    const Class = bindery[classNames[name] ?? `${name}Error`];
    assert.equal(Class.code, code, name);
    const error = errorFromResponse({ code, message: `m ${name}`, data: { x: 1 } }, 'some/method');
    assert.ok(error instanceof Class && error instanceof BinderyError, name);
    assert.equal(error.name, Class.name);
    assert.equal(error.code, code);
    assert.equal(error.message, `m ${name}`);
    assert.deepEqual(error.data, { x: 1 });
    assert.equal(error.method, 'some/method');
    assert.equal(error.local, false);
  }
  const mismatch = errorFromResponse({ code: -32021, message: 'Schema mismatch: ...',
    data: { type: 'email', schemaHash: 'cfb889dd8d9bfc95', expected: '0' } }, 'session/open');
  assert.equal(mismatch.message, "the daemon's `email` differs from the generated client (the daemon's schemaHash is "
    + "cfb889dd8d9bfc95, the client's 0); regenerate with clients/codegen/bindery-codegen");
  const unknown = errorFromResponse({ code: -32099, message: 'other' });
  assert.equal(unknown.constructor, BinderyError);
  assert.equal(unknown.code, -32099);
  assert.ok(new bindery.TimeoutError('t') instanceof bindery.AbortError);
  assert.ok(new bindery.AbortError('a') instanceof bindery.RequestCancelledError);
  assert.equal(new bindery.DaemonNotFoundError(['x']).code, null);
});

test('errors the daemon sends, each as its class with its data', async (t) => {
  const client = await spawnClient(t);
  const form = await client.open('email');
  const cases = [
    [() => client.request('no/such/method'), 'MethodNotFoundError', { method: 'no/such/method' }],
    [() => client.request('session/open', {}), 'InvalidParamsError', { param: 'type' }],
    [() => client.request('session/open', ['email']), 'InvalidParamsError', undefined],
    [() => client.request('exit', {}), 'InvalidRequestError', undefined],
    [() => client.describe('nope'), 'UnknownTypeError', { type: 'nope' }],
    [() => client.request('session/state', { session: 99 }), 'UnknownSessionError', { session: 99 }],
    [() => client.request('setField', { session: form.id, field: 'emial', value: 'x' }), 'UnknownFieldError',
      { session: form.id, field: 'emial', known: ['email', 'isValid', 'validationMessage'] }],
    [() => form.set('isValid', true), 'ReadOnlyFieldError', { session: form.id, field: 'isValid' }],
    [() => form.set('email', 42), 'WrongValueTypeError', { session: form.id, field: 'email', expected: 'string', found: 'integer' }],
    [() => form.set('email', null), 'WrongValueTypeError', { found: 'null' }],
    [() => client.request('invoke', { session: form.id, command: 'submit' }), 'UnknownCommandError',
      { session: form.id, command: 'submit', known: [] }],
    [() => client.advanceClock(10), 'NeedsDeterministicModeError', { method: 'clock/advance' }],
  ];
  for (const [call, name, data] of cases) {
    const error = await call().then(() => assert.fail(`${name}: resolved`), (caught) => caught);
    assert.equal(error.name, name, error.message);
    assert.equal(error.code, bindery[name].code);
    assert.equal(error.local, false, `${name} came from the daemon`);
    if (data) assert.deepEqual({ ...error.data, ...data }, error.data, `${name} data: ${JSON.stringify(error.data)}`);
  }
  // A failed write changes nothing the client shows, and the daemon keeps serving.
  assert.equal(form.state.email, '');
  await form.set('email', 'still@serving.io');
  assert.equal(form.state.isValid, true);

  await client.request('shutdown');
  await assert.rejects(client.request('session/state', { session: form.id }), {
    name: 'InvalidRequestError', message: /shut down/,
  });
});

test('a body that is not JSON: the daemon answers id null, seen as a ParseError protocolError', async (t) => {
  const client = await spawnClient(t);
  const errors = [];
  client.on('protocolError', (error) => errors.push(error));
  const garbage = Buffer.from('{"jsonrpc":');
  client.process.stdin.write(Buffer.concat([Buffer.from(`Content-Length: ${garbage.length}\r\n\r\n`), garbage]));
  await client.describe('email'); // answered after the parse error: it has arrived by now
  assert.equal(errors.length, 1);
  assert.ok(errors[0] instanceof bindery.ParseError);
  assert.equal(errors[0].code, -32700);
});

test('unknown names fail fast, locally, listing the valid ones', async (t) => {
  const client = await spawnClient(t);
  const login = await client.open('login');
  let sent = 0;
  const start = client.connection.startRequest.bind(client.connection);
  client.connection.startRequest = (...args) => { sent += 1; return start(...args); };

  const field = await login.set('firstname', 'Ada').catch((error) => error);
  assert.ok(field instanceof bindery.UnknownFieldError);
  assert.equal(field.local, true);
  assert.equal(field.code, -32012);
  assert.deepEqual(field.data.known, ['firstName', 'lastName', 'loginInputValid', 'userLoadingInProgress', 'loggedInUser', 'errorMessage']);
  assert.match(field.message, /known: firstName, lastName/);

  const command = await login.invoke('logout').catch((error) => error);
  assert.ok(command instanceof bindery.UnknownCommandError);
  assert.equal(command.local, true);
  assert.deepEqual(command.data.known, ['login']);
  assert.match(command.message, /known: login/);

  const email = await client.open('email');
  await assert.rejects(email.invoke('submit'), { name: 'UnknownCommandError', message: /email has no commands/ });
  await assert.rejects(client.open('emial'), (error) => error instanceof bindery.UnknownTypeError
    && error.local && error.data.known.includes('email') && /known types: email, survey/.test(error.message));
  await assert.rejects(client.open('survey', { observe: ['bogus'] }), { name: 'UnknownFieldError', local: true });
  await assert.rejects(login.observe(['login.enabled', 'nope']), { name: 'UnknownFieldError', local: true });
  assert.throws(() => login.get('nope'), { name: 'UnknownFieldError' });
  assert.equal(sent, 1, 'only open("email") reached the daemon');
  // Command states are members: observable, readable, and refused by the daemon when written.
  assert.equal(login.get('login.enabled'), false);
  await assert.rejects(login.set('login.enabled', true), { name: 'ReadOnlyFieldError', local: false });
});
