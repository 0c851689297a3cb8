// One live view-model session: the calls on it, and its state as the client's mirror holds it (mirror.js).
import { EventEmitter } from 'node:events';
import {
  AbortError, SessionClosedError, TimeoutError, UnknownCommandError, UnknownFieldError, UnknownSessionError,
} from './errors.js';
import { childRef, childRefs } from './mirror.js';
import { decodeValue, encodeValue, typeConverts } from './values.js';

/**
 * A session of a view model type, opened with `client.open(type)`.
 *
 * `state` holds the current value of every observed member. It is replaced (never mutated) on
 * each change, so a reference kept by the caller is a snapshot. Every didChange a request causes
 * arrives before that request's response, so when a call on this session resolves, `state`
 * already shows its effects.
 *
 * Events: `change` (changes, info) for every change set in order, `info` being
 * `{ revision, cause, source, splices }` (`source` is 'didChange', or 'resync' / 'refresh' /
 * 'observe' / 'reopen' for the members a fetched state changed). `changes` holds new whole values,
 * lists included; `splices` has, by member, the edit of each list the daemon sent as a splice
 * (`{ops: [{at, delete, insert}], length}`), for a view that inserts a row rather than redraw the
 * list (empty when it sent whole values). `close` (error) when the session ends.
 */
export class Session extends EventEmitter {
  #client;
  #schema;
  // What the client's mirror holds of this session (lib/mirror.js): `state`, `revision`; the
  // client folds into it, and gives this session a new one when it is reopened after a reconnect.
  #record;
  #closed = false;
  /** The error the connection ended with, when that is what closed this session. */
  #closedBy = undefined;
  #detached = false;
  #waiters = new Set();
  // values(): the last state converted, and the state it was converted from (state is replaced on
  // every change, never mutated, so the same object converts to the same values)
  #native = { from: null, values: null };

  /**
   * @internal Made by Client#open (then given its record by `_opened`) and for children.
   * @param {import('./client.js').Client} client
   * @param {object} schema the type's schema, from initialize or viewModels/describe
   * @param {{ id: number, revision: number, state: object } | null} record the mirror's, for this session
   * @param {string} [key]
   */
  constructor(client, schema, record, key = undefined) {
    super();
    this.#client = client;
    this.#schema = schema;
    /** The daemon's id for this session. */
    this.id = record?.id;
    /** The view model type. */
    this.type = schema.type;
    /** The key it was opened with, if any. */
    this.key = key;
    /** Whether the last open with a key found the session already open. */
    this.reopened = false;
    /** Whether the last open with a key found it stored by `binderyd --state DIR` (fields restored). */
    this.restored = false;
    this.#record = record;
    /** @internal The session whose member shows this one (a child view model); set by the client. */
    this._parent = null;
  }

  /**
   * The session whose member shows this one, for a child view model (a tab, a row, a detail:
   * protocol.md, "Child view models"); null for a session opened with `client.open`.
   */
  get parent() {
    return this._parent;
  }

  /**
   * True once the parent no longer shows this child (the daemon closed its session): it is
   * `closed` too, and every call on it rejects with SessionClosedError.
   */
  get detached() {
    return this.#detached;
  }

  /**
   * The child session a member shows (a tab, a detail): a Session like any other (`set`,
   * `invoke`, `state`, `undo`, events...), kept current by its own didChanges; null while the
   * member is null. The same object every time, until the parent shows another (this one is then
   * `detached`). A member holding rows throws TypeError: see `rows`.
   * @param {string} name
   * @returns {Session | null}
   */
  child(name) {
    const value = this.get(name);
    if (this.#childKind(name, value) === 'rows') {
      throw new TypeError(`"${name}" of ${this.type} holds rows of child view models: use rows("${name}")`);
    }
    return value === null || value === undefined ? null : this.#childSession(name, value);
  }

  /**
   * The child sessions an array member shows, in its current order (inserts, removals and moves
   * followed): each row keeps its session however the rows move. A member holding one child
   * throws TypeError: see `child`.
   * @param {string} name
   * @returns {Session[]}
   */
  rows(name) {
    const value = this.get(name);
    if (this.#childKind(name, value) === 'one') {
      throw new TypeError(`"${name}" of ${this.type} holds one child view model, not rows: use child("${name}")`);
    }
    return (value ?? []).map((item) => this.#childSession(name, item));
  }

  /**
   * The child sessions a member shows (its rows, its one child, or none), or with no name every
   * child this session shows, in member order.
   * @param {string} [name]
   * @returns {Session[]}
   */
  children(name) {
    if (name !== undefined) {
      const value = this.get(name);
      const items = this.#childKind(name, value) === 'rows' ? (value ?? []) : [value];
      return items.filter((item) => item !== null && item !== undefined).map((item) => this.#childSession(name, item));
    }
    return childRefs(this.#record.state).map((id) => this.#client._session(id)).filter((session) => session !== undefined);
  }

  // 'one' or 'rows' (an array of child view models); TypeError for a member that shows no child.
  #childKind(name, value) {
    const type = this.#memberType(name);
    if (type?.type === 'viewModel') return 'one';
    if (type?.type === 'array' && type.items?.type === 'viewModel') return 'rows';
    if (this.#schema.fields.length === 0) { // no schema: read the value
      if (Array.isArray(value)) return 'rows';
      if (childRef(value) !== null) return 'one';
    }
    throw new TypeError(`"${name}" of ${this.type} is not a child view model (its type is ${type?.type ?? 'unknown'})`);
  }

  #childSession(name, value) {
    const id = childRef(value);
    const session = id === null ? undefined : this.#client._session(id);
    if (!session) {
      throw new UnknownSessionError(`${this.type}.${name} shows ${JSON.stringify(value)}, a child session this client does not hold`,
        { data: { session: id }, local: true });
    }
    return session;
  }

  /** The current value of every observed member: a snapshot, replaced on each change. */
  get state() {
    return this.#record?.state;
  }

  /**
   * The daemon's text for each member whose value is not a string, a list or a child (`42`,
   * `circle(radius: 1.5)`: protocol.md, "Display and text"), with `display: true`; else empty.
   */
  get display() {
    return this.#record.display;
  }

  /** One more for every didChange: the daemon's revision of what `state` shows. */
  get revision() {
    return this.#record.revision;
  }

  /** Whether the session has been closed (by `close()`, or because the client or daemon ended). */
  get closed() {
    return this.#closed;
  }

  /** The type's schema (`{type, fields, commands}`). */
  get schema() {
    return this.#schema;
  }

  /** The names of the fields `set` can write. */
  get fields() {
    return this.#schema.fields.filter((field) => field.writable).map((field) => field.name);
  }

  /** The names of the read-only outputs. */
  get outputs() {
    return this.#schema.fields.filter((field) => !field.writable).map((field) => field.name);
  }

  /** The names of the commands `invoke` can run. */
  get commands() {
    return this.#schema.commands.map((command) => command.name);
  }

  /** Every member a state can hold: fields, outputs, and `c.enabled` / `c.running` per command. */
  get members() {
    return memberNames(this.#schema);
  }

  /**
   * The current value of a member; undefined when it is not observed.
   * @param {string} name
   */
  get(name) {
    this.#checkMember(name);
    return this.#record.state[name];
  }

  /**
   * A member's current value as native values, read by its type in the schema: a Date for a date,
   * a Uint8Array for bytes, a Set for an array of unique elements, through arrays, objects,
   * dictionaries and unions (UUIDs, URLs and decimals stay strings). `state` keeps the JSON as
   * received; this converts it. Undefined when the member is not observed.
   * @param {string} name
   */
  value(name) {
    this.#checkMember(name);
    return decodeValue(this.#record.state[name], this.#memberType(name));
  }

  /**
   * Every member of `members` (default: `state`) as native values, as `value` reads one: pass a
   * change set (a `change` listener's, `changes()`'s) to convert it.
   * @param {Record<string, unknown>} [members]
   */
  values(members) {
    if (members === undefined && this.#native.from === this.#record.state) return this.#native.values;
    const source = members ?? this.#record.state;
    const converted = {};
    for (const [name, item] of Object.entries(source)) converted[name] = decodeValue(item, this.#memberType(name));
    if (members === undefined) this.#native = { from: source, values: converted };
    return converted;
  }

  /** @internal Whether any member's native value differs from its JSON (a Date, a Set, bytes). */
  get _hasNativeValues() {
    return this.#schema.fields.some(typeConverts);
  }

  /**
   * Writes a field; resolves with the session's revision once the daemon has answered, with
   * `state` showing the written value and everything it changed.
   * @param {string} field
   * @param {unknown} value any JSON value (`null` included), or native values encoded by the
   *   field's type: Date, Uint8Array, Set, Map, bigint, nested in arrays and plain objects
   * @param {RequestOptions & { expectedRevision?: number }} [options] with `expectedRevision`, the
   *   write is refused (StaleRevisionError, nothing written) when the session has moved on from it
   * @returns {Promise<number>}
   */
  async set(field, value, options) {
    this.#checkOpen();
    this.#checkMember(field);
    const wire = encodeValue(value, this.#memberType(field));
    const written = wire === undefined ? undefined : JSON.parse(JSON.stringify(wire));
    const { expectedRevision, ...requestOptions } = options ?? {};
    // No echo: the daemon does not send back what this session wrote unless it stored something
    // else; the mirror holds the written value once answered (lib/mirror.js, `answer`).
    const { id, promise } = await this.#start('setField', { field, value: wire, expectedRevision }, {
      ...requestOptions,
      onResponse: (result) => this.#client._answered(id, { result }),
    });
    this.#client._wrote(id, this.id, field, written);
    try {
      return (await promise).revision;
    } finally {
      this.#client._answered(id, { error: true }); // refused, cancelled or lost: no longer pending
    }
  }

  /**
   * Runs a command; resolves with what it returned (null for nothing): its JSON, or with
   * `options.native` native values read by the command's result type. An async command answers
   * when it ends; abort it with `options.signal` or `options.timeout`.
   * @param {string} command
   * @param {unknown} [args] the command's arguments, when it takes any: JSON or native values,
   *   encoded as `set` encodes them (a row shown in `state`, or read with `value`, names that row)
   * @param {RequestOptions & { native?: boolean, expectedRevision?: number }} [options]
   */
  async invoke(command, args, options) {
    this.#checkOpen();
    if (!this.commands.includes(command)) {
      const known = this.commands;
      const list = known.length === 0 ? `${this.type} has no commands` : `known: ${known.join(', ')}`;
      throw new UnknownCommandError(`Unknown command "${command}" in ${this.type}; ${list}`,
        { data: { session: this.id, command, known }, method: 'invoke', local: true });
    }
    const described = this.#schema.commands.find((c) => c.name === command);
    const { native, expectedRevision, ...requestOptions } = options ?? {};
    const result = await this.#request('invoke', { command, args: encodeValue(args, described?.args), expectedRevision }, requestOptions);
    return native ? decodeValue(result?.result ?? null, described?.result) : result?.result ?? null;
  }

  /**
   * Undoes the last step of this session's writes (session/undo): a typing burst to one field, an
   * undoable command. The fields written back (and what follows from them) come by didChange
   * before the answer, so `state` shows them when it resolves. With nothing to undo, nothing changes.
   * @param {RequestOptions} [options]
   * @returns {Promise<{ revision: number, canUndo: boolean, canRedo: boolean }>}
   */
  undo(options) {
    return this.#history('session/undo', options);
  }

  /**
   * Writes again what the last undo took back (session/redo); a new `set`, or a command that is
   * not undoable, clears what could be redone.
   * @param {RequestOptions} [options]
   * @returns {Promise<{ revision: number, canUndo: boolean, canRedo: boolean }>}
   */
  redo(options) {
    return this.#history('session/redo', options);
  }

  /**
   * The daemon's snapshot of this session (session/snapshot): `{type, schemaHash, revision,
   * fields}`, the writable fields' values; `client.open(type, { restore: snapshot })` opens a
   * session that starts from them.
   * @param {RequestOptions} [options]
   */
  async snapshot(options) {
    return this.#request('session/snapshot', {}, options);
  }

  /**
   * Fetches the whole observed state from the daemon (session/state) and adopts it.
   * @param {RequestOptions} [options]
   */
  async refresh(options) {
    await this.#request('session/state', {}, {
      ...options,
      onResponse: (result) => this.#client._takeWhole(this, result, 'refresh'),
    });
    return this.#record.state;
  }

  /**
   * From now on, only these members are pushed and kept in `state`.
   * @param {string[]} names
   * @param {RequestOptions} [options]
   */
  async observe(names, options) {
    this.#checkOpen();
    checkMembers(this.#schema, names, 'session/observe', { session: this.id });
    await this.#request('session/observe', { properties: names }, {
      ...options,
      onResponse: (result) => this.#client._takeWhole(this, result, 'observe'),
    });
    return this.#record.state;
  }

  /**
   * Closes the session: its running commands are cancelled (their invokes reject with
   * RequestCancelledError). Closing a closed session does nothing.
   * @param {RequestOptions} [options]
   */
  async close(options) {
    if (this.#closed) return;
    try {
      await this.#request('session/close', {}, { ...options, onResponse: () => this._markClosed() });
    } catch (error) {
      // Already gone on the daemon's side: the goal is reached.
      if (error instanceof UnknownSessionError) this._markClosed();
      else throw error;
    }
  }

  /**
   * Every change set from now on, in order, buffered until read. Ends when the session closes;
   * throws the error that closed it when the connection was lost, or AbortError on `signal`.
   * @param {{ signal?: AbortSignal }} [options]
   * @returns {AsyncIterableIterator<Record<string, unknown>>}
   */
  changes({ signal } = {}) {
    const buffered = [];
    let end = this.#closed ? { error: null } : null; // once ended: `{error}`, what the iterator ends with
    let wake = () => {};
    const onChange = (changes) => {
      buffered.push(changes);
      wake();
    };
    const finish = (error) => {
      end ??= { error: error ?? null };
      this.off('change', onChange);
      this.off('close', finish);
      signal?.removeEventListener('abort', onAbort);
      wake();
    };
    const onAbort = () => finish(new AbortError('changes() was aborted', { cause: signal.reason, local: true }));
    if (!end) {
      this.on('change', onChange);
      this.once('close', finish);
      if (signal?.aborted) onAbort();
      else signal?.addEventListener('abort', onAbort, { once: true });
    }
    const iterator = (async function* changeSets() {
      for (;;) {
        if (buffered.length > 0) yield buffered.shift();
        else if (end?.error) throw end.error;
        else if (end) return;
        else await new Promise((resolve) => { wake = resolve; });
      }
    })();
    // return() ends it at once, a next() still waiting included (a generator's own would wait for it).
    const stop = iterator.return.bind(iterator);
    iterator.return = (value) => {
      buffered.length = 0;
      finish();
      return stop(value);
    };
    return iterator;
  }

  /**
   * Resolves with `state` as soon as `predicate(state)` holds: now, or after a later change.
   * Rejects with TimeoutError after `timeout` ms, AbortError on `signal`, SessionClosedError
   * (or the connection's error) if the session ends first.
   * @param {(state: Record<string, unknown>) => boolean} predicate
   * @param {{ timeout?: number, signal?: AbortSignal }} [options]
   */
  waitUntil(predicate, { timeout, signal } = {}) {
    return new Promise((resolve, reject) => {
      const waiter = {};
      let timer;
      const done = (settle, value) => {
        this.#waiters.delete(waiter);
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        settle(value);
      };
      const onAbort = () => done(reject, new AbortError('waitUntil was aborted', { cause: signal.reason, local: true }));
      waiter.check = () => {
        try {
          if (predicate(this.#record.state)) done(resolve, this.#record.state);
        } catch (error) {
          done(reject, error);
        }
      };
      waiter.fail = (error) => done(reject, error);
      this.#waiters.add(waiter);
      waiter.check();
      if (!this.#waiters.has(waiter)) return;
      if (this.#closed) return waiter.fail(this.#closedError());
      if (signal?.aborted) return onAbort();
      signal?.addEventListener('abort', onAbort, { once: true });
      if (timeout !== undefined) {
        timer = setTimeout(() => done(reject, new TimeoutError(`waitUntil timed out after ${timeout} ms`, { timeout, local: true })), timeout);
      }
    });
  }

  /**
   * @internal Members the client's mirror changed (a didChange folded, a whole state taken, by
   * `source`): the `change` event when any did, and the waiters.
   */
  _changed(changes, source, { cause, splices = {} } = {}) {
    if (Object.keys(changes).length > 0) this.emit('change', changes, { revision: this.revision, cause, source, splices });
    for (const waiter of [...this.#waiters]) waiter.check();
  }

  /** @internal session/open answered: the first time, again for its key (`reopened`), or after a reconnect. */
  _opened(opened, record) {
    this.reopened = opened.reopened ?? false;
    this.restored = opened.restored ?? false;
    this.id = record.id;
    this.#record = record;
  }

  /** @internal The parent no longer shows this child: the daemon closed its session. */
  _detach() {
    if (this.#closed) return;
    this.#detached = true;
    this._markClosed();
  }

  /** @internal The session is gone: ends iterators, fails waiters, forgets it in the client. */
  _markClosed(error) {
    if (this.#closed) return;
    this.#closed = true;
    this.#closedBy = error;
    this.#client._forget(this);
    const failure = error ?? (this.#detached ? this.#closedError() : new SessionClosedError(`session ${this.id} (${this.type}) was closed`, { local: true }));
    for (const waiter of [...this.#waiters]) waiter.fail(failure);
    this.emit('close', error);
  }

  // session/undo or session/redo: the restored fields came first, by didChange (cause: this request).
  async #history(method, options) {
    return this.#request(method, {}, {
      ...options,
      onResponse: (result) => this.#client._behind(this, result?.revision),
    });
  }

  // A request on this session (`params` and its id), once it is open; while a shared daemon is
  // being reconnected to, after that (this.id is then the new one). Returns `{id, promise}`.
  async #start(method, params, options) {
    this.#checkOpen();
    if (this.#client.reconnecting) await this.#client._connected();
    return this.#client._startRequest(method, { session: this.id, ...params }, options);
  }

  async #request(method, params, options) {
    return (await this.#start(method, params, options)).promise;
  }

  #closedError() {
    const how = this.#detached ? `is detached: its parent, session ${this._parent?.id ?? '?'}, no longer shows it` : 'is closed';
    return new SessionClosedError(`session ${this.id} (${this.type}) ${how}`, { data: { session: this.id }, local: true });
  }

  #checkOpen() {
    // A session closed because the connection ended says how it ended (DaemonExitedError...).
    if (this.#closedBy) throw this.#closedBy;
    if (this.#closed) throw this.#closedError();
  }

  // A member's type object: a field's or output's; `c.enabled` and `c.running` are booleans.
  #memberType(name) {
    const field = this.#schema.fields.find((f) => f.name === name);
    if (field) return field;
    return /\.(enabled|running)$/.test(name) ? { type: 'boolean', nullable: false } : undefined;
  }

  #checkMember(name) {
    checkMembers(this.#schema, [name], 'setField', { session: this.id });
  }
}

/**
 * Every member a state of `schema` can hold: fields, outputs, `c.enabled` / `c.running` per command.
 * @param {object} schema
 */
export function memberNames(schema) {
  return [
    ...schema.fields.map((field) => field.name),
    ...schema.commands.flatMap((command) => [`${command.name}.enabled`, `${command.name}.running`]),
  ];
}

/**
 * Throws UnknownFieldError (local, for `method`; `data` more of its data) for the first of `names`
 * that is no member of `schema`; TypeError when `names` is not an array.
 */
export function checkMembers(schema, names, method, data = {}) {
  if (!Array.isArray(names)) throw new TypeError('observe takes an array of member names');
  const members = memberNames(schema);
  const unknown = names.find((name) => !members.includes(name));
  if (unknown === undefined) return;
  const known = schema.fields.map((field) => field.name);
  const where = method === 'session/open' ? `observe of ${schema.type}` : schema.type;
  throw new UnknownFieldError(`Unknown field "${unknown}" in ${where}; known: ${known.join(', ')}`,
    { data: { ...data, field: unknown, known }, method, local: true });
}

/** @typedef {import('../index.js').RequestOptions} RequestOptions */
