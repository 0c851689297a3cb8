// The client mirror (protocol.md, "Client mirror"): what a client holds of the daemon's sessions —
// each one's type, revision, state and display text, the setFields not yet answered, the sessions
// out of step — and how what the daemon sends is folded into it. One module for the Node client
// and the web page (bindery-web serves this file as /mirror.js), so plain JavaScript: no Node
// imports. Tests/ClientMirror's corpus runs it (test/client-mirror.test.js, and in the browser).
//
// A record's `state` and `display` are replaced, never mutated: an object handed out keeps what it
// showed. A record object stays the same for its session while the session is held.

const isCount = (value) => Number.isInteger(value) && value >= 0;

/**
 * The list `splice` (`{ops: [{at, delete, insert}], length}`, protocol.md "List splices") makes of
 * `value`, as a new array; null when it does not fit: `value` is not an array, an op reaches past
 * its end, or the result's length is not `length` (the client is out of step).
 */
export function applySplice(value, splice) {
  if (!Array.isArray(value) || !Array.isArray(splice?.ops) || !isCount(splice.length)) return null;
  let result = value;
  for (const op of splice.ops) {
    const { at, delete: remove, insert } = op ?? {};
    if (!isCount(at) || !isCount(remove) || !Array.isArray(insert) || at + remove > result.length) return null;
    // concat, not splice(at, remove, ...insert): spreading a long insert would overflow the stack.
    result = result.slice(0, at).concat(insert, result.slice(at + remove));
  }
  return result.length === splice.length ? result : null;
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
  for (const value of Object.values(state ?? {})) {
    for (const item of Array.isArray(value) ? value : [value]) {
      const id = childRef(item);
      if (id !== null) found.push(id);
    }
  }
  return found;
}

/** Exact equality of JSON values (what the daemon compares: numbers by value, strings exactly). */
export function sameValue(a, b) {
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return Object.is(a, b);
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const keysA = Object.keys(a);
  if (keysA.length !== Object.keys(b).length) return false;
  return keysA.every((key) => Object.prototype.hasOwnProperty.call(b, key) && sameValue(a[key], b[key]));
}

export class Mirror {
  constructor() {
    /** Held sessions: id -> `{id, type, revision, state, display}`. */
    this.sessions = new Map();
    /** setFields sent and not answered, in order: `{request, session, field, value?, told, ...}`. */
    this.pending = [];
    /** Sessions out of step: their didChanges are ignored until `take` gets their session/state. */
    this.outOfStep = new Set();
  }

  /**
   * A whole state: a session/open, session/state or session/observe result for session `id`.
   * `children` (every child under the session) are held too, and held sessions under it that are
   * not listed are dropped. Returns `{record, changed, children, retaken, dropped}`: the names
   * whose value or text changed, the child ids new here, the child ids held before with the names
   * that changed (`{id: names}`), the ids dropped.
   */
  take(id, { type, revision, state, display, children } = {}) {
    const under = children ? this.descendants(id) : [];
    const changed = this.#hold(id, { type, revision, state, display }) ?? Object.keys(state ?? {});
    const result = { record: this.sessions.get(id), changed, children: [], retaken: {}, dropped: [] };
    const listed = this.#holdChildren(children, result);
    for (const gone of under) {
      if (!listed.has(gone) && this.drop(gone)) result.dropped.push(gone);
    }
    return result;
  }

  /**
   * Folds a didChange's params. Null when ignored (the session is not held, or out of step);
   * `{id, record, resync: true}` when the session just fell out of step (a revision gap, a splice
   * that does not fit): ask session/state, then `take` it. Else `{id, record, resync: false,
   * changes, splices, children, retaken, detached}`: the new whole value of every member that
   * changed (lists from splices included), the splices that applied, the child ids new here, the
   * held ones listed again (`{id: names}`), the ids dropped.
   */
  didChange(params) {
    const id = params?.session;
    const record = this.sessions.get(id);
    if (!record || this.outOfStep.has(id)) return null;
    const outOfStep = () => {
      this.outOfStep.add(id);
      return { id, record, resync: true };
    };
    if (params.revision !== record.revision + 1) return outOfStep();
    const writer = params.cause === undefined ? undefined
      : this.pending.find((write) => write.request === params.cause && write.session === id);
    const state = { ...record.state };
    const changes = {};
    const splices = {};
    const told = [];
    for (const [name, value] of Object.entries(params.changes ?? {})) {
      state[name] = changes[name] = value;
      if (writer?.field === name) told.push(writer);
    }
    for (const [name, splice] of Object.entries(params.splices ?? {})) {
      // A splice of the field our write set applies to what we wrote: the daemon counts it as told.
      const own = writer?.field === name && 'value' in writer;
      const list = own ? applySplice(writer.value, splice) : name in state ? applySplice(state[name], splice) : null;
      if (list === null) return outOfStep(); // nothing of this message is folded
      state[name] = changes[name] = list;
      splices[name] = splice;
      if (writer?.field === name) told.push(writer);
    }
    for (const write of told) write.told = true;
    if (params.display !== null && typeof params.display === 'object') {
      // A member that changed with no text (a string now, a list) has none any longer.
      const display = { ...record.display };
      for (const name of Object.keys(changes)) if (!(name in params.display)) delete display[name];
      record.display = Object.assign(display, params.display);
    }
    record.state = state;
    const result = { id, record, resync: false, changes, splices, children: [], retaken: {}, detached: [] };
    this.#holdChildren(params.children, result);
    for (const gone of Array.isArray(params.detached) ? params.detached : []) {
      for (const below of [gone, ...this.descendants(gone)]) if (this.drop(below)) result.detached.push(below);
    }
    record.revision = params.revision;
    return result;
  }

  /**
   * A setField sent as request `request`: `write` is `{value}` (what the field will hold), or for
   * a face that sends text `{text, value?}` (value: what the text stands for, when the face knows).
   */
  write(request, session, field, write = {}) {
    this.pending.push({ ...write, request, session, field, told: false });
  }

  /**
   * The answer to request `request` (`{result}` or `{error}`). Null when it answers no pending
   * write; else `{write, record, changed, resync}`: `changed` when the field now holds the value
   * written (no echo: protocol.md), `resync` when the answer names a revision not reached (the
   * write's didChange was lost; ask session/state).
   */
  answer(request, response = {}) {
    const index = this.pending.findIndex((write) => write.request === request);
    if (index < 0) return null;
    const [write] = this.pending.splice(index, 1);
    const record = this.sessions.get(write.session);
    const outcome = { write, record, changed: false, resync: false };
    if (response.error !== undefined || !record || this.outOfStep.has(write.session)) return outcome;
    if (!write.told && 'value' in write && write.value !== undefined && write.field in record.state) {
      record.state = { ...record.state, [write.field]: write.value };
      if (write.field in record.display) { // its text is the daemon's, and unknown here
        record.display = { ...record.display };
        delete record.display[write.field];
      }
      outcome.changed = true;
    }
    outcome.resync = this.behind(write.session, response.result?.revision);
    return outcome;
  }

  /**
   * Whether an answer naming `revision` of session `id` means a didChange was lost (the session
   * is then out of step): a setField's, session/undo's, session/redo's.
   */
  behind(id, revision) {
    const record = this.sessions.get(id);
    if (!record || this.outOfStep.has(id) || !Number.isInteger(revision) || revision <= record.revision) return false;
    this.outOfStep.add(id);
    return true;
  }

  /** One message as the daemon wrote it: a didChange, or a response (to a pending write or not). */
  receive(message) {
    if (message?.method === 'didChange') return this.didChange(message.params);
    if (message && 'id' in message) return this.answer(message.id, message);
    return null;
  }

  /**
   * What a face shows of session `id`: its state, with each field a write is pending to showing
   * the last value written (what the person typed), until its answer.
   */
  shown(id) {
    const state = { ...this.sessions.get(id)?.state };
    for (const write of this.pending) if (write.session === id && 'value' in write) state[write.field] = write.value;
    return state;
  }

  /** The last write sent to a field and not answered, else undefined. */
  pendingWrite(id, field) {
    return this.pending.findLast((write) => write.session === id && write.field === field);
  }

  /** Forgets a session (closed, detached): its later didChanges are ignored. Whether it was held. */
  drop(id) {
    this.outOfStep.delete(id);
    return this.sessions.delete(id);
  }

  /** Every held session under `id` (its children, theirs...), found through the states' `{session}`. */
  descendants(id) {
    const found = [];
    const todo = [id];
    while (todo.length > 0) {
      for (const child of childRefs(this.sessions.get(todo.pop())?.state)) {
        if (child === id || found.includes(child) || !this.sessions.has(child)) continue;
        found.push(child);
        todo.push(child);
      }
    }
    return found;
  }

  // Holds every child of a `children` object (`{id: {type, revision, state, display}}`): a new one's
  // id goes to `result.children`, a held one's changed names to `result.retaken`. Returns the ids.
  #holdChildren(children, result) {
    const listed = new Set();
    for (const [key, entry] of Object.entries(children ?? {})) {
      const child = Number(key);
      if (!Number.isInteger(child) || entry === null || typeof entry !== 'object') continue;
      listed.add(child);
      const names = this.#hold(child, entry);
      if (names === null) result.children.push(child);
      else result.retaken[child] = names;
    }
    return listed;
  }

  // Holds a session's whole state (in step again); null when it is new here, else the names whose
  // value or text changed.
  #hold(id, { type, revision, state = {}, display }) {
    this.outOfStep.delete(id);
    const record = this.sessions.get(id);
    const text = display !== null && typeof display === 'object' ? { ...display } : {};
    if (!record) {
      this.sessions.set(id, { id, type, revision: revision ?? 0, state: { ...state }, display: text });
      return null;
    }
    const changed = Object.keys(state).filter((name) => !(name in record.state)
      || !sameValue(record.state[name], state[name]) || record.display[name] !== text[name]);
    if (type !== undefined) record.type = type;
    record.revision = revision ?? record.revision;
    record.state = { ...state };
    record.display = text;
    return changed;
  }
}
