// A scripted peer over in-memory streams, for what a real daemon never does on cue
// (lost messages, stored values that differ from the written ones, odd frames).
import { PassThrough } from 'node:stream';
import { FrameDecoder, encodeFrame } from '../index.js';

export const THING_SCHEMA = {
  type: 'thing',
  fields: [
    { name: 'name', label: 'Name', type: 'string', nullable: false, writable: true },
    { name: 'upper', label: 'Upper', type: 'string', nullable: false, writable: false },
  ],
  commands: [{ name: 'go', label: 'Go', async: true, hasEnabledCondition: false }],
};

export class FakeDaemon {
  constructor() {
    /** What the client reads (the daemon's stdout). */
    this.toClient = new PassThrough();
    /** What the client writes (the daemon's stdin). */
    this.fromClient = new PassThrough();
    this.received = [];
    this.waiters = [];
    const decoder = new FrameDecoder();
    this.fromClient.on('data', (chunk) => {
      for (const body of decoder.push(chunk)) {
        this.received.push(JSON.parse(body.toString('utf8')));
        this.waiters.shift()?.();
      }
    });
  }

  /** The next message the client sent. */
  async next() {
    while (this.received.length === 0) await new Promise((resolve) => this.waiters.push(resolve));
    return this.received.shift();
  }

  send(message) {
    this.toClient.write(encodeFrame(JSON.stringify(message)));
  }

  /** Writes these bytes one at a time: the client must reassemble frames from any split. */
  sendBytewise(messages) {
    const bytes = Buffer.concat(messages.map((message) => encodeFrame(JSON.stringify(message))));
    for (const byte of bytes) this.toClient.write(Buffer.from([byte]));
  }

  respond(request, result) {
    this.send({ jsonrpc: '2.0', id: request.id, result });
  }

  didChange(session, revision, changes, cause, splices) {
    const params = { session, revision, changes };
    if (splices !== undefined) params.splices = splices;
    if (cause !== undefined) params.cause = cause;
    this.send({ jsonrpc: '2.0', method: 'didChange', params });
  }

  /** Answers initialize and session/open for one `thing` (of `schema`'s type). */
  async openThing(client, state = { name: '', upper: '', 'go.enabled': true, 'go.running': false }, schema = THING_SCHEMA) {
    const opening = client.open(schema.type);
    const initialize = await this.next();
    this.respond(initialize, { protocolVersion: 1, serverInfo: { name: 'fake', version: '0' }, viewModels: [schema] });
    const open = await this.next();
    this.respond(open, { session: 1, revision: 0, state });
    return opening;
  }
}
