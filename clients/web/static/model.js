// What a form knows of its session beyond the client mirror (mirror.js: the Node client's
// lib/mirror.js, served as /mirror.js, which holds the daemon's state and display text, the
// pending writes, and folds what arrives). Here are the page's own parts: what a write of a
// person's text stands for, the text a field shows, the commands in flight and their outcomes, and
// the snapshot that brings a form back after a reconnect. No DOM: test/model.test.mjs runs it in Node.
//
// While a write is pending, a field shows what was sent (the mirror's `shown` rule: the person's
// typing is never overwritten by a value that arrives meanwhile); once answered, what the daemon
// holds. A write of text stores a value the page does not know (protocol.md, "Display and text"):
// once it is answered with no echo, the field shows the text as written (`written`) until the
// daemon says otherwise.

import { memberText } from './values.js';

const NONE = Object.freeze({ id: null, revision: 0, state: Object.freeze({}), display: Object.freeze({}) });

export class SessionModel {
  /** `schema`: the type's schema (viewModels/describe); `key`: the session's key, if any. */
  constructor(schema, key = null) {
    this.schema = schema;
    this.key = key;
    this.mirror = null;
    this.record = NONE;        // the mirror's record of the session (kept after a reconnect, for recovery)
    this.written = {};         // field -> text the daemon took, its value not known to the page
    this.invokes = new Map();  // request id -> command name: invokes not yet answered
    this.outcomes = {};        // command name -> {ok: true, value} | {ok: false, error}
  }

  /** The session (a new one after a reconnect): its record in `mirror`. */
  attach(mirror, record) {
    this.mirror = mirror;
    this.record = record;
    this.written = {};
  }

  get session() { return this.record.id; }
  get revision() { return this.record.revision; }
  get state() { return this.record.state; }
  get display() { return this.record.display; }

  get writable() {
    return this.schema.fields.filter((field) => field.writable);
  }

  /** The daemon said something of these members: text written before no longer stands for them. */
  folded(names) {
    for (const name of names) delete this.written[name];
  }

  /** The last write of `name` not answered yet, else undefined. */
  pending(name) {
    return this.mirror ? this.mirror.pendingWrite(this.session, name) : undefined;
  }

  /** The value a control shows: the last one written while a write is pending, else the daemon's. */
  value(name) {
    const write = this.pending(name);
    return write && 'value' in write ? write.value : this.state[name];
  }

  /** The one line a member shows: what was typed while pending, else the daemon's text (values.js). */
  text(name) {
    const write = this.pending(name);
    if (write && 'text' in write) return write.text;
    if (write) return memberText(write.value, undefined);
    if (name in this.written) return this.written[name];
    return memberText(this.state[name], this.display[name]);
  }

  /** A setField sent as request `id`: `sent` is its `{value}` or `{text}`. */
  beginWrite(id, field, sent) {
    const value = 'value' in sent ? sent.value : this.stringOf(field, sent.text);
    this.mirror.write(id, this.session, field, value === undefined ? { ...sent } : { ...sent, value });
  }

  /**
   * The answer to setField `id`: its `result`, or `error`. Returns `{changed, resync}`: the names
   * whose shown text may have changed, and whether the session is out of step (ask session/state).
   */
  endWrite(id, response) {
    const outcome = this.mirror ? this.mirror.answer(id, response) : null;
    if (!outcome) return { changed: [], resync: false };
    const { write } = outcome;
    if ('error' in response || outcome.record !== this.record) return { changed: [write.field], resync: outcome.resync };
    if (outcome.changed) delete this.written[write.field];
    else if (!write.told && !('value' in write) && !this.pending(write.field)) this.written[write.field] = write.text;
    return { changed: [write.field], resync: outcome.resync };
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

  /** Forgets the invokes in flight (the connection is gone); returns the commands that were running. */
  dropRequests() {
    const commands = new Set(this.invokes.values());
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
