// What the page knows of one session: its state as the daemon told it, folded from session/open,
// didChange (changes and splices) and the answers to this page's own writes. No DOM here: the
// form draws what these methods say changed, and test/model.test.mjs runs them in Node.
//
// The stale-echo rule (LiveView's "the focused input is never overwritten"): while a setField of
// a field is in flight, a didChange that carries that field and was not caused by one of those
// writes describes a value the daemon held *before* the write, which then replaced it; it is not
// applied. When the write is answered the field holds what was written — or, when the daemon
// stored something else, what the didChange caused by that write said (protocol.md: "No echo").
//
// Text (protocol.md, "Display and text"): `display` holds the daemon's text for each member that
// has one. A write of a person's text stores a value the page does not know: once it is answered
// with no echo, the member shows the text as written (`written`) until the daemon says otherwise.

import { memberText } from './values.js';

/** Applies splice ops (`{at, delete, insert}`, in order) to a copy of `list`. */
export function applyOps(list, ops) {
  const result = list.slice();
  for (const op of ops) result.splice(op.at, op.delete, ...op.insert);
  return result;
}

export class SessionModel {
  /** `schema`: the type's schema (viewModels/describe); `key`: the session's key, if any. */
  constructor(schema, key = null) {
    this.schema = schema;
    this.key = key;
    this.session = null;
    this.revision = 0;
    this.state = {};
    this.display = {};         // member -> the daemon's text for its value
    this.written = {};         // field -> text the daemon took, its value not known to the page
    this.writes = new Map();   // request id -> {field, value | text, stored?}: setFields not yet answered
    this.invokes = new Map();  // request id -> command name: invokes not yet answered
    this.outcomes = {};        // command name -> {ok: true, value} | {ok: false, error}
  }

  get writable() {
    return this.schema.fields.filter((field) => field.writable);
  }

  /**
   * Takes a whole state: session/open's result, or session/state's answered to request
   * `sinceRequest`. A field with a write sent after that request keeps what the page holds (the
   * write is newer). Returns the names whose value changed.
   */
  take({ session, revision, state, display = {} }, sinceRequest = Infinity) {
    if (session !== undefined) this.session = session;
    this.revision = revision;
    const changed = [];
    for (const [name, value] of Object.entries(state)) {
      if (this.writesAfter(name, sinceRequest)) continue;
      if (!(name in this.state) || !sameValue(this.state[name], value) || name in this.written
        || this.display[name] !== display[name]) changed.push(name);
      this.set(name, value, display[name]);
    }
    return changed;
  }

  /** A member's value from the daemon, with its text (undefined: a string, a list or a child). */
  set(name, value, text) {
    this.state[name] = value;
    delete this.written[name];
    if (text === undefined) delete this.display[name];
    else this.display[name] = text;
  }

  /** The one line a member shows: the daemon's text (see values.js). */
  text(name) {
    if (name in this.written) return this.written[name];
    return memberText(this.state[name], this.display[name]);
  }

  /**
   * Folds a didChange's params. Returns `{changed, splices, resync}`: the names whose value was
   * replaced, the splice ops applied per list name, and whether the page is out of step (a
   * revision gap, or a splice that does not fit) and must ask session/state.
   */
  applyDidChange({ revision, changes = {}, splices = {}, cause, display = {} }) {
    const result = { changed: [], splices: {}, resync: false };
    if (revision !== this.revision + 1) {
      result.resync = true;
      return result;
    }
    this.revision = revision;
    for (const [name, value] of Object.entries(changes)) {
      if (!this.accepts(name, cause, value)) continue;
      this.set(name, value, display[name]);
      result.changed.push(name);
    }
    for (const [name, splice] of Object.entries(splices)) {
      const list = this.state[name];
      if (!Array.isArray(list)) {
        result.resync = true;
        continue;
      }
      const updated = applyOps(list, splice.ops);
      if (updated.length !== splice.length) {
        result.resync = true;
        continue;
      }
      if (!this.accepts(name, cause, updated)) continue;
      this.set(name, updated, undefined);
      result.splices[name] = splice.ops;
    }
    return result;
  }

  /** Whether a change of `name` caused by request `cause` is news (see the stale-echo rule). */
  accepts(name, cause, value) {
    let inFlight = false;
    for (const write of this.writes.values()) {
      if (write.field !== name) continue;
      inFlight = true;
      if (this.writes.get(cause) === write) {
        write.stored = value;
        return true;
      }
    }
    return !inFlight;
  }

  writesAfter(name, request) {
    for (const [id, write] of this.writes) if (write.field === name && id > request) return true;
    return false;
  }

  hasWriteInFlight(name) {
    for (const write of this.writes.values()) if (write.field === name) return true;
    return false;
  }

  /** A setField sent as request `id`: `sent` is its `{value}` or `{text}`. */
  beginWrite(id, field, sent) {
    this.writes.set(id, { field, ...sent });
  }

  /**
   * The answer to setField `id`: `ok` when it was stored. Returns the names whose value changed
   * (the field, when it now holds something other than the page had).
   */
  endWrite(id, ok) {
    const write = this.writes.get(id);
    if (!write) return [];
    this.writes.delete(id);
    if (!ok) return [];
    // A later write of the same field, still in flight, decides the value when it is answered.
    for (const [other, pending] of this.writes) if (pending.field === write.field && other > id) return [];
    if ('stored' in write) return []; // its didChange set it, with its text
    const value = 'text' in write ? this.stringOf(write.field, write.text) : write.value;
    if (value === undefined) {
      this.written[write.field] = write.text;
      return [];
    }
    if (write.field in this.state && sameValue(this.state[write.field], value)) return [];
    this.set(write.field, value, undefined);
    return [write.field];
  }

  /**
   * The value text written to a plain string field stands for: the text itself (protocol.md: "at
   * the top level a string is the text itself"; an optional's empty text is nil). Undefined for
   * any other field, whose value only the daemon knows.
   */
  stringOf(name, text) {
    const field = this.schema.fields.find((candidate) => candidate.name === name);
    if (!field || field.type !== 'string' || field.format) return undefined;
    return text === '' && field.nullable ? null : text;
  }

  beginInvoke(id, command) {
    this.invokes.set(id, command);
    delete this.outcomes[command];
  }

  /** The answer to invoke `id`: `{ok: true, value}` or `{ok: false, error}`. */
  endInvoke(id, outcome) {
    const command = this.invokes.get(id);
    if (command === undefined) return null;
    this.invokes.delete(id);
    this.outcomes[command] = outcome;
    return command;
  }

  /** Whether `command` is running: its `.running` member, or an invoke of it not yet answered. */
  running(command) {
    if (this.state[command + '.running'] === true) return true;
    for (const name of this.invokes.values()) if (name === command) return true;
    return false;
  }

  enabled(command) {
    return this.state[command + '.enabled'] !== false;
  }

  /** Forgets every request in flight (the connection is gone); returns the commands that were running. */
  dropRequests() {
    const commands = new Set(this.invokes.values());
    this.writes.clear();
    this.invokes.clear();
    return [...commands];
  }

  /**
   * A snapshot (protocol.md, session/snapshot) of the writable fields the page holds, with
   * `edits` (field -> value of a control the daemon has not acknowledged) over them: what
   * session/open's `restore` needs to bring the form back on a new daemon. A field whose text was
   * written is left out: its value is the daemon's to read again (the form sends the text).
   */
  snapshot(edits = {}) {
    const fields = {};
    for (const field of this.writable) {
      if (field.name in edits) fields[field.name] = edits[field.name];
      else if (field.name in this.written) continue;
      else if (field.name in this.state) fields[field.name] = this.state[field.name];
    }
    return { type: this.schema.type, schemaHash: this.schema.schemaHash, revision: this.revision, fields };
  }
}

/** Exact equality of JSON values (what the daemon compares: numbers by value, strings exactly). */
export function sameValue(a, b) {
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return Object.is(a, b);
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const keysA = Object.keys(a);
  const keysB = Object.keys(b);
  if (keysA.length !== keysB.length) return false;
  return keysA.every((key) => Object.prototype.hasOwnProperty.call(b, key) && sameValue(a[key], b[key]));
}
