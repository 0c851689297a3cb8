// Message framing: Content-Length (LSP) and newline-delimited JSON, on Buffers.
// Lengths are byte counts, never string lengths, and a chunk may hold part of a
// frame, several frames, or both: the decoder keeps what it has not used yet.

const CR = 0x0d;
const LF = 0x0a;
const MAX_HEADER_BYTES = 64 * 1024;

/** The framings binderyd speaks. */
export const Framing = Object.freeze({ ContentLength: 'content-length', Ndjson: 'ndjson' });

/** Raised (or passed to `onError`) for a header block that cannot be read. */
export class FramingError extends Error {
  constructor(message) {
    super(message);
    this.name = 'FramingError';
  }
}

/**
 * Frames one message body.
 * @param {string | Uint8Array} body JSON text, or its UTF-8 bytes
 * @param {'content-length' | 'ndjson'} [framing]
 * @returns {Buffer}
 */
export function encodeFrame(body, framing = Framing.ContentLength) {
  const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : Buffer.from(body);
  if (framing === Framing.Ndjson) return Buffer.concat([bytes, Buffer.from('\n')]);
  if (framing !== Framing.ContentLength) throw new TypeError(`unknown framing ${framing}`);
  // Only Content-Length: the one header every LSP peer needs and binderyd writes.
  return Buffer.concat([Buffer.from(`Content-Length: ${bytes.length}\r\n\r\n`, 'ascii'), bytes]);
}

/**
 * Splits a byte stream into message bodies.
 *
 * `push(chunk)` returns every body completed by the chunk, in order. A header block that cannot
 * be read is reported to `onError` (default: thrown after the good frames before it are kept)
 * and skipped; decoding resumes at the next block, as binderyd itself does.
 */
export class FrameDecoder {
  #onError;
  // Received bytes not yet used, as a list: a large body arriving in many chunks is joined
  // once, when complete, not once per chunk.
  #parts = [];
  #size = 0;
  #pending = null;
  // The body length of the frame being read, once its header block is parsed.
  #bodyLength = null;

  /**
   * @param {{ framing?: 'content-length' | 'ndjson', onError?: (error: FramingError) => void }} [options]
   */
  constructor({ framing = Framing.ContentLength, onError } = {}) {
    if (framing !== Framing.ContentLength && framing !== Framing.Ndjson) {
      throw new TypeError(`unknown framing ${framing}`);
    }
    this.framing = framing;
    this.#onError = onError ?? ((error) => { throw error; });
  }

  /** Bytes received but not yet part of a complete frame. */
  get bufferedBytes() {
    return this.#size;
  }

  /**
   * @param {Uint8Array} chunk
   * @returns {Buffer[]} the bodies this chunk completed
   */
  push(chunk) {
    const bytes = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk);
    this.#parts.push(bytes);
    this.#size += bytes.length;
    // Nothing can complete yet: a body still short of its length, or a line with no newline.
    if (this.#bodyLength !== null && this.#size < this.#bodyLength) return [];
    if (this.framing === Framing.Ndjson && !bytes.includes(LF)) return [];
    this.#pending = this.#join();
    const bodies = [];
    const errors = [];
    if (this.framing === Framing.Ndjson) this.#lines(bodies);
    else this.#frames(bodies, errors);
    this.#keep(this.#pending);
    for (const error of errors) this.#onError(error);
    return bodies;
  }

  /**
   * The end of the stream: an NDJSON line without its newline is still a message; bytes left
   * inside a Content-Length frame are an error.
   * @returns {Buffer[]}
   */
  end() {
    const rest = this.#join();
    this.#keep(Buffer.alloc(0));
    if (this.framing === Framing.Ndjson) {
      const line = trimLine(rest);
      return line.length > 0 && !isBlank(line) ? [line] : [];
    }
    if (rest.length > 0 && !isBlank(rest)) {
      this.#onError(new FramingError(`the stream ended inside a frame (${rest.length} bytes unread)`));
    }
    this.#bodyLength = null;
    return [];
  }

  #join() {
    return this.#parts.length === 1 ? this.#parts[0] : Buffer.concat(this.#parts, this.#size);
  }

  #keep(rest) {
    this.#parts = rest.length > 0 ? [rest] : [];
    this.#size = rest.length;
    this.#pending = null;
  }

  #lines(bodies) {
    let start = 0;
    let newline;
    while ((newline = this.#pending.indexOf(LF, start)) !== -1) {
      const line = trimLine(this.#pending.subarray(start, newline + 1));
      if (!isBlank(line)) bodies.push(Buffer.from(line));
      start = newline + 1;
    }
    this.#pending = this.#pending.subarray(start);
  }

  #frames(bodies, errors) {
    for (;;) {
      if (this.#bodyLength === null) {
        const header = findHeaderEnd(this.#pending);
        if (header === null) {
          if (this.#pending.length > MAX_HEADER_BYTES) {
            errors.push(new FramingError(`no end of header block in ${this.#pending.length} bytes`));
            this.#pending = Buffer.alloc(0);
          }
          return;
        }
        const text = this.#pending.subarray(0, header.start).toString('latin1');
        this.#pending = this.#pending.subarray(header.end);
        const length = parseHeaders(text);
        if (length instanceof FramingError) {
          errors.push(length);
          continue;
        }
        this.#bodyLength = length;
      }
      if (this.#pending.length < this.#bodyLength) return;
      bodies.push(Buffer.from(this.#pending.subarray(0, this.#bodyLength)));
      this.#pending = this.#pending.subarray(this.#bodyLength);
      this.#bodyLength = null;
    }
  }
}

// Where the header block ends: at "\r\n\r\n", or "\n\n" (accepted, as binderyd does).
// Leading blank lines between frames are skipped.
function findHeaderEnd(buffer) {
  let offset = 0;
  while (offset < buffer.length && (buffer[offset] === CR || buffer[offset] === LF)) offset += 1;
  for (let i = offset; i < buffer.length; i += 1) {
    if (buffer[i] !== LF) continue;
    if (buffer[i + 1] === LF) return { start: i, end: i + 2, offset };
    if (buffer[i + 1] === CR && buffer[i + 2] === LF) return { start: i, end: i + 3, offset };
  }
  return null;
}

// The Content-Length of a header block, or a FramingError saying why there is none.
function parseHeaders(text) {
  let length = null;
  for (const raw of text.split('\n')) {
    const line = raw.replace(/\r$/, '');
    if (line.trim() === '') continue;
    const colon = line.indexOf(':');
    if (colon === -1) return new FramingError(`a header line without a colon: ${JSON.stringify(line)}`);
    if (line.slice(0, colon).trim().toLowerCase() !== 'content-length') continue;
    const value = line.slice(colon + 1).trim();
    if (!/^\d+$/.test(value)) return new FramingError(`Content-Length is not a non-negative integer: ${JSON.stringify(value)}`);
    const parsed = Number(value);
    if (length !== null && length !== parsed) return new FramingError('two different Content-Length values');
    length = parsed;
  }
  return length ?? new FramingError('a header block without Content-Length');
}

function trimLine(bytes) {
  let end = bytes.length;
  if (end > 0 && bytes[end - 1] === LF) end -= 1;
  if (end > 0 && bytes[end - 1] === CR) end -= 1;
  return bytes.subarray(0, end);
}

function isBlank(bytes) {
  for (const byte of bytes) if (byte !== 0x20 && byte !== 0x09 && byte !== CR && byte !== LF) return false;
  return true;
}
