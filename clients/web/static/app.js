// The page: its connection, the route (`#/TYPE`, `#/TYPE/KEY`, `?args`, several forms joined by
// `+`), the list of types, the status line, and recovery after a reconnect.

import { Connection, keepToken } from './connection.js';
import { Mirror } from './mirror.js';
import { Recorder, download } from './record.js';
import { showClock } from './clock.js';
import { FormView } from './form.js';
import { parseArgs } from './values.js';

const main = document.getElementById('main');
const status = document.getElementById('status');
const statusText = document.getElementById('status-text');
const reconnect = document.getElementById('reconnect');
const announcer = document.getElementById('announce');

const app = {
  connection: null,
  mirror: new Mirror(), // the client mirror (mirror.js): a new one for each daemon connection
  schemas: new Map(),
  forms: [],
  route: null,
  connectedOnce: false,
  shown: 0, // routes shown so far
  openedArgs,
  echo,
  announce,
  resync,
};
window.binderyWeb = app; // for a person at the console (and the tests, which read it only)

/** The forms a hash asks for: `[{type, key, args}]`; none for the list of types. */
export function parseRoute(hash) {
  const path = hash.replace(/^#\/?/, '');
  if (path === '') return [];
  return path.split('+').map((part) => {
    const mark = part.indexOf('?');
    const where = mark < 0 ? part : part.slice(0, mark);
    const query = mark < 0 ? '' : part.slice(mark + 1);
    const [type, ...rest] = where.split('/');
    const spec = { type: decodeURIComponent(type), key: rest.length > 0 ? decodeURIComponent(rest.join('/')) : null, args: null };
    if (query !== '') {
      const text = /^(%7B|\{)/i.test(query) ? decodeURIComponent(query) : query;
      const parsed = parseArgs(text);
      if (!parsed.ok) throw new Error('arguments in the address: ' + parsed.error);
      spec.args = parsed.value;
    }
    return spec;
  });
}

export function hashFor(spec) {
  let part = encodeURIComponent(spec.type);
  if (spec.key !== null) part += '/' + encodeURIComponent(spec.key);
  if (spec.args && Object.keys(spec.args).length > 0) {
    const simple = Object.values(spec.args).every((value) => typeof value === 'string');
    part += '?' + (simple ? new URLSearchParams(spec.args).toString() : encodeURIComponent(JSON.stringify(spec.args)));
  }
  return part;
}

/** A form opened with arguments typed into it: the address says so (no new history entry). */
function openedArgs() {
  const hash = '#/' + app.forms.map((form) => hashFor(form.spec)).join('+');
  app.route = hash;
  history.replaceState(null, '', location.pathname + location.search + hash);
}

/** A form's write was stored: other forms of the same session (a key shown twice) show it too. */
function echo(source, name) {
  for (const form of app.forms) {
    if (form !== source && form.model.session === source.model.session && form.element.dataset.state === 'open') {
      form.echoed(name, source.model);
    }
  }
}

/** Says `text` to a screen reader (the live region): a command's result or error. */
function announce(text) {
  // Emptied first: the same words twice in a row are read twice.
  announcer.textContent = '';
  requestAnimationFrame(() => { announcer.textContent = text; });
}

function setStatus(state, text) {
  status.dataset.state = state;
  statusText.textContent = text;
  reconnect.hidden = state !== 'dead';
}

// The route.

function show() {
  if (app.route === location.hash) return;
  app.route = location.hash;
  app.shown += 1;
  for (const form of app.forms) form.close();
  app.forms = [];
  main.replaceChildren();
  let specs;
  try {
    specs = parseRoute(location.hash);
  } catch (error) {
    main.append(paragraph('error', error.message));
    return;
  }
  if (specs.length === 0) {
    main.append(typeList());
    document.title = 'Bindery';
    return;
  }
  for (const spec of specs) {
    const schema = app.schemas.get(spec.type);
    if (!schema) {
      main.append(paragraph('error', 'Unknown view model type "' + spec.type + '"; known: ' + [...app.schemas.keys()].join(', ')));
      continue;
    }
    const form = new FormView(app, spec, schema);
    app.forms.push(form);
    main.append(form.element);
    form.open();
  }
  document.title = specs.map((spec) => spec.type).join(' + ') + ' — Bindery';
  const first = main.querySelector('input, select, textarea');
  if (first) first.focus();
}

function paragraph(kind, text) {
  const p = document.createElement('p');
  p.className = kind;
  p.textContent = text;
  return p;
}

function typeList() {
  const nav = document.createElement('nav');
  nav.id = 'types';
  const heading = document.createElement('h2');
  heading.textContent = 'View model types';
  const list = document.createElement('ul');
  for (const schema of app.schemas.values()) {
    const item = document.createElement('li');
    const link = document.createElement('a');
    link.href = '#/' + encodeURIComponent(schema.type);
    link.textContent = schema.type;
    link.dataset.type = schema.type;
    const fields = schema.fields.map((field) => field.name);
    const commands = schema.commands.map((command) => command.name + '()');
    const summary = document.createElement('span');
    summary.className = 'summary';
    summary.textContent = [...fields, ...commands].join(', ');
    item.append(link, ' ', summary);
    list.append(item);
  }
  // A keyed session: shared with every other client that opens this type with this key.
  const form = document.createElement('form');
  form.className = 'keyed';
  const select = document.createElement('select');
  select.setAttribute('aria-label', 'type');
  for (const type of app.schemas.keys()) select.append(new Option(type, type));
  const key = document.createElement('input');
  key.placeholder = 'key';
  key.setAttribute('aria-label', 'key');
  const open = document.createElement('button');
  open.textContent = 'Open keyed';
  form.append('Open ', select, ' with key ', key, ' ', open);
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    location.hash = '#/' + hashFor({ type: select.value, key: key.value === '' ? null : key.value, args: null });
  });
  nav.append(heading, list, form);
  return nav;
}

// The connection.

async function ready(hello) {
  app.recorder.connected(hello.daemon);
  setStatus('connecting', 'Connected; initializing…');
  let result;
  try {
    result = await app.connection.request('initialize', {
      clientInfo: { name: 'bindery-web' },
      // display: the daemon's text for every value (values.js); clock: agreed on a virtual clock (clock.js)
      capabilities: { splices: true, display: true, clock: true },
    });
  } catch (error) {
    setStatus('error', 'initialize failed: ' + error.message);
    return;
  }
  app.schemas = new Map(result.viewModels.map((schema) => [schema.type, schema]));
  showClock(app.connection, result.capabilities);
  app.mirror = new Mirror(); // a new daemon client: no sessions yet (recovery opens them again)
  setStatus('live', 'Live: ' + result.serverInfo.name + ' ' + result.serverInfo.version + ' (' + hello.daemon + ')');
  if (app.connectedOnce && app.route === location.hash) {
    for (const form of app.forms) form.recover(); // form recovery: reopen with what each form held
  } else {
    app.route = null;
    show();
  }
  app.connectedOnce = true;
}

/** The views of session `id` in every open form (its own session, or a child drawn in it). */
function views(id) {
  return app.forms.map((form) => (form.element.dataset.state === 'open' ? form.sessionView(id) : null)).filter(Boolean);
}

function notification(method, params) {
  if (method !== 'didChange') return;
  const fold = app.mirror.didChange(params);
  if (fold === null) return; // not held, or out of step until its session/state answers
  if (fold.resync) resync(fold.id);
  else for (const view of views(fold.id)) view.didChange(fold);
}

/** A session out of step (a lost didChange, a splice that did not fit): its whole state, once. */
const resyncing = new Set();
async function resync(id) {
  if (resyncing.has(id)) return;
  resyncing.add(id);
  const mirror = app.mirror;
  try {
    const result = await app.connection.request('session/state', { session: id });
    if (mirror !== app.mirror) return; // another connection since: recovery reopens
    const taken = mirror.take(id, result);
    for (const view of views(id)) view.took(taken);
  } catch (error) {
    // the connection went: recovery reopens
  } finally {
    resyncing.delete(id);
  }
}

function lost(delay) {
  for (const form of app.forms) form.disconnected(false);
  setStatus('offline', 'bindery-web is not answering; reconnecting in ' + (delay / 1000) + ' s…');
}

function exited(info, delay) {
  for (const form of app.forms) form.disconnected(true);
  const tail = info.stderr.length > 0 ? ': ' + info.stderr[info.stderr.length - 1] : '';
  const how = info.code === null ? '' : info.code < 0 ? ' (signal ' + -info.code + ')' : ' (exit code ' + info.code + ')';
  setStatus('dead', 'The daemon stopped' + how + tail + '; reconnecting in ' + (delay / 1000) + ' s…');
}

function refused(text) {
  setStatus('refused', 'bindery-web refused this page (' + text.trim() + '). Open the URL it printed.');
}

// Start: the token leaves the address bar for this origin's storage (connection.js), the hash stays.
const given = new URLSearchParams(location.search).get('token');
if (given !== null) {
  keepToken(given);
  history.replaceState(null, '', location.pathname + location.hash);
}
// The Record button: start, then stop and download (record.js): the connection's exchange from its
// start, so that the form's opening is in it. Stopping waits (up to 2 s) for the answers to
// requests already sent, so the recording ends with them.
app.recorder = new Recorder();
const recordButton = document.getElementById('record');
recordButton.addEventListener('click', async () => {
  if (!app.recorder.recording) {
    app.recorder.start();
    recordButton.textContent = 'Stop and download';
    recordButton.dataset.state = 'recording';
    announce('Recording');
    return;
  }
  for (let waited = 0; app.recorder.unanswered() && waited < 2000; waited += 20) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const type = (app.route || '').replace(/^#\//, '').split(/[/?]/)[0] || 'session';
  if (app.recorder.lost) announce('The recording lost its start (too long): load the page again and record afresh');
  download(type + '.jsonl', app.recorder.stop());
  recordButton.textContent = 'Record';
  delete recordButton.dataset.state;
  announce('Recording downloaded');
});
app.connection = new Connection({ ready, notification, lost, exited, refused, tap: (d, t) => app.recorder.tap(d, t) });
window.addEventListener('hashchange', () => {
  if (app.connection.ready) show();
});
reconnect.addEventListener('click', () => {
  setStatus('connecting', 'Starting a new daemon connection…');
  app.connection.start();
});
setStatus('connecting', 'Connecting…');
app.connection.start();
