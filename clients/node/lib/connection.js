// JSON-RPC 2.0 over a pair of byte streams: integer ids, pipelined requests, responses matched
// by id, notifications emitted in arrival order. Knows nothing of sessions.
import { EventEmitter } from 'node:events';
import { FrameDecoder, encodeFrame, Framing } from './framing.js';
import {
  AbortError, BinderyError, ConnectionClosedError, ErrorCodes, ParseError, TimeoutError, errorFromResponse,
} from './errors.js';

const DEFAULT_CANCEL_GRACE_MS = 2000;

/**
 * One JSON-RPC connection.
 *
 * Events: `notification` (method, params) for every notification, in order; `protocolError`
 * (error) for what cannot be matched to a request (an error with id null, an unknown id, a body
 * that is not JSON); `close` (error) once the input has ended and every pending request failed.
 */
export class Connection extends EventEmitter {
  #input;
  #output;
  #decoder;
  #nextId = 1;
  #pending = new Map();
  #cancelGrace;
  #closeError;
  #closing = null;
  #closedWith = null;

  /**
   * @param {object} options
   * @param {NodeJS.ReadableStream} options.input what the daemon writes (its stdout)
   * @param {NodeJS.WritableStream} options.output what the daemon reads (its stdin)
   * @param {'content-length' | 'ndjson'} [options.framing]
   * @param {number} [options.cancelGrace] ms to wait for the daemon's answer to a cancelled request
   * @param {() => Error | Promise<Error>} [options.closeError] the error pending requests fail
   *   with when the input ends (a spawned daemon's exit status, say)
   */
  constructor({ input, output, framing = Framing.ContentLength, cancelGrace = DEFAULT_CANCEL_GRACE_MS, closeError }) {
    super();
    if (!input || typeof input.on !== 'function') throw new TypeError('Connection needs a readable `input` stream');
    if (!output || typeof output.write !== 'function') throw new TypeError('Connection needs a writable `output` stream');
    this.#input = input;
    this.#output = output;
    this.framing = framing;
    this.#cancelGrace = cancelGrace;
    this.#closeError = closeError ?? (() => new ConnectionClosedError());
    this.#decoder = new FrameDecoder({
      framing,
      onError: (error) => this.emit('protocolError', new ParseError(`unreadable frame from the daemon: ${error.message}`, { local: true })),
    });
    input.on('data', (chunk) => this.#receive(this.#decoder.push(chunk)));
    input.on('end', () => {
      this.#receive(this.#decoder.end());
      this.#shutdown();
    });
    input.on('close', () => this.#shutdown());
    input.on('error', (error) => this.#shutdown(error));
    // A daemon that died makes writes fail (EPIPE): the input's end reports it, with its status.
    output.on('error', (error) => this.#shutdown(error));
  }

  /** Whether the connection has ended (no request can be sent any more). */
  get closed() {
    return this.#closing !== null;
  }

  /** Requests sent and not yet answered. */
  get pendingCount() {
    return this.#pending.size;
  }

  /**
   * Sends a request; returns its id (for `$/cancelRequest`, `cause`) and the promise of its result.
   * `onResponse` runs synchronously when a successful response is read, before any later
   * message is handled: the place for state that must be current before the next message.
   * @param {string} method
   * @param {object | unknown[]} [params]
   * @param {{ signal?: AbortSignal, timeout?: number, onResponse?: (result: any) => void }} [options]
   * @returns {{ id: number, promise: Promise<any> }}
   */
  startRequest(method, params, { signal, timeout, onResponse } = {}) {
    const id = this.#nextId++;
    if (this.#closing) return { id, promise: this.#closing.then((error) => { throw error; }) };
    if (!this.#writable()) {
      return { id, promise: Promise.reject(new ConnectionClosedError('the output stream is closed: no more requests', { method })) };
    }
    if (signal?.aborted) {
      return { id, promise: Promise.reject(cancelError({ kind: 'abort', reason: signal.reason }, method)) };
    }
    let frame;
    try {
      frame = this.#frame(params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params });
    } catch (error) {
      return { id, promise: Promise.reject(error) }; // a BigInt or a cycle in params: nothing sent
    }
    const entry = { id, method, onResponse, settled: false, cancel: null, timers: [], detach: null };
    const promise = new Promise((resolve, reject) => {
      entry.resolve = resolve;
      entry.reject = reject;
    });
    this.#pending.set(id, entry);
    if (signal) {
      const onAbort = () => this.#cancel(entry, { kind: 'abort', reason: signal.reason });
      signal.addEventListener('abort', onAbort, { once: true });
      entry.detach = () => signal.removeEventListener('abort', onAbort);
    }
    if (timeout !== undefined && timeout !== null) {
      entry.timers.push(setTimeout(() => this.#cancel(entry, { kind: 'timeout', timeout }), timeout));
    }
    this.#output.write(frame);
    return { id, promise };
  }

  /**
   * Sends a request and resolves with its result; rejects with a BinderyError.
   * @param {string} method
   * @param {object | unknown[]} [params]
   * @param {{ signal?: AbortSignal, timeout?: number, onResponse?: (result: any) => void }} [options]
   */
  request(method, params, options) {
    return this.startRequest(method, params, options).promise;
  }

  /**
   * Sends a notification (never answered). Does nothing once the connection is closed.
   * @param {string} method
   * @param {object | unknown[]} [params]
   */
  notify(method, params) {
    if (this.#closing || !this.#writable()) return;
    this.#write(params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params });
  }

  /** Ends the output stream: the daemon reads end of input, answers what it has, and exits. */
  endOutput() {
    if (!this.#output.writableEnded) this.#output.end();
  }

  /**
   * Fails every pending request with `error` (they reject at once, in id order) and refuses new ones.
   * @param {Error} [error]
   */
  close(error = new ConnectionClosedError()) {
    this.#finish(error);
  }

  #writable() {
    return !this.#output.writableEnded && !this.#output.destroyed;
  }

  #frame(message) {
    return encodeFrame(JSON.stringify(message), this.framing);
  }

  #write(message) {
    this.#output.write(this.#frame(message));
  }

  // Asks the daemon to cancel, then waits (a bounded time) for its answer: the changes the
  // cancellation caused come before that answer, so state is current when the promise rejects.
  #cancel(entry, why) {
    if (entry.settled || entry.cancel) return;
    entry.cancel = why;
    this.notify('$/cancelRequest', { id: entry.id });
    entry.timers.push(setTimeout(() => this.#settle(entry, null, null), this.#cancelGrace));
  }

  #settle(entry, error, result) {
    if (entry.settled) return;
    entry.settled = true;
    for (const timer of entry.timers) clearTimeout(timer);
    entry.detach?.();
    if (entry.cancel) entry.reject(cancelError(entry.cancel, entry.method, error));
    else if (error) entry.reject(error);
    else entry.resolve(result);
  }

  #receive(bodies) {
    for (const body of bodies) {
      let message;
      try {
        message = JSON.parse(body.toString('utf8'));
      } catch (error) {
        this.emit('protocolError', new ParseError(`the daemon sent a body that is not JSON: ${error.message}`, { local: true }));
        continue;
      }
      // A throwing listener must not stop the messages after it: report it as Node would, later.
      try {
        if (Array.isArray(message)) for (const element of message) this.#dispatch(element);
        else this.#dispatch(message);
      } catch (error) {
        process.nextTick(() => { throw error; });
      }
    }
  }

  #dispatch(message) {
    if (message === null || typeof message !== 'object' || message.jsonrpc !== '2.0') {
      this.emit('protocolError', new BinderyError(`not a JSON-RPC 2.0 message: ${JSON.stringify(message)}`, { local: true }));
      return;
    }
    if (typeof message.method === 'string') {
      if (message.id === undefined) {
        this.emit('notification', message.method, message.params);
      } else {
        // binderyd sends no requests; answer as JSON-RPC asks rather than leave a peer waiting.
        this.#write({
          jsonrpc: '2.0', id: message.id,
          error: { code: ErrorCodes.MethodNotFound, message: `Method not found: this client serves no requests (${message.method})` },
        });
      }
      return;
    }
    const entry = this.#pending.get(message.id);
    if (!entry) {
      const error = message.error
        ? errorFromResponse(message.error)
        : new BinderyError(`a response to an unknown request id ${JSON.stringify(message.id)}`, { local: true });
      this.emit('protocolError', error);
      return;
    }
    this.#pending.delete(message.id);
    if (message.error) {
      this.#settle(entry, errorFromResponse(message.error, entry.method), null);
      return;
    }
    try {
      entry.onResponse?.(message.result);
    } finally {
      this.#settle(entry, null, message.result);
    }
  }

  // The input ended or a stream failed: find out why (a spawned daemon's exit status), then fail
  // everything still pending with that error.
  #shutdown(streamError) {
    if (this.#closing) return;
    this.#closing = (async () => {
      let error;
      try {
        error = await this.#closeError(streamError);
      } catch (failure) {
        error = failure;
      }
      if (!(error instanceof Error)) error = new ConnectionClosedError(undefined, { cause: streamError });
      this.#finish(error);
      return error;
    })();
  }

  #finish(error) {
    if (this.#closedWith) return;
    this.#closedWith = error;
    if (!this.#closing) this.#closing = Promise.resolve(error);
    const entries = [...this.#pending.values()];
    this.#pending.clear();
    for (const entry of entries) {
      entry.cancel = null; // the connection is gone: say so, not "aborted"
      this.#settle(entry, error, null);
    }
    this.emit('close', error);
  }
}

function cancelError(why, method, answer) {
  const options = { method, cause: answer ?? why.reason };
  if (why.kind === 'timeout') return new TimeoutError(`${method} timed out after ${why.timeout} ms`, { ...options, timeout: why.timeout });
  if (why.reason?.name === 'TimeoutError') return new TimeoutError(`${method} timed out (its signal's timeout)`, options);
  return new AbortError(`${method} was aborted`, options);
}
