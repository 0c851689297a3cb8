// The public entry point: a connection to binderyd, its schemas, and the sessions opened on it.
import { EventEmitter } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { Connection } from './connection.js';
import { startDaemon, within } from './daemon-process.js';
import { findDaemon } from './discovery.js';
import { connectSocket, socketPath } from './socket.js';
import { overSocket } from './daemon-fate.js';
import {
  BinderyError, ConnectionClosedError, DaemonExitedError, UnknownTypeError,
} from './errors.js';
import { Mirror, childRefs } from './mirror.js';
import { Session, checkMembers } from './session.js';
import { encodeValue } from './values.js';

/** This package's version (kept equal to package.json's by a test). */
export const VERSION = '0.1.0';
/** The protocol version this client speaks (protocol.md). */
export const PROTOCOL_VERSION = 1;

const CLOSE_TIMEOUT_MS = 5000;
// Between attempts to reach a shared daemon that died (as the web page's connection.js waits).
const RECONNECT_DELAYS_MS = [250, 500, 1000, 2000, 4000, 5000];

/**
 * A client of binderyd over a pair of streams, or over a daemon it spawns (`Client.spawn`).
 *
 * Events: `notification` (method, params) for every notification, after sessions applied it;
 * `protocolError` (error) for what could not be matched to a request; `stderr` (line) and
 * `exit` ({exitCode, signal}) for a spawned daemon; `close` (error) when the connection ends.
 * A client of a shared daemon (`Client.connect`) whose daemon dies reconnects instead of closing:
 * `reconnecting` ({delay, attempt, error}) before each attempt, `reconnected` ({attempt,
 * sessions}) once its keyed sessions are reopened.
 */
export class Client extends EventEmitter {
  #schemas = new Map();
  #sessions = new Map();
  #initializing = null;
  #closing = null;
  #userClosed = false;
  #defaultTimeout;
  #splices;
  #display;
  #daemon = null;
  // What the client holds of the daemon's sessions, and how it folds what arrives (lib/mirror.js).
  #mirror = new Mirror();
  // A shared daemon to reconnect to when it dies: {file, daemon, args, initialize}; null otherwise.
  #reconnect = null;
  #reconnected = null; // while reconnecting: {promise, resolve, reject}, what calls wait for
  #keyed = [];         // while reconnecting: the keyed sessions to reopen
  #wake = null;        // while waiting to reconnect: its AbortController (close() ends the wait)

  /**
   * A client over streams you made: a socket, or the stdio of a child process you spawned.
   * Call `initialize()` (or just `open()`, which initializes first) before use.
   * @param {object} options
   * @param {NodeJS.ReadableStream} options.input what the daemon writes (its stdout)
   * @param {NodeJS.WritableStream} options.output what the daemon reads (its stdin)
   * @param {'content-length' | 'ndjson'} [options.framing] default 'content-length'
   * @param {number} [options.timeout] default time limit, in ms, of every request
   * @param {number} [options.cancelGrace] ms an aborted request waits for the daemon's answer (2000)
   * @param {() => Error | Promise<Error>} [options.closeError] what pending requests fail with
   *   when the input ends
   * @param {boolean} [options.splices] ask `initialize` for list splices (default true); `state`
   *   is the same either way, only the wire and `info.splices` differ
   */
  constructor({ input, output, framing, timeout, cancelGrace, closeError, splices = true, display = false } = {}) {
    super();
    this.#defaultTimeout = timeout;
    this.#splices = splices;
    this.#display = display;
    this.#attach({ input, output, framing, cancelGrace, closeError });
    /** The spawned daemon, when made by `Client.spawn`; null over plain streams. */
    this.process = null;
    /** The shared daemon's socket path, when made by `Client.connect`; null otherwise. */
    this.socketPath = null;
    /** `{name, version}` of the daemon, once initialized. */
    this.serverInfo = null;
    /** The daemon's protocol version, once initialized. */
    this.protocolVersion = null;
    /** The capabilities the daemon agreed to in `initialize` (`{splices: true}`); empty before. */
    this.capabilities = {};
  }

  // A connection to the daemon (a new one after a reconnect), its messages routed to the sessions.
  #attach({ input, output, framing, cancelGrace, closeError }) {
    /** The JSON-RPC connection underneath, for what the client does not wrap. */
    const connection = new Connection({
      input, output, framing, cancelGrace,
      closeError: () => (this.#userClosed ? new ConnectionClosedError('the client was closed')
        : (closeError ? closeError() : new ConnectionClosedError())),
    });
    this.connection = connection;
    connection.on('notification', (method, params) => {
      if (method === 'didChange') this.#didChange(params);
      this.emit('notification', method, params);
    });
    connection.on('protocolError', (error) => this.emit('protocolError', error));
    connection.on('close', (error) => {
      if (connection !== this.connection || this.reconnecting) return; // a reconnect attempt's: it retries
      if (this.#reconnect && !this.#userClosed) {
        this.#lost(error);
        return;
      }
      this.#closeHeld(this.#userClosed ? undefined : error);
      this.emit('close', error);
    });
  }

  /**
   * Finds binderyd (see `findDaemon`), spawns it and, unless `initialize: false`, initializes.
   * @param {SpawnOptions} [options]
   * @returns {Promise<Client>}
   */
  static async spawn({
    daemon, args = [], env, cwd, deterministic = false, seed, record, initialize = true,
    clientInfo, timeout, cancelGrace, stderrLines = 20, splices = true, display = false,
  } = {}) {
    const path = findDaemon({ daemon });
    const argv = [...args];
    if ((deterministic || seed !== undefined) && !argv.includes('--deterministic')) argv.push('--deterministic');
    if (seed !== undefined) argv.push('--seed', String(seed));
    if (record !== undefined) argv.push('--record', record);
    let client;
    const daemonProcess = startDaemon({
      path, args: argv, env, cwd, stderrLines, onStderrLine: (line) => client?.emit('stderr', line),
    });
    client = new Client({
      input: daemonProcess.child.stdout,
      output: daemonProcess.child.stdin,
      timeout,
      cancelGrace,
      splices,
      display,
      closeError: async () => {
        const status = await daemonProcess.settled();
        if (!status) return new ConnectionClosedError('binderyd closed its stdout but is still running');
        return new DaemonExitedError({ ...status, stderr: daemonProcess.stderrTail() }, { cause: status.error });
      },
    });
    client.process = daemonProcess.child;
    client.#daemon = daemonProcess;
    daemonProcess.exited.then((status) => client.emit('exit', status));
    return client.#begin(initialize, clientInfo, () => daemonProcess.child.kill('SIGKILL'));
  }

  /**
   * Connects to a shared daemon (`binderyd --listen`) at `socket` — a path, or `'auto'` (the
   * per-user path of protocol.md) — starting one (found like `spawn` finds it, with `args`) when
   * none answers, and, unless `initialize: false`, initializes. Sessions opened with a `key` are
   * shared with the daemon's other clients (an editor's form, a script); `close()` ends this
   * client's connection only.
   * @param {ConnectOptions} [options]
   * @returns {Promise<Client>}
   */
  static async connect({
    socket = 'auto', daemon, args = [], start = true, initialize = true, clientInfo, timeout, cancelGrace,
    splices = true, display = false, reconnect = true,
  } = {}) {
    const file = socketPath(socket);
    // The daemon's supervisor keeps auto's keyed forms in the user's state directory.
    const starts = start ? findDaemon({ daemon }) : undefined;
    const connection = await connectSocket(file, { daemon: starts, args });
    const client = new Client({ ...overSocket(file, connection), timeout, cancelGrace, splices, display });
    client.socketPath = file;
    if (reconnect) client.#reconnect = { file, daemon: starts, args, initialize: clientInfo ? { clientInfo } : {} };
    return client.#begin(initialize, clientInfo, () => connection.destroy());
  }

  // The end of spawn and connect: initializes unless told not to; `undo` ends the daemon or the
  // socket when that fails.
  async #begin(initialize, clientInfo, undo) {
    if (!initialize) return this;
    try {
      await this.initialize(clientInfo ? { clientInfo } : {});
    } catch (error) {
      undo();
      throw error;
    }
    return this;
  }

  /** The view model schemas (`initialize`'s `viewModels`), once known. */
  get viewModels() {
    return [...this.#schemas.values()];
  }

  /** Open sessions, by id. */
  get sessions() {
    return new Map(this.#sessions);
  }

  /** Whether the connection has ended (and, for a shared daemon, the client does not reconnect). */
  get closed() {
    return this.connection.closed && !this.reconnecting;
  }

  /** True while the client reconnects to a shared daemon that died (calls wait for it). */
  get reconnecting() {
    return this.#reconnected !== null;
  }

  /**
   * Sends `initialize`; stores the server's info, every type's schema and the capabilities the
   * daemon agreed to. Asks for list splices unless the client was made with `splices: false`:
   * sessions fold them back into whole lists, so `state` is the same either way.
   * @param {object} [params] merged over `{processId, clientInfo, capabilities}`
   * @param {RequestOptions} [options]
   * @returns {Promise<{ protocolVersion: number, serverInfo: { name: string, version: string }, viewModels: object[], capabilities?: object }>}
   */
  async initialize(params = {}, options) {
    const result = await this.request('initialize', {
      processId: process.pid, clientInfo: { name: 'bindery-client', version: VERSION },
      ...(this.#splices || this.#display ? { capabilities: {
        ...(this.#splices ? { splices: true } : {}), ...(this.#display ? { display: true } : {}),
      } } : {}),
      ...params,
    }, options);
    if (result?.protocolVersion !== PROTOCOL_VERSION) {
      throw new BinderyError(`binderyd speaks protocol version ${result?.protocolVersion}; this client speaks ${PROTOCOL_VERSION}`,
        { method: 'initialize', local: true });
    }
    this.protocolVersion = result.protocolVersion;
    this.serverInfo = result.serverInfo;
    this.capabilities = { ...result.capabilities };
    this.#remember(result.viewModels);
    return result;
  }

  /**
   * The schemas of every type, or of one (`viewModels/describe`); refreshes the client's copy.
   * @param {string} [type]
   * @param {RequestOptions} [options]
   */
  async describe(type, options) {
    const result = await this.request('viewModels/describe', type === undefined ? {} : { type }, options);
    this.#remember(result.viewModels);
    return type === undefined ? result.viewModels : result.viewModels[0];
  }

  /**
   * Opens a session of `type`. With a `key`, opening it again returns the same session
   * (`reopened`), with its current state; `restored` when `binderyd --state DIR` kept it from a
   * previous run. `schemaHash` is the type's as a generated client knows it: when the daemon's
   * differs, the open rejects with SchemaMismatchError. `restore` is a snapshot
   * (`session.snapshot()`) whose fields the new session starts with; one that does not fit the
   * type rejects with SnapshotMismatchError.
   * @param {string} type
   * @param {{ args?: object, observe?: string[], key?: string, schemaHash?: string, restore?: object } & RequestOptions} [options]
   * @returns {Promise<Session>}
   */
  async open(type, { args, observe, key, schemaHash, restore, ...options } = {}) {
    if (this.reconnecting) await this._connected();
    if (this.#schemas.size === 0) {
      this.#initializing ??= this.initialize().finally(() => { this.#initializing = null; });
      await this.#initializing;
    }
    const schema = this.#schemas.get(type);
    if (!schema) {
      const known = [...this.#schemas.keys()];
      throw new UnknownTypeError(`Unknown view model type "${type}"; known types: ${known.join(', ')}`,
        { data: { type, known }, method: 'session/open', local: true });
    }
    if (observe !== undefined) checkMembers(schema, observe, 'session/open');
    // What is undefined is not sent (JSON leaves it out).
    const params = { type, args: encodeValue(args), observe, key, schemaHash, restore };
    let session;
    // Registered as the response is read, so a didChange right behind it finds the session.
    await this.request('session/open', params, {
      ...options,
      onResponse: (opened) => {
        session = this.#sessions.get(opened.session) ?? new Session(this, schema, null, key);
        this._takeWhole(session, opened, 'reopen', true);
      },
    });
    return session;
  }

  /**
   * Moves the virtual clock of a `--deterministic` daemon; resolves with the new time in ms, after
   * every timer and sleep that fell due has run and its changes have been applied.
   * @param {number} ms
   * @param {RequestOptions} [options]
   * @returns {Promise<number>}
   */
  async advanceClock(ms, options) {
    const result = await this.request('clock/advance', { ms }, options);
    return result.now;
  }

  /**
   * Any request, by method name. Rejects with the BinderyError subclass of the daemon's code.
   * @param {string} method
   * @param {object | unknown[]} [params]
   * @param {RequestOptions & { onResponse?: (result: any) => void }} [options]
   */
  request(method, params, options) {
    return this._startRequest(method, params, options).promise;
  }

  /**
   * Any notification, by method name (never answered).
   * @param {string} method
   * @param {object | unknown[]} [params]
   */
  notify(method, params) {
    this.connection.notify(method, params);
  }

  /**
   * Ends the conversation: `shutdown`, then `exit`, then the end of the daemon's input; waits
   * for a spawned daemon to exit (killing it after `timeout` ms). Sessions close; requests still
   * pending reject with ConnectionClosedError. Safe to call twice or after the daemon died.
   * @param {{ timeout?: number }} [options]
   * @returns {Promise<{ exitCode: number | null, signal: string | null } | null>} a spawned
   *   daemon's exit status, null over plain streams
   */
  close({ timeout = CLOSE_TIMEOUT_MS } = {}) {
    this.#closing ??= this.#close(timeout);
    return this.#closing;
  }

  /** @internal A request with the client's default timeout; returns its id too. */
  _startRequest(method, params, options = {}) {
    const timeout = options.timeout ?? this.#defaultTimeout;
    return this.connection.startRequest(method, params, { ...options, timeout });
  }

  /** @internal Called by a session once it is closed: so are the children under it. */
  _forget(session) {
    const below = this.#mirror.descendants(session.id).map((id) => this.#sessions.get(id)).filter(Boolean);
    if (this.#sessions.get(session.id) === session) {
      this.#sessions.delete(session.id);
      this.#mirror.drop(session.id);
    }
    for (const child of below) child._markClosed();
  }

  /** @internal A held session by id (a child a state shows), else undefined. */
  _session(id) {
    return this.#sessions.get(id);
  }

  /** @internal A setField sent as request `request`, writing `value` (its JSON). */
  _wrote(request, session, field, value) {
    this.#mirror.write(request, session, field, { value });
  }

  /** @internal The answer to a request, `{result}` or `{error}`: a pending write's, folded. */
  _answered(request, response) {
    const outcome = this.#mirror.answer(request, response);
    const session = outcome?.record ? this.#sessions.get(outcome.record.id) : undefined;
    if (!session) return;
    if (outcome.changed) session._changed({}); // no event (the script wrote it); waiters look
    if (outcome.resync) this.#resync(session);
  }

  /** @internal An answer naming a revision of `session` (undo, redo): a lost didChange means a resync. */
  _behind(session, revision) {
    if (this.#mirror.behind(session.id, revision)) this.#resync(session);
  }

  /**
   * @internal A whole state for `session` (session/state, session/observe; with `opened`, a
   * session/open's result, its id the session's from now on): the mirror takes it, with every
   * child under it, and the session emits what differs (`source`).
   */
  _takeWhole(session, result, source, opened = false) {
    const before = session.state; // undefined for a session being opened
    const taken = this.#mirror.take(opened ? result.session : session.id, opened ? { type: session.type, ...result } : result);
    if (opened) {
      session._opened(result, taken.record);
      this.#sessions.set(session.id, session);
    }
    this.#adopt(session, taken, source);
    if (before) session._changed(differences(before, session.state), source);
  }

  /** @internal Resolves once a reconnect is over (rejects if the client is closed meanwhile). */
  _connected() {
    return this.#reconnected?.promise ?? Promise.resolve();
  }

  // Sessions for the children the mirror took (new ones made, known ones told what changed), their
  // parents set; the ones it dropped detached.
  #adopt(parent, { children = [], retaken = {}, dropped = [] }, source) {
    for (const id of children) {
      const record = this.#mirror.sessions.get(id);
      const schema = this.#schemas.get(record.type) ?? { type: String(record.type), fields: [], commands: [] };
      this.#sessions.set(id, new Session(this, schema, record));
    }
    for (const id of [parent.id, ...this.#mirror.descendants(parent.id)]) {
      for (const child of childRefs(this.#mirror.sessions.get(id)?.state)) {
        if (this.#sessions.has(child)) this.#sessions.get(child)._parent = this.#sessions.get(id);
      }
    }
    for (const [id, names] of Object.entries(retaken)) {
      const child = this.#sessions.get(Number(id));
      if (child) child._changed(pick(child.state, names), source);
    }
    for (const id of dropped) this.#sessions.get(id)?._detach();
  }

  // A didChange, folded by the mirror: new children first (the parent's listeners may ask for
  // them), then the parent's changes, then the children it no longer shows, detached.
  #didChange(params) {
    const session = this.#sessions.get(params?.session);
    if (!session || session.closed) return;
    const fold = this.#mirror.didChange(params);
    if (!fold) return;
    if (fold.resync) {
      this.#resync(session);
      return;
    }
    this.#adopt(session, { children: fold.children, retaken: fold.retaken }, 'resync');
    session._changed(fold.changes, 'didChange', { cause: params.cause, splices: fold.splices });
    for (const id of fold.detached) this.#sessions.get(id)?._detach();
  }

  // Out of step (a revision gap, a splice that did not fit, a lost didChange): session/state,
  // taken whole. The mirror ignores the session's didChanges meanwhile.
  #resync(session) {
    if (session.closed) return;
    this.connection.request('session/state', { session: session.id }, {
      onResponse: (result) => {
        if (!session.closed) this._takeWhole(session, result, 'resync');
      },
    }).catch((error) => this.emit('protocolError', error));
  }

  // The shared daemon died: unkeyed sessions (and every child) end with it; keyed ones are reopened
  // once a daemon answers again (one is started if none does), after a backoff; calls wait meanwhile.
  #lost(error) {
    let resolve;
    let reject;
    const promise = new Promise((res, rej) => { resolve = res; reject = rej; });
    promise.catch(() => {}); // nobody may be waiting
    this.#reconnected = { promise, resolve, reject };
    this.#keyed = [...this.#sessions.values()].filter((session) => session.key !== undefined && session.parent === null);
    this.#closeHeld(error, this.#keyed);
    this.#reconnectLoop(error);
  }

  async #reconnectLoop(error) {
    const { file, daemon, args, initialize } = this.#reconnect;
    for (let attempt = 1; ; attempt++) {
      const delay = RECONNECT_DELAYS_MS[Math.min(attempt - 1, RECONNECT_DELAYS_MS.length - 1)];
      this.emit('reconnecting', { delay, attempt, error });
      this.#wake = new AbortController();
      await sleep(delay, undefined, { signal: this.#wake.signal }).catch(() => {}); // close() ends it at once
      if (this.#userClosed) return;
      let socket;
      try {
        socket = await connectSocket(file, { daemon, args });
        if (this.#userClosed) {
          socket.destroy();
          return;
        }
        this.#closeHeld(error, this.#keyed); // a failed attempt's children
        this.#mirror = new Mirror();
        this.#attach(overSocket(file, socket));
        await this.initialize(initialize);
        const sessions = [];
        for (const session of this.#keyed.filter((keyed) => !keyed.closed)) {
          if (await this.#reopen(session)) sessions.push(session);
        }
        // Died again meanwhile: a request on a closed connection rejects with how it closed.
        if (this.connection.closed) throw await this.connection.request('session/state').catch((failure) => failure);
        const { resolve } = this.#reconnected;
        this.#reconnected = null;
        this.#keyed = [];
        resolve();
        this.emit('reconnected', { attempt, sessions });
        return;
      } catch (failure) {
        socket?.destroy();
        if (this.#userClosed) return;
        error = failure;
      }
    }
  }

  // A keyed session opened again on the new daemon: the same Session object, with the new id,
  // revision and state (restored from the daemon's --state when it kept them). False when the
  // daemon refuses it (the session is then closed with that error); a lost connection throws.
  async #reopen(session) {
    const params = { type: session.type, key: session.key };
    const observed = Object.keys(session.state).filter((name) => session.members.includes(name));
    if (observed.length > 0 && observed.length < session.members.length) params.observe = observed;
    try {
      await this.request('session/open', params, {
        onResponse: (opened) => this._takeWhole(session, opened, 'reconnect', true),
      });
      return true;
    } catch (failure) {
      if (this.connection.closed) throw failure;
      session._markClosed(failure);
      return false;
    }
  }

  async #close(timeout) {
    if (this.#reconnected) { // reconnecting: no daemon to tell; whatever waits for it is closed
      this.#userClosed = true;
      this.#wake?.abort();
      this.#reconnected.reject(new ConnectionClosedError('the client was closed'));
      this.#reconnected = null;
      for (const session of this.#keyed) session._markClosed();
      this.#keyed = [];
    }
    if (!this.connection.closed) {
      try {
        await this.request('shutdown', undefined, { timeout });
      } catch {
        // Already dying, or not answering: exit and the end of input still apply.
      }
      this.notify('exit');
      this.connection.endOutput();
    }
    this.#userClosed = true;
    this.#closeHeld();
    if (!this.#daemon) {
      await within(new Promise((resolve) => (this.connection.closed ? resolve() : this.connection.once('close', resolve))), timeout);
      this.connection.close(new ConnectionClosedError('the client was closed'));
      return null;
    }
    let status = await within(this.#daemon.exited, timeout);
    if (!status) {
      this.process.kill('SIGKILL');
      status = await this.#daemon.exited;
    }
    return { exitCode: status.exitCode, signal: status.signal };
  }

  // Closes every held session but those in `keep` (with `error`; without, closed by the client) and
  // forgets them all, kept ones too (their ids ended with their daemon).
  #closeHeld(error, keep = []) {
    for (const session of [...this.#sessions.values()]) if (!keep.includes(session)) session._markClosed(error);
    this.#sessions.clear();
  }

  #remember(viewModels = []) {
    const named = new Set(viewModels.map((schema) => schema.type));
    for (const schema of viewModels) {
      this.#schemas.set(schema.type, schema);
      // Child view model types, by their type name (protocol.md, "Child view models").
      for (const nested of nestedSchemas(schema)) if (!named.has(nested.type)) this.#schemas.set(nested.type, nested);
    }
  }
}

/**
 * The schemas of the child view model types a schema nests, each once; a type described inside
 * itself (`{type: name}` only) is not repeated.
 */
function nestedSchemas(schema) {
  const found = new Map();
  const walk = (type) => {
    if (type === null || typeof type !== 'object') return;
    if (type.type === 'viewModel') {
      const nested = type.schema;
      if (nested && Array.isArray(nested.fields) && !found.has(nested.type)) {
        found.set(nested.type, nested);
        for (const field of nested.fields) walk(field);
      }
      return;
    }
    walk(type.items);
    walk(type.values);
  };
  for (const field of schema.fields ?? []) walk(field);
  return [...found.values()];
}

/** The members of `after` whose value differs from `before`'s, with their new values. */
function differences(before, after) {
  const changes = {};
  for (const [name, value] of Object.entries(after)) {
    if (!Object.hasOwn(before, name) || JSON.stringify(before[name]) !== JSON.stringify(value)) changes[name] = value;
  }
  return changes;
}

function pick(state, names) {
  return Object.fromEntries(names.filter((name) => Object.hasOwn(state, name)).map((name) => [name, state[name]]));
}

/**
 * @typedef {import('../index.js').RequestOptions} RequestOptions
 * @typedef {import('../index.js').ConnectOptions} ConnectOptions
 * @typedef {import('../index.js').SpawnOptions} SpawnOptions
 */
