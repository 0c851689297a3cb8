// The page's one connection to a daemon, through bindery-web: an EventSource stream (GET /events)
// brings everything the daemon writes; the page's messages go out as POST /rpc, one at a time and
// in order (each POST carries every message queued meanwhile, one JSON text a line). Each stream
// is a daemon client of its own: a new stream (a reconnect) is a new client, with no sessions.
//
// Every request carries the token bindery-web printed in its URL, kept in this origin's
// localStorage (scheme, host and port: no other server on 127.0.0.1 can read it, unlike a cookie,
// which a browser sends to every port of a host), so a reload or a new tab of this bridge finds
// it: fetches send it as an X-Bindery-Token header, the EventSource (which cannot send headers)
// in its URL, to this origin only.
const TOKEN_KEY = 'bindery-web-token';
let tokenInMemory = null; // when storage is refused (a private window's policy)

/** Keeps the token of the URL the page was opened with (app.js takes it out of the address). */
export function keepToken(token) {
  tokenInMemory = token;
  try {
    localStorage.setItem(TOKEN_KEY, token);
  } catch (error) {
    // storage refused: this tab keeps it in memory
  }
}

function token() {
  try {
    return localStorage.getItem(TOKEN_KEY) ?? tokenInMemory ?? '';
  } catch (error) {
    return tokenInMemory ?? '';
  }
}

export class RpcError extends Error {
  constructor(error) {
    super(error.message);
    this.code = error.code;
    this.data = error.data;
  }
}

/** The connection ended (the bridge went away, or the daemon stopped) before the answer came. */
export class ConnectionLost extends Error {
  constructor(why) {
    super(why);
    this.code = 'lost';
  }
}

const BACKOFF_MS = [250, 500, 1000, 2000, 4000, 5000];

export class Connection {
  /**
   * `handlers`: `ready(hello)` once a new stream is up, `notification(method, params)`,
   * `lost(delayMs)` when the stream broke (a reconnect is scheduled), `exited({code, stderr},
   * delayMs)` when the daemon ended (a reconnect is scheduled too; `start()` reconnects at
   * once), `refused(text)` when bindery-web refuses the page (its token is not this bridge's);
   * optionally `tap(direction, text)`, every body sent ('in') and received ('out').
   */
  constructor(handlers) {
    this.handlers = handlers;
    this.nextId = 1;
    this.pending = new Map();
    this.outbox = [];
    this.posting = false;
    this.conn = null;
    this.source = null;
    this.attempt = 0;
    this.timer = null;
    this.starting = false;
  }

  get ready() {
    return this.conn !== null;
  }

  /** Connects (again): checks the bridge answers and accepts the page, then opens the stream. */
  async start() {
    clearTimeout(this.timer);
    this.timer = null;
    if (this.source !== null || this.starting) return; // one stream at a time
    this.starting = true;
    try {
      await this.open();
    } finally {
      this.starting = false;
    }
  }

  async open() {
    let response;
    try {
      response = await fetch('ping', { cache: 'no-store', credentials: 'omit', headers: { 'X-Bindery-Token': token() } });
    } catch (error) {
      this.retry();
      return;
    }
    if (response.status === 403) {
      this.handlers.refused(await response.text());
      return;
    }
    if (!response.ok) {
      this.retry();
      return;
    }
    const source = new EventSource('events?token=' + encodeURIComponent(token()));
    this.source = source;
    source.addEventListener('hello', (event) => {
      const hello = JSON.parse(event.data);
      this.attempt = 0;
      this.conn = hello.conn;
      this.handlers.ready(hello);
      this.pump();
    });
    source.addEventListener('message', (event) => {
      if (this.handlers.tap) this.handlers.tap('out', event.data); // the Record button (record.js)
      this.receive(JSON.parse(event.data));
    });
    source.addEventListener('exit', (event) => {
      this.drop(source, 'the daemon stopped');
      // A new stream starts a new daemon client (`--remote` starts a daemon if none answers):
      // after a second at least, backing off, so a daemon that cannot start is not hammered.
      this.attempt = Math.max(this.attempt, 2);
      const delay = this.nextDelay();
      this.handlers.exited(JSON.parse(event.data), delay);
      this.timer = setTimeout(() => this.start(), delay);
    });
    source.addEventListener('error', () => {
      if (this.source !== source) return;
      this.drop(source, 'the connection to bindery-web was lost');
      this.retry();
    });
  }

  nextDelay() {
    const delay = BACKOFF_MS[Math.min(this.attempt, BACKOFF_MS.length - 1)];
    this.attempt += 1;
    return delay;
  }

  retry() {
    const delay = this.nextDelay();
    this.handlers.lost(delay);
    this.timer = setTimeout(() => this.start(), delay);
  }

  /** Ends the stream and fails every request still waiting for its answer. */
  drop(source, why) {
    source.close();
    if (this.source === source) this.source = null;
    this.conn = null;
    this.outbox = [];
    const pending = [...this.pending.values()];
    this.pending.clear();
    for (const { reject } of pending) reject(new ConnectionLost(why));
  }

  /** Sends a request: `{id, promise}`, the promise settled by its response (RpcError on error). */
  call(method, params) {
    const id = this.nextId++;
    const promise = new Promise((resolve, reject) => {
      if (!this.ready) {
        reject(new ConnectionLost('not connected'));
        return;
      }
      this.pending.set(id, { resolve, reject });
      this.send({ jsonrpc: '2.0', id, method, params });
    });
    return { id, promise };
  }

  request(method, params) {
    return this.call(method, params).promise;
  }

  notify(method, params) {
    if (this.ready) this.send({ jsonrpc: '2.0', method, params });
  }

  send(message) {
    const text = JSON.stringify(message);
    if (this.handlers.tap) this.handlers.tap('in', text);
    this.outbox.push(text);
    this.pump();
  }

  async pump() {
    if (this.posting || !this.ready || this.outbox.length === 0) return;
    const conn = this.conn;
    const body = this.outbox.join('\n');
    this.outbox = [];
    this.posting = true;
    let ok = false;
    try {
      const response = await fetch('rpc?conn=' + encodeURIComponent(conn), {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'X-Bindery-Token': token() },
        body,
        credentials: 'omit',
        cache: 'no-store',
      });
      ok = response.ok;
    } catch (error) {
      ok = false;
    }
    this.posting = false;
    // A POST that failed means the stream is ending too: its error event reconnects.
    if (ok) this.pump();
  }

  receive(message) {
    if (Array.isArray(message)) {
      for (const element of message) this.receive(element);
      return;
    }
    if (message.method !== undefined) {
      this.handlers.notification(message.method, message.params || {});
      return;
    }
    const waiting = this.pending.get(message.id);
    if (!waiting) return;
    this.pending.delete(message.id);
    if (message.error) waiting.reject(new RpcError(message.error));
    else waiting.resolve(message.result);
  }
}
