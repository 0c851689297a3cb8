// One live view-model session: its state kept current from didChange, and the calls on it.
import { EventEmitter } from 'node:events';
import {
  AbortError, SessionClosedError, TimeoutError, UnknownCommandError, UnknownFieldError, UnknownSessionError,
} from './errors.js';
import { applySplice } from './splices.js';
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
  #state;
  #revision;
  #closed = false;
  /** The error the connection ended with, when that is what closed this session. */
  #closedBy = undefined;
  #detached = false;
  #resyncing = false;
  // setField requests in flight: id -> { field, value, echoed } (did a didChange it caused carry
  // the field?); `value` is what a splice of that field applies to (see #splice)
  #writes = new Map();
  #waiters = new Set();
  // values(): the last state converted, and the state it was converted from (state is replaced on
  // every change, never mutated, so the same object converts to the same values)
  #native = { from: null, values: null };

  /**
   * @internal Made by Client#open.
   * @param {import('./client.js').Client} client
   * @param {object} schema the type's schema, from initialize or viewModels/describe
   * @param {{ session: number, revision: number, state: object, reopened?: boolean }} opened
   * @param {string} [key]
   */
  constructor(client, schema, opened, key) {
    super();
    this.#client = client;
    this.#schema = schema;
    /** The daemon's id for this session. */
    this.id = opened.session;
    /** The view model type. */
    this.type = schema.type;
    /** The key it was opened with, if any. */
    this.key = key;
    /** Whether the last open with a key found the session already open. */
    this.reopened = opened.reopened ?? false;
    /** Whether the last open with a key found it stored by `binderyd --state DIR` (fields restored). */
    this.restored = opened.restored ?? false;
    this.#revision = opened.revision;
    this.#state = { ...opened.state };
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
    return childRefs(this.#state).map((id) => this.#client._session(id)).filter((session) => session !== undefined);
  }

  // 'one' or 'rows'; TypeError for a member that shows no child view model.
  #childKind(name, value) {
    const kind = childKind(this.#memberType(name));
    if (kind) return kind;
    if (this.#schema.fields.length === 0) { // no schema: read the value
      if (Array.isArray(value)) return 'rows';
      if (childRef(value) !== null) return 'one';
    }
    throw new TypeError(`"${name}" of ${this.type} is not a child view model (its type is ${this.#memberType(name)?.type ?? 'unknown'})`);
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
    return this.#state;
  }

  /** One more for every didChange: the daemon's revision of what `state` shows. */
  get revision() {
    return this.#revision;
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
    return [
      ...this.#schema.fields.map((field) => field.name),
      ...this.commands.flatMap((name) => [`${name}.enabled`, `${name}.running`]),
    ];
  }

  /**
   * The current value of a member; undefined when it is not observed.
   * @param {string} name
   */
  get(name) {
    this.#checkMember(name);
    return this.#state[name];
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
    return decodeValue(this.#state[name], this.#memberType(name));
  }

  /**
   * Every member of `members` (default: `state`) as native values, as `value` reads one: pass a
   * change set (a `change` listener's, `changes()`'s) to convert it.
   * @param {Record<string, unknown>} [members]
   */
  values(members) {
    if (members === undefined && this.#native.from === this.#state) return this.#native.values;
    const source = members ?? this.#state;
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
    const params = { session: this.id, field, value: wire };
    if (expectedRevision !== undefined) params.expectedRevision = expectedRevision;
    const { id, promise } = this.#client._startRequest(
      'setField', params,
      {
        ...requestOptions,
        onResponse: (result) => {
          // No echo: the daemon does not send back what this session wrote unless it stored
          // something else (then a didChange with this cause carried the stored value).
          if (!this.#writes.get(id)?.echoed && Object.hasOwn(this.#state, field)) {
            this.#state = { ...this.#state, [field]: written };
            this.#stateChanged();
          }
          this.#checkRevision(result?.revision);
        },
      },
    );
    this.#writes.set(id, { field, value: written, echoed: false });
    try {
      return (await promise).revision;
    } finally {
      this.#writes.delete(id);
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
    const params = args === undefined ? { session: this.id, command }
      : { session: this.id, command, args: encodeValue(args, described?.args) };
    const { native, expectedRevision, ...requestOptions } = options ?? {};
    if (expectedRevision !== undefined) params.expectedRevision = expectedRevision;
    const result = await this.#client.request('invoke', params, requestOptions);
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
    this.#checkOpen();
    return this.#client.request('session/snapshot', { session: this.id }, options);
  }

  /**
   * Fetches the whole observed state from the daemon (session/state) and adopts it.
   * @param {RequestOptions} [options]
   */
  async refresh(options) {
    this.#checkOpen();
    await this.#client.request('session/state', { session: this.id }, {
      ...options,
      onResponse: (result) => this.#replace(result, 'refresh', true),
    });
    return this.#state;
  }

  /**
   * From now on, only these members are pushed and kept in `state`.
   * @param {string[]} names
   * @param {RequestOptions} [options]
   */
  async observe(names, options) {
    this.#checkOpen();
    if (!Array.isArray(names)) throw new TypeError('observe takes an array of member names');
    for (const name of names) this.#checkMember(name, 'session/observe');
    await this.#client.request('session/observe', { session: this.id, properties: names }, {
      ...options,
      onResponse: (result) => this.#replace(result, 'observe'),
    });
    return this.#state;
  }

  /**
   * Closes the session: its running commands are cancelled (their invokes reject with
   * RequestCancelledError). Closing a closed session does nothing.
   * @param {RequestOptions} [options]
   */
  async close(options) {
    if (this.#closed) return;
    try {
      await this.#client.request('session/close', { session: this.id }, {
        ...options,
        onResponse: () => this._markClosed(),
      });
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
    let waiting = null;
    let ended = this.#closed;
    let failure = null;
    const onChange = (changes) => {
      if (waiting) {
        const { resolve } = waiting;
        waiting = null;
        resolve({ value: changes, done: false });
      } else {
        buffered.push(changes);
      }
    };
    const finish = (error) => {
      if (ended) return;
      ended = true;
      failure = error ?? null;
      detach();
      if (waiting) {
        const { resolve, reject } = waiting;
        waiting = null;
        if (failure) reject(failure);
        else resolve({ value: undefined, done: true });
        failure = null;
      }
    };
    const onClose = (error) => finish(error);
    const onAbort = () => finish(new AbortError('changes() was aborted', { cause: signal.reason, local: true }));
    const detach = () => {
      this.off('change', onChange);
      this.off('close', onClose);
      signal?.removeEventListener('abort', onAbort);
    };
    if (!ended) {
      this.on('change', onChange);
      this.once('close', onClose);
      if (signal?.aborted) onAbort();
      else signal?.addEventListener('abort', onAbort, { once: true });
    }
    return {
      [Symbol.asyncIterator]() {
        return this;
      },
      next() {
        if (buffered.length > 0) return Promise.resolve({ value: buffered.shift(), done: false });
        if (ended) {
          const error = failure;
          failure = null;
          return error ? Promise.reject(error) : Promise.resolve({ value: undefined, done: true });
        }
        return new Promise((resolve, reject) => { waiting = { resolve, reject }; });
      },
      return() {
        buffered.length = 0;
        finish();
        return Promise.resolve({ value: undefined, done: true });
      },
    };
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
          if (predicate(this.#state)) done(resolve, this.#state);
        } catch (error) {
          done(reject, error);
        }
      };
      waiter.fail = (error) => done(reject, error);
      this.#waiters.add(waiter);
      waiter.check();
      if (!this.#waiters.has(waiter)) return;
      if (this.#closed) return waiter.fail(new SessionClosedError(`session ${this.id} (${this.type}) is closed`, { local: true }));
      if (signal?.aborted) return onAbort();
      signal?.addEventListener('abort', onAbort, { once: true });
      if (timeout !== undefined) {
        timer = setTimeout(() => done(reject, new TimeoutError(`waitUntil timed out after ${timeout} ms`, { timeout, local: true })), timeout);
      }
    });
  }

  /** @internal A didChange for this session, in arrival order. */
  _applyDidChange({ revision, changes = {}, cause, splices }) {
    // While a resync is in flight, everything that arrives is older than the state it will bring.
    if (this.#closed || this.#resyncing || revision <= this.#revision) return;
    if (revision !== this.#revision + 1) {
      this.#resync();
      return;
    }
    const write = cause === undefined ? undefined : this.#writes.get(cause);
    if (write && (Object.hasOwn(changes, write.field) || Object.hasOwn(splices ?? {}, write.field))) {
      write.echoed = true;
    }
    const { changed, applied, fits } = this.#splice(changes, splices, write);
    this.#revision = revision;
    this.#state = { ...this.#state, ...changed };
    if (Object.keys(changed).length > 0) {
      this.emit('change', changed, { revision, cause, source: 'didChange', splices: applied });
    }
    this.#stateChanged();
    if (!fits) this.#resync(); // never fold a splice into a list that may be wrong: fetch it whole
  }

  /** @internal session/open with this session's key answered again (`reopened`). */
  _reopen(opened) {
    this.reopened = opened.reopened ?? true;
    this.restored = opened.restored ?? false;
    this.#replace(opened, 'reopen', true);
  }

  /** @internal A child's whole state, listed in its parent's session/state (a resync). */
  _resyncFrom(entry) {
    this.#replace(entry, 'resync');
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
    const failure = error ?? new SessionClosedError(this.#detached ? this.#detachedMessage()
      : `session ${this.id} (${this.type}) was closed`, { local: true });
    for (const waiter of [...this.#waiters]) waiter.fail(failure);
    this.emit('close', error);
  }

  // A didChange's lists sent as splices, folded into whole values: `changed` is `changes` plus the
  // new lists, `applied` the splices that fitted; `fits` is false when one did not (out of step).
  // A splice of the field a setField of ours wrote (`write`, its cause) applies to the written
  // value: the daemon counts it as sent (no echo), though `state` takes it only with the response.
  #splice(changes, splices, write) {
    if (splices === undefined || splices === null) return { changed: changes, applied: {}, fits: true };
    const changed = { ...changes };
    const applied = {};
    let fits = true;
    for (const [name, splice] of Object.entries(splices)) {
      const base = write?.field === name ? write.value : this.#state[name];
      const list = Object.hasOwn(this.#state, name) ? applySplice(base, splice) : null;
      if (list === null) {
        fits = false;
        continue;
      }
      changed[name] = list;
      applied[name] = splice;
    }
    return { changed, applied, fits };
  }

  // session/undo or session/redo: the restored fields came first, by didChange (cause: this request).
  async #history(method, options) {
    this.#checkOpen();
    return this.#client.request(method, { session: this.id }, {
      ...options,
      onResponse: (result) => this.#checkRevision(result?.revision),
    });
  }

  #detachedMessage() {
    return `session ${this.id} (${this.type}) is detached: its parent, session ${this._parent?.id ?? '?'}, no longer shows it`;
  }

  #checkOpen() {
    if (this.#detached) {
      throw new SessionClosedError(this.#detachedMessage(), { data: { session: this.id }, local: true });
    }
    // A session closed because the connection ended says how it ended (DaemonExitedError...).
    if (this.#closedBy) throw this.#closedBy;
    if (this.#closed) {
      throw new SessionClosedError(`session ${this.id} (${this.type}) is closed`, { data: { session: this.id }, local: true });
    }
  }

  // A member's type object: a field's or output's; `c.enabled` and `c.running` are booleans.
  #memberType(name) {
    const field = this.#schema.fields.find((f) => f.name === name);
    if (field) return field;
    return /\.(enabled|running)$/.test(name) ? { type: 'boolean', nullable: false } : undefined;
  }

  #checkMember(name, method = 'setField') {
    if (this.members.includes(name)) return;
    const known = this.#schema.fields.map((field) => field.name);
    throw new UnknownFieldError(`Unknown field "${name}" in ${this.type}; known: ${known.join(', ')}`,
      { data: { session: this.id, field: name, known }, method, local: true });
  }

  // A response naming a revision beyond ours means a didChange was lost: fetch the state.
  #checkRevision(revision) {
    if (Number.isInteger(revision) && revision > this.#revision) this.#resync();
  }

  #resync() {
    if (this.#resyncing || this.#closed) return;
    this.#resyncing = true;
    this.#client.connection.request('session/state', { session: this.id }, {
      onResponse: (result) => {
        this.#resyncing = false;
        this.#replace(result, 'resync', true);
      },
    }).catch((error) => {
      this.#resyncing = false;
      this.#client.emit('protocolError', error);
    });
  }

  // Adopts a whole fetched state; emits what differs from before as one change set. `whole`: the
  // result lists every child under the session (session/state, session/open), adopted first.
  #replace({ revision, state, children }, source, whole = false) {
    const before = this.#state;
    this.#state = { ...state };
    this.#revision = revision;
    if (whole) this.#client._takeChildren(this, children ?? {}, true);
    const changes = {};
    for (const [name, value] of Object.entries(state)) {
      if (!Object.hasOwn(before, name) || JSON.stringify(before[name]) !== JSON.stringify(value)) changes[name] = value;
    }
    if (Object.keys(changes).length > 0) {
      this.emit('change', changes, { revision, cause: undefined, source, splices: {} });
    }
    this.#stateChanged();
  }

  #stateChanged() {
    for (const waiter of [...this.#waiters]) waiter.check();
  }
}

/**
 * How a member's type object holds child view models: 'one', 'rows' (an array of them), or null.
 * @param {object | undefined} type
 */
export function childKind(type) {
  if (type?.type === 'viewModel') return 'one';
  if (type?.type === 'array' && type.items?.type === 'viewModel') return 'rows';
  return null;
}

/** The session id of a child as a parent's state shows it (`{session: id}`), else null. */
export function childRef(value) {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return null;
  const keys = Object.keys(value);
  return keys.length === 1 && keys[0] === 'session' && Number.isInteger(value.session) ? value.session : null;
}

/** Every child session id a state shows, in member order (rows in their order). */
export function childRefs(state) {
  const found = [];
  for (const value of Object.values(state)) {
    for (const item of Array.isArray(value) ? value : [value]) {
      const id = childRef(item);
      if (id !== null) found.push(id);
    }
  }
  return found;
}

/**
 * @typedef {{ signal?: AbortSignal, timeout?: number }} RequestOptions
 */
