// A form for one session, drawn from its type's schema: a control per writable field (its `name`
// is the field's name), an element per output (its `data-member` is the output's name), a button
// per command (its `name` is the command's name) with the command's result or error beside it.
// Edits go out as setField after a pause in typing; every didChange is drawn at once, except into
// a control holding an edit not yet sent; a field with a write pending shows what was sent (model.js).
//
// Values are the daemon's text (protocol.md, "Display and text"): a control and an output show
// it, and what a person types goes as setField's `text` (a command's argument as invoke's `text`);
// text the daemon cannot read comes back with what it expected, shown beside the control and
// announced, and the typed text stays. A checkbox and a case menu send their `value`.
//
// Child view models (protocol.md, "Child view models"): a member holding one is a fieldset with the
// member's label as its legend, the child drawn inside; a member holding rows is a list of row
// blocks. Each child is a FormView of its own session (`parent` set), whose element carries
// `data-session`: its controls, buttons and outputs have the same hooks as a form's, scoped there.

import { SessionModel } from './model.js';
import { controlKind, inlineText, memberLabel, parseArgs, refusal } from './values.js';
import { ConnectionLost } from './connection.js';

const DEBOUNCE_MS = 150;

/** Creates an element: `el('div', {class: 'x'}, child, 'text')`. */
function el(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value !== null && value !== undefined && value !== false) element.setAttribute(name, value === true ? '' : value);
  }
  for (const child of children) element.append(child);
  return element;
}

/**
 * An output as DOM: the daemon's text (`shown`), or a string itself; a list (which has no display)
 * a table of its structs (a row per element, a column per member, and a button per command in
 * `rows` that takes the element) or a list of its elements. `rows`:
 * `{commands(itemsType) -> [command], press(command, element)}`.
 */
export function valueNode(type, value, shown, rows = null) {
  if (type.type === 'boolean' && typeof value === 'boolean') return yesNoNode(value);
  if (typeof shown === 'string') return document.createTextNode(shown);
  if (value === null || value === undefined) return document.createTextNode('');
  if (Array.isArray(value)) {
    const items = type.items || {};
    if (items.type === 'object') {
      const commands = rows ? rows.commands(items) : [];
      const table = el('table', { class: 'rows' },
        el('thead', {}, el('tr', {}, ...columns(items).map((member) => el('th', {}, memberLabel(member))),
          ...(commands.length ? [el('th', {})] : []))),
        el('tbody', {}, ...value.map((element) => rowNode(items, element, rows))));
      return table;
    }
    return el('ol', { class: 'items' + (type.uniqueItems ? ' set' : '') }, ...value.map((element) => el('li', {}, elementNode(items, element))));
  }
  if (type.format === 'date-time') return el('time', { datetime: value, 'data-format': type.format }, value);
  if (type.format) return el('span', { 'data-format': type.format }, String(value));
  return document.createTextNode(typeof value === 'string' ? value : JSON.stringify(value));
}

/** An element of a list, or a cell of a row: no text comes from the daemon for it (values.js). */
function elementNode(type, value) {
  if (value === null || value === undefined) return document.createTextNode('');
  if (typeof value === 'boolean') return boolNode(value);
  if (typeof value === 'object') return document.createTextNode(inlineText(value));
  if (type && type.format === 'date-time') return el('time', { datetime: value, 'data-format': type.format }, value);
  return document.createTextNode(String(value));
}

/** A boolean inside a value: ✓ or ✗, and its word for screen readers and the tooltip. */
function boolNode(value) {
  const word = value ? 'yes' : 'no';
  return el('span', { class: 'bool', 'data-value': String(value), role: 'img', 'aria-label': word, title: word }, value ? '✓' : '✗');
}

/** A boolean member of a form: Yes or No, marked ✓ or ✗ (app.css), rather than the daemon's true/false. */
function yesNoNode(value) {
  return el('span', { class: 'yes-no', 'data-value': String(value) }, value ? 'Yes' : 'No');
}

/** A UUID in a table cell: its first 8 digits, the whole in the tooltip (and for screen readers). */
function shortIdNode(value) {
  return el('span', { class: 'short-id', 'data-format': 'uuid', 'data-full': value, title: value, 'aria-label': value },
    value.slice(0, 8) + '…');
}

function cellNode(member, value) {
  if (member.format === 'uuid' && typeof value === 'string' && value.length > 8) return shortIdNode(value);
  return elementNode(member, value);
}

/**
 * A row's identity (an `id` member, Identifiable's) is no reading matter: it is left out of the
 * columns and kept in the row's tooltip and `data-id`.
 */
function isRowId(member) {
  return member.name === 'id';
}

function columns(items) {
  return items.members.filter((member) => !isRowId(member));
}

function rowNode(items, element, rows) {
  const commands = rows ? rows.commands(items) : [];
  const identity = items.members.find(isRowId);
  const id = identity && element[identity.name] !== undefined && element[identity.name] !== null ? String(element[identity.name]) : null;
  const row = el('tr', { 'data-id': id, title: id === null ? null : 'ID ' + id }, ...columns(items).map((member) =>
    el('td', { 'data-name': member.name }, member.name in element ? cellNode(member, element[member.name]) : '')));
  if (commands.length) {
    row.append(el('td', { class: 'row-actions' }, ...commands.flatMap((command, i) => {
      const button = el('button', { type: 'button', class: 'row-command', 'data-row-command': command.name }, command.label);
      button.addEventListener('click', () => rows.press(command.name, element));
      return i > 0 ? [' ', button] : [button];
    })));
  }
  return row;
}

export class FormView {
  /**
   * `spec`: `{type, key, args}` from the route; `schema`: the type's; `app`: the page, which has
   * `connection`, `openedArgs(form)` (arguments were typed: the address says so) and
   * `echo(form, name)` (a write was stored: other forms of the session show it).
   */
  constructor(app, spec, schema, parent = null) {
    this.app = app;
    this.spec = spec;
    this.schema = schema;
    this.parent = parent;
    this.root = parent ? parent.root : this;
    if (!parent) {
      this.children = new Map();     // child session id -> its FormView, every descendant
      this.childSchemas = collectSchemas(schema, new Map());
    }
    this.model = new SessionModel(schema, spec.key);
    this.controls = new Map();
    this.outputs = new Map();
    this.commands = new Map();
    this.timers = new Map();  // field -> debounce timer: an edit not yet sent
    this.edits = new Map();   // field -> {sent: {value} | {text}, id}: the last edit sent and not yet answered
    this.writing = new Set(); // setField promises not yet answered (Enter waits for them)
    this.closed = false;
    // A list of structs gets a button per command that takes its element (todoList's toggle).
    this.rows = {
      commands: (items) => schema.commands.filter((command) => command.args && command.args.type === 'object'
        && command.args.typeName !== undefined && command.args.typeName === items.typeName),
      press: (name, element) => this.invoke(name, element),
    };
    this.element = this.build();
  }

  get connection() {
    return this.app.connection;
  }

  setState(state, message = '') {
    this.element.dataset.state = state;
    this.notice.textContent = message;
    // Undo and Redo need the form's live session: not while opening, offline, dead or refused.
    if (this.undoButton) this.undoButton.disabled = this.redoButton.disabled = state !== 'open';
  }

  // Building.

  build() {
    const schema = this.schema;
    if (this.parent) return this.buildChild();
    const title = el('h2', {}, schema.type);
    if (this.spec.key !== null) title.append(' ', el('span', { class: 'key', title: 'key' }, this.spec.key));
    this.meta = el('span', { class: 'meta' });
    this.undoButton = el('button', { type: 'button', 'data-action': 'undo', title: 'session/undo' }, 'Undo');
    this.redoButton = el('button', { type: 'button', 'data-action': 'redo', title: 'session/redo' }, 'Redo');
    this.historyNote = el('span', { class: 'history-note', role: 'status' });
    this.undoButton.addEventListener('click', () => this.history('session/undo', 'undo'));
    this.redoButton.addEventListener('click', () => this.history('session/redo', 'redo'));
    this.notice = el('p', { class: 'notice', role: 'status' });
    this.argsPanel = this.buildArgsPanel();
    this.body = el('fieldset', { class: 'body' });
    for (const field of schema.fields) this.body.append(field.writable ? this.buildField(field) : this.buildOutput(field));
    if (schema.commands.length > 0) {
      this.body.append(el('div', { class: 'commands' }, ...schema.commands.map((command) => this.buildCommand(command))));
    }
    this.body.addEventListener('keydown', (event) => this.enter(event));
    const section = el('section', { class: 'form', 'data-type': schema.type, 'data-state': 'opening' },
      el('header', {}, title, this.meta,
        el('span', { class: 'toolbar' }, this.undoButton, this.redoButton, this.historyNote)),
      this.notice, this.argsPanel, this.body);
    if (this.spec.key !== null) section.dataset.key = this.spec.key;
    return section;
  }

  buildField(field) {
    const id = 'f-' + Math.random().toString(36).slice(2);
    const kind = controlKind(field);
    let control;
    if (kind === 'checkbox') {
      control = el('input', { id, name: field.name, type: 'checkbox' });
      control.addEventListener('change', () => this.write(field.name));
    } else if (kind === 'select') {
      control = el('select', { id, name: field.name });
      if (field.nullable) control.append(el('option', { value: '' }, '—'));
      for (const value of field.cases) control.append(el('option', { value }, value));
      control.addEventListener('change', () => this.write(field.name));
    } else {
      // Text the daemon reads: a number, a date, a struct, a list... all one line.
      control = el('input', { id, name: field.name, type: 'text', autocomplete: 'off', spellcheck: 'false',
        inputmode: field.type === 'integer' ? 'numeric' : field.type === 'number' ? 'decimal' : null });
      if (field.format) control.dataset.format = field.format;
      control.addEventListener('input', () => this.schedule(field.name));
      control.addEventListener('change', () => this.flush(field.name));
    }
    const error = el('span', { class: 'field-error', 'data-error-of': field.name, role: 'alert' });
    this.controls.set(field.name, { field, control, error });
    return el('div', { class: 'row field', 'data-kind': kind },
      el('label', { for: id }, field.label), control, error);
  }

  /** A child session's block: its members and buttons, in a container that names its session. */
  buildChild() {
    const schema = this.schema;
    this.body = el('div', { class: 'body' });
    for (const field of schema.fields) this.body.append(field.writable ? this.buildField(field) : this.buildOutput(field));
    if (schema.commands.length) {
      this.body.append(el('div', { class: 'commands' }, ...schema.commands.map((command) => this.buildCommand(command))));
    }
    this.body.addEventListener('keydown', (event) => this.enter(event));
    // In a rows member's list it is a row block (role listitem), in a child member a block.
    return el('div', { class: 'child', 'data-type': schema.type, 'data-state': 'open' }, this.body);
  }

  buildOutput(field) {
    if (isChild(field)) {
      const slot = el('div', { class: 'child-slot' });
      const element = el('fieldset', { class: 'child-member', 'data-member': field.name },
        el('legend', {}, field.label), slot);
      this.outputs.set(field.name, { field, element, slot });
      return element;
    }
    if (isRows(field)) {
      const slot = el('div', { class: 'child-rows', role: 'list' });
      const element = el('fieldset', { class: 'child-member rows-member', 'data-member': field.name },
        el('legend', {}, field.label), slot);
      this.outputs.set(field.name, { field, element, slot });
      return element;
    }
    const tag = field.type === 'array' ? 'div' : 'output';
    const element = el(tag, { 'data-member': field.name, class: 'output' });
    this.outputs.set(field.name, { field, element });
    return el('div', { class: 'row output-row' }, el('span', { class: 'label' }, field.label), element);
  }

  buildCommand(command) {
    const primary = !this.parent && command === this.primaryCommand();
    const button = el('button', { type: 'button', name: command.name, class: 'command' + (primary ? ' primary' : '') }, command.label);
    button.addEventListener('click', () => this.invoke(command.name));
    const cancel = el('button', { type: 'button', 'data-action': 'cancel', 'data-cancel-of': command.name, hidden: true }, 'Cancel');
    cancel.addEventListener('click', () => this.cancel(command.name));
    const result = el('output', { class: 'result', 'data-result-of': command.name });
    const parts = [button, cancel, result];
    let args = null;
    if (command.args && this.hasRowsFor(command.args)) {
      // Each row of the list has this command's button: no box to type a row into.
      const note = el('span', { class: 'command-note', id: 'n-' + Math.random().toString(36).slice(2) }, 'on each row');
      button.setAttribute('aria-describedby', note.id);
      parts.splice(1, 0, note);
    } else if (command.args) {
      const built = this.buildArgsControl(command);
      args = built.control;
      parts.unshift(built.label);
    }
    this.commands.set(command.name, { command, button, cancel, args, result });
    return el('div', { class: 'command-row' }, ...parts);
  }

  /** A command's argument box, labelled with the type it takes: its text goes as invoke's `text`. */
  buildArgsControl(command) {
    const type = command.args;
    const control = el('input', { type: 'text', 'data-args-of': command.name, size: 10, autocomplete: 'off', spellcheck: 'false',
      inputmode: type.type === 'integer' ? 'numeric' : type.type === 'number' ? 'decimal' : null });
    const what = type.typeName || { integer: 'a whole number', number: 'a number', string: 'text', boolean: 'true or false' }[type.type] || type.type;
    const label = el('label', { class: 'args-control' }, el('span', {}, command.label + ' (' + what + ')'), control);
    return { label, control };
  }

  /** Whether a list output of this form holds structs of the type `args` (a row then has the button). */
  hasRowsFor(args) {
    if (args.type !== 'object' || args.typeName === undefined) return false;
    const holds = (type) => !!type && (
      (type.type === 'array' && type.items && type.items.type === 'object' && type.items.typeName === args.typeName)
      || (type.items && holds(type.items)) || (type.values && holds(type.values))
      || (type.members || []).some(holds) || (type.cases || []).some((item) => (item.members || []).some(holds)));
    return this.schema.fields.some((field) => !field.writable && holds(field));
  }

  /**
   * The command Enter runs: the first that takes no argument, in the schema's order — on a form
   * with a one-line field of its own to press Enter in (tabbedApp's own fields are a select).
   */
  primaryCommand() {
    const typed = this.schema.fields.some((field) => field.writable && controlKind(field) === 'text');
    return typed ? this.schema.commands.find((command) => !command.args) || null : null;
  }

  /**
   * Enter in a one-line field runs the form's primary command (in a command's argument box: that
   * command), once the edits it sends are answered, so that `enabled` is the daemon's word on them.
   */
  async enter(event) {
    const target = event.target;
    if (event.key !== 'Enter' || event.isComposing || event.shiftKey || event.altKey || event.ctrlKey || event.metaKey) return;
    if (target.tagName !== 'INPUT' || target.closest('.child, section.form') !== this.element) return;
    event.preventDefault();
    const command = target.dataset.argsOf ? this.commands.get(target.dataset.argsOf).command : this.primaryCommand();
    if (!command) return;
    this.flushAll();
    await Promise.allSettled([...this.writing]);
    if (this.closed) return;
    if (this.model.enabled(command.name) && !this.model.running(command.name)) this.invoke(command.name);
    else this.app.announce(command.label + ' is not available now');
  }

  buildArgsPanel() {
    this.argsText = el('input', { type: 'text', 'data-args': '', placeholder: '{"name": "value"}  or  name=value', spellcheck: 'false' });
    this.argsMessage = el('p', { class: 'args-message' });
    const open = el('button', { type: 'submit', 'data-action': 'open' }, 'Open');
    const form = el('form', { class: 'args' }, this.argsMessage,
      el('label', {}, 'Arguments ', this.argsText), ' ', open);
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      const parsed = parseArgs(this.argsText.value);
      if (!parsed.ok) {
        this.argsMessage.textContent = parsed.error;
        return;
      }
      this.spec = { ...this.spec, args: parsed.value };
      this.app.openedArgs(this);
      this.open();
    });
    form.hidden = true;
    return form;
  }

  // Opening, recovering, closing.

  /**
   * Opens the session (session/open); `restore`: a snapshot to start from (form recovery), and
   * `written`: text the daemon took before (field -> text), which the snapshot leaves out.
   */
  async open(restore = null, written = {}) {
    this.setState('opening');
    const params = { type: this.schema.type };
    if (this.spec.key !== null) params.key = this.spec.key;
    if (this.spec.args) params.args = this.spec.args;
    if (restore) params.restore = restore;
    let result;
    try {
      result = await this.connection.request('session/open', params);
    } catch (error) {
      if (this.closed || error instanceof ConnectionLost) return;
      if (error.code === -32022 && restore) {
        this.open(null); // the snapshot no longer fits: start afresh
        return;
      }
      if (error.code === -32018) {
        this.argsPanel.hidden = false;
        this.argsMessage.textContent = error.message;
        if (!this.argsText.value && this.spec.args) this.argsText.value = JSON.stringify(this.spec.args);
        this.setState('needs-args');
        this.argsText.focus();
        return;
      }
      this.setState('error', error.message);
      return;
    }
    if (this.closed) {
      this.connection.request('session/close', { session: result.session }).catch(() => {});
      return;
    }
    this.argsPanel.hidden = true;
    this.body.disabled = false;
    this.model.dropRequests();
    const mirror = this.app.mirror;
    this.model.attach(mirror, mirror.take(result.session, { type: this.schema.type, ...result }).record);
    for (const child of this.children.values()) child.detached();
    this.children.clear();
    this.adopt(Object.keys(result.children || {}));
    this.drawAll();
    this.setState('open');
    this.element.dataset.session = String(result.session);
    // Edits the daemon never acknowledged (the connection went while they were on their way, and
    // a shared session was returned as it is): written again, as LiveView re-submits a form.
    // Text is the daemon's to read again, and the text it took before is written again too.
    for (const [name, edit] of [...this.edits]) {
      if (this.timers.has(name)) continue;
      if ('value' in edit.sent && sameText(this.model.state[name], edit.sent.value)) this.edits.delete(name);
      else this.send(name, edit.sent);
    }
    for (const [name, text] of Object.entries(written)) if (!this.edits.has(name)) this.send(name, { text });
  }

  /** After a reconnect (a new daemon client): opens the session again with what the form held. */
  recover() {
    for (const name of this.timers.keys()) this.takeEdit(name);
    const edits = {};
    for (const [name, edit] of this.edits) if ('value' in edit.sent) edits[name] = edit.sent.value;
    const restore = this.model.session === null ? null : this.model.snapshot(edits);
    this.open(restore, { ...this.model.written });
  }

  /** The connection is gone: requests in flight will not be answered. */
  disconnected(dead) {
    this.model.dropRequests();
    for (const name of this.commands.keys()) this.drawCommand(name);
    if (dead) {
      this.body.disabled = true;
      this.setState('dead', 'The daemon stopped: this form is no longer live.');
    } else if (this.element.dataset.state === 'open') {
      this.setState('offline', 'Reconnecting…');
    }
  }

  close() {
    this.closed = true;
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
    if (this.parent) return; // a child closes with its parent
    for (const child of this.children.values()) child.detached();
    this.children.clear();
    if (this.model.session !== null && this.connection.ready && this.element.dataset.state === 'open') {
      this.connection.request('session/close', { session: this.model.session }).catch(() => {});
    }
    this.element.remove();
  }

  // From the daemon.

  /** The view of session `id`: this form's, or a child's drawn in it. */
  sessionView(id) {
    if (this.model.session === id) return this;
    return this.children ? this.children.get(id) || null : null;
  }

  /** A didChange of this view's session, as the mirror folded it (mirror.js: `didChange`). */
  didChange(fold) {
    this.adopt([...fold.children, ...Object.keys(fold.retaken)]);
    // A list output edited by splices has its rows edited in place; anything else is drawn anew.
    const spliced = Object.keys(fold.splices).filter((name) => this.outputs.has(name));
    this.model.folded(Object.keys(fold.changes));
    this.draw(Object.keys(fold.changes).filter((name) => !spliced.includes(name)));
    for (const name of spliced) this.drawSplice(name, fold.splices[name].ops);
    this.detach(fold.detached);
    this.drawMeta();
  }

  /** A whole state the mirror took for this view's session (session/state): `taken` is mirror.js `take`'s. */
  took(taken) {
    this.adopt([...taken.children, ...Object.keys(taken.retaken)]);
    this.model.folded(taken.changed);
    this.draw(taken.changed);
    this.detach(taken.dropped);
    this.drawMeta();
  }

  /** Child sessions the mirror holds, shown for the first time, or again (a resync): by id. */
  adopt(ids) {
    const root = this.root;
    const fresh = [];
    for (const key of ids) {
      const id = Number(key);
      const record = this.app.mirror.sessions.get(id);
      if (!record) continue;
      const known = root.children.get(id);
      if (known) {
        known.model.attach(this.app.mirror, record);
        known.drawAll();
        continue;
      }
      const schema = root.childSchemas.get(record.type) || { type: record.type, fields: [], commands: [] };
      const child = new FormView(this.app, { type: record.type, key: null, args: null }, schema, this);
      child.model.attach(this.app.mirror, record);
      child.element.dataset.session = String(id);
      root.children.set(id, child);
      fresh.push(child);
    }
    for (const child of fresh) child.drawAll(); // all known first: a child's rows are among them
  }

  /** Child sessions the daemon closed: their blocks go. */
  detach(ids) {
    if (!ids) return;
    for (const id of ids) {
      const child = this.root.children.get(id);
      if (!child) continue;
      this.root.children.delete(id);
      child.detached();
    }
  }

  detached() {
    this.closed = true;
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
    this.element.dataset.state = 'closed';
    this.element.remove();
  }

  // Edits.

  schedule(name) {
    clearTimeout(this.timers.get(name));
    this.timers.set(name, setTimeout(() => this.flush(name), DEBOUNCE_MS));
  }

  /** Sends a field's pending edit now (its pause ended, it lost focus, or a button was pressed). */
  flush(name) {
    if (!this.timers.has(name)) return;
    this.write(name);
  }

  flushAll() {
    for (const name of [...this.timers.keys()]) this.flush(name);
  }

  /** Reads a control and sends it. */
  write(name) {
    const sent = this.takeEdit(name);
    if (this.connection.ready && this.element.dataset.state === 'open') this.send(name, sent);
  }

  /** What setField sends for a control, kept as an edit: `{text}` typed, or a control's `{value}`. */
  takeEdit(name) {
    clearTimeout(this.timers.get(name));
    this.timers.delete(name);
    const { field, control } = this.controls.get(name);
    let sent;
    if (control.type === 'checkbox') sent = { value: control.checked };
    else if (controlKind(field) === 'select') sent = { value: control.value === '' ? null : control.value };
    else sent = { text: control.value };
    this.edits.set(name, { sent, id: null });
    return sent;
  }

  send(name, sent) {
    const { id, promise } = this.connection.call('setField', { session: this.model.session, field: name, ...sent });
    this.model.beginWrite(id, name, sent);
    this.edits.set(name, { sent, id });
    this.writing.add(promise);
    promise.finally(() => this.writing.delete(promise)).catch(() => {});
    promise.then((result) => {
      this.settle(name, id);
      if (this.edits.get(name) === undefined) this.controls.get(name).error.textContent = '';
      const { changed, resync } = this.model.endWrite(id, { result });
      this.draw(changed);
      this.app.echo(this, name);
      if (resync) this.app.resync(this.model.session);
    }, (error) => {
      if (error instanceof ConnectionLost) return; // kept in edits: recovery sends it again
      this.settle(name, id);
      this.model.endWrite(id, { error });
      // The daemon's words beside the control, and announced; what was typed stays to be fixed.
      const { field, control, error: shown } = this.controls.get(name);
      shown.textContent = refusal(error);
      this.app.announce(field.label + ': ' + shown.textContent);
      if (control.type === 'checkbox' || controlKind(field) === 'select') this.draw([name]);
    });
  }

  settle(name, id) {
    const edit = this.edits.get(name);
    if (edit && edit.id === id) this.edits.delete(name);
  }

  // Commands and history.

  /** Invokes a command: with `args` (a row's value, as shown), else what its arguments box holds. */
  async invoke(name, args = undefined) {
    this.flushAll();
    const entry = this.commands.get(name);
    const params = { session: this.model.session, command: name };
    if (args !== undefined) {
      params.args = args;
    } else if (entry.command.args && !entry.args) {
      // Its argument is a row: the row's own button says which.
      const first = this.element.querySelector('button[data-row-command="' + name + '"]');
      this.model.outcomes[name] = { ok: false, error: { message: 'Pick a row: each has its own ' + entry.command.label + ' button' } };
      this.drawCommand(name);
      this.app.announce(this.model.outcomes[name].error.message);
      if (first) first.focus();
      return;
    } else if (entry.args && entry.args.value.trim() !== '') {
      params.text = entry.args.value; // the daemon reads it
    }
    const { id, promise } = this.connection.call('invoke', params);
    this.model.beginInvoke(id, name);
    this.drawCommand(name);
    let outcome;
    try {
      outcome = { ok: true, value: (await promise).result };
    } catch (error) {
      if (error instanceof ConnectionLost) return;
      outcome = { ok: false, error };
    }
    this.model.endInvoke(id, outcome);
    this.drawCommand(name);
    if (!this.closed) this.app.announce(entry.command.label + ': ' + this.commands.get(name).result.textContent);
  }

  cancel(name) {
    for (const [id, command] of this.model.invokes) {
      if (command === name) this.connection.notify('$/cancelRequest', { id });
    }
  }

  async history(method, word) {
    this.flushAll();
    const before = this.model.revision;
    this.historyNote.textContent = '';
    try {
      const result = await this.connection.request(method, { session: this.model.session });
      if (result.revision === before) this.historyNote.textContent = 'Nothing to ' + word;
      if (this.app.mirror.behind(this.model.session, result.revision)) this.app.resync(this.model.session);
    } catch (error) {
      if (!(error instanceof ConnectionLost)) this.historyNote.textContent = error.message;
    }
  }

  /** Another form on this same session wrote `name` (the daemon tells no client its own writes). */
  echoed(name, source) {
    if (this.model.pending(name)) return; // shows what was sent until it is answered
    delete this.model.written[name];
    if (name in source.written) this.model.written[name] = source.written[name];
    this.draw([name]);
  }

  // Drawing.

  drawAll() {
    this.draw(Object.keys(this.model.state));
    for (const name of this.commands.keys()) this.drawCommand(name);
    this.drawMeta();
  }

  draw(names) {
    const commands = new Set();
    for (const name of names) {
      if (this.controls.has(name)) this.drawControl(name);
      else if (this.outputs.has(name)) this.drawOutput(name);
      else if (/\.(enabled|running)$/.test(name)) commands.add(name.replace(/\.(enabled|running)$/, ''));
    }
    for (const name of commands) if (this.commands.has(name)) this.drawCommand(name);
  }

  drawMeta() {
    if (!this.meta) return; // a child's block has none
    const parts = ['session ' + this.model.session, 'revision ' + this.model.revision];
    this.meta.textContent = parts.join(' · ');
    this.element.dataset.revision = String(this.model.revision);
  }

  /** Puts the daemon's value in a control, unless the person has typed there since (an edit not yet sent). */
  drawControl(name) {
    if (this.timers.has(name)) return;
    const { field, control } = this.controls.get(name);
    const value = this.model.value(name);
    if (control.type === 'checkbox') {
      control.checked = value === true;
      return;
    }
    if (controlKind(field) === 'select') {
      control.value = value === null || value === undefined ? '' : value;
      return;
    }
    const text = this.model.text(name);
    if (control.value === text) return;
    const focused = document.activeElement === control;
    const start = focused ? control.selectionStart : null;
    const end = focused ? control.selectionEnd : null;
    control.value = text;
    if (focused && start !== null) {
      try {
        control.setSelectionRange(Math.min(start, text.length), Math.min(end, text.length));
      } catch (error) {
        // number inputs have no selection
      }
    }
  }

  drawOutput(name) {
    const { field, element, slot } = this.outputs.get(name);
    const value = this.model.state[name];
    if (slot) return this.drawChildren(field, slot, value);
    element.toggleAttribute('data-null', value === null);
    if (value === null || typeof value !== 'object') element.dataset.value = JSON.stringify(value);
    if (Array.isArray(value)) element.dataset.length = String(value.length);
    element.replaceChildren(valueNode(field, value, this.model.display[name], this.rows));
  }

  /** Applies splice ops to a list's rows in place: only the inserted and deleted rows change. */
  drawSplice(name, ops) {
    if (this.outputs.get(name).slot) return this.drawOutput(name); // rows: by session
    const { field, element } = this.outputs.get(name);
    const container = element.querySelector(':scope > table > tbody, :scope > ol');
    if (!container) {
      this.drawOutput(name);
      return;
    }
    const items = field.items;
    for (const op of ops) {
      for (let i = 0; i < op.delete; i++) container.children[op.at].remove();
      const before = container.children[op.at] || null;
      for (const value of op.insert) {
        const node = items.type === 'object' ? rowNode(items, value, this.rows) : el('li', {}, elementNode(items, value));
        container.insertBefore(node, before);
      }
    }
    element.dataset.length = String(this.model.state[name].length);
  }

  /**
   * A child member's value (`{session}`, null, or a list of them) as blocks: the child views are
   * moved, not rebuilt, so a row keeps its controls (and focus) when rows are inserted, removed
   * or reordered; a row's own changes redraw only that row.
   */
  drawChildren(field, slot, value) {
    const list = Array.isArray(value) ? value : (value ? [value] : []);
    const views = list.map((item) => item && this.root.children.get(item.session)).filter(Boolean);
    views.forEach((view, i) => {
      view.element.setAttribute('role', slot.getAttribute('role') === 'list' ? 'listitem' : 'group');
      if (slot.children[i] !== view.element) slot.insertBefore(view.element, slot.children[i] || null);
    });
    while (slot.children.length > views.length) slot.lastElementChild.remove();
    slot.dataset.length = String(views.length);
    slot.closest('[data-member]').toggleAttribute('data-null', list.length === 0);
  }

  drawCommand(name) {
    const { button, cancel, result } = this.commands.get(name);
    const running = this.model.running(name);
    button.disabled = running || !this.model.enabled(name);
    button.setAttribute('aria-busy', running ? 'true' : 'false');
    cancel.hidden = !running || ![...this.model.invokes.values()].includes(name);
    const outcome = this.model.outcomes[name];
    result.classList.toggle('error', outcome !== undefined && !outcome.ok);
    if (running) result.textContent = '';
    else if (outcome === undefined) result.textContent = '';
    else if (outcome.ok) result.textContent = outcome.value === null ? 'done' : '→ ' + inlineText(outcome.value);
    else result.textContent = refusal(outcome.error);
  }
}

function isChild(type) {
  return !!type && type.type === 'viewModel';
}

function isRows(field) {
  return field.type === 'array' && isChild(field.items);
}

/** The child view model types a schema shows (nested in it): typeName -> schema. */
function collectSchemas(schema, found) {
  for (const field of schema.fields || []) {
    const type = isRows(field) ? field.items : field;
    if (isChild(type) && type.schema && type.schema.fields && !found.has(type.typeName)) {
      found.set(type.typeName, type.schema);
      collectSchemas(type.schema, found);
    }
  }
  return found;
}

function sameText(a, b) {
  return JSON.stringify(a) === JSON.stringify(b);
}
