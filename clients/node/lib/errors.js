// Errors: one class per code the daemon documents, plus the client's own failures.
// Every class extends BinderyError, so one `instanceof` (or a look at `code`) covers them all.

/** Every error code of protocol.md, by name. */
export const ErrorCodes = Object.freeze({
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  UnknownType: -32010,
  UnknownSession: -32011,
  UnknownField: -32012,
  ReadOnlyField: -32013,
  WrongValueType: -32014,
  UnknownCommand: -32015,
  CommandDisabled: -32016,
  CommandFailed: -32017,
  OpenFailed: -32018,
  NeedsDeterministicMode: -32019,
  SchemaMismatch: -32021,
  SnapshotMismatch: -32022,
  StaleRevision: -32023,
  RequestCancelled: -32800,
});

/**
 * A JSON-RPC error from the daemon, or one the client raised with the code the daemon would send.
 * `code` is null for failures that have no JSON-RPC code (the daemon missing or gone).
 */
export class BinderyError extends Error {
  /**
   * @param {string} message
   * @param {{ code?: number | null, data?: unknown, method?: string, local?: boolean, cause?: unknown }} [options]
   */
  constructor(message, { code, data, method, local = false, cause } = {}) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = new.target.name;
    /** @type {number | null} */
    this.code = code ?? new.target.code ?? null;
    this.data = data;
    /** The method of the request that failed, when there was one. */
    this.method = method;
    /** True when the client refused the call itself, without asking the daemon. */
    this.local = local;
  }
}

// One subclass per documented code; `static code` is what the constructor fills in.

/** A body that was not JSON, or a frame the daemon could not read. */
export class ParseError extends BinderyError {
  static code = ErrorCodes.ParseError;
}

/** Not a JSON-RPC 2.0 request; a request after shutdown; `exit` sent with an id. */
export class InvalidRequestError extends BinderyError {
  static code = ErrorCodes.InvalidRequest;
}

/** A method the daemon does not have; `data.method` names it. */
export class MethodNotFoundError extends BinderyError {
  static code = ErrorCodes.MethodNotFound;
}

/** Params missing or of the wrong type, or `args` that do not fit a command. */
export class InvalidParamsError extends BinderyError {
  static code = ErrorCodes.InvalidParams;
}

/** A bug in the daemon. */
export class InternalError extends BinderyError {
  static code = ErrorCodes.InternalError;
}

/** A view model type that is not registered; `data.known` lists those that are. */
export class UnknownTypeError extends BinderyError {
  static code = ErrorCodes.UnknownType;
}

/** A session id never opened, or closed. */
export class UnknownSessionError extends BinderyError {
  static code = ErrorCodes.UnknownSession;
}

/** A name the type does not have; `data.known` lists those it has. */
export class UnknownFieldError extends BinderyError {
  static code = ErrorCodes.UnknownField;
}

/** `set` on an output or a command's state. */
export class ReadOnlyFieldError extends BinderyError {
  static code = ErrorCodes.ReadOnlyField;
}

/** A value that does not fit the field; `data.expected` names the type. */
export class WrongValueTypeError extends BinderyError {
  static code = ErrorCodes.WrongValueType;
}

/** A command the type does not have; `data.known` lists those it has. */
export class UnknownCommandError extends BinderyError {
  static code = ErrorCodes.UnknownCommand;
}

/** `invoke` while the command's enabled condition is false. */
export class CommandDisabledError extends BinderyError {
  static code = ErrorCodes.CommandDisabled;
}

/** The command threw; `data.detail` is what the view model added, if anything. */
export class CommandFailedError extends BinderyError {
  static code = ErrorCodes.CommandFailed;
}

/** The type refused `open`'s args, or the key is held by another type. */
export class OpenFailedError extends BinderyError {
  static code = ErrorCodes.OpenFailed;
}

/** `clock/advance` on a daemon started without --deterministic. */
export class NeedsDeterministicModeError extends BinderyError {
  static code = ErrorCodes.NeedsDeterministicMode;
}

/**
 * `session/open` with a `schemaHash` that is not the type's: the typed client was generated from
 * another version of the view model. `data` is `{type, schemaHash, expected}`; the message says to
 * regenerate.
 */
export class SchemaMismatchError extends BinderyError {
  static code = ErrorCodes.SchemaMismatch;

  constructor(message, options = {}) {
    const { data } = options;
    if (typeof data?.type === 'string') {
      message = `the daemon's \`${data.type}\` differs from the generated client (the daemon's schemaHash is `
        + `${data.schemaHash}, the client's ${data.expected}); regenerate with clients/codegen/bindery-codegen`;
    }
    super(message, options);
  }
}

/**
 * `session/open`'s `restore` does not fit the type: a snapshot of another type, or one with a field
 * the type no longer has, a field that is not writable, or a value the field no longer takes.
 * `data` is `{type, schemaHash, reason}`; nothing was opened.
 */
export class SnapshotMismatchError extends BinderyError {
  static code = ErrorCodes.SnapshotMismatch;
}

/**
 * `set` or `invoke` with an `expectedRevision` the session has moved on from (another client of a
 * shared session, a timer or a command changed it): nothing was written or run. `data` is
 * `{session, revision, expectedRevision, field, value}` (`command` instead of field and value for invoke).
 */
export class StaleRevisionError extends BinderyError {
  static code = ErrorCodes.StaleRevision;
}

/** The request was cancelled: by `$/cancelRequest`, or because its session closed. */
export class RequestCancelledError extends BinderyError {
  static code = ErrorCodes.RequestCancelled;
}

/** The request was cancelled by its AbortSignal; `cause` is the daemon's answer, if it sent one. */
export class AbortError extends RequestCancelledError {}

/** The request (or `waitUntil`) ran out of time; a request is cancelled like an aborted one. */
export class TimeoutError extends AbortError {
  constructor(message, options = {}) {
    super(message, options);
    /** The time limit, in milliseconds. */
    this.timeout = options.timeout;
  }
}

/** The session was closed (by this client or because the connection ended). */
export class SessionClosedError extends UnknownSessionError {}

/** No binderyd executable was found; `tried` lists every place looked at and why each failed. */
export class DaemonNotFoundError extends BinderyError {
  /** @param {string[]} tried */
  constructor(tried) {
    super(`binderyd not found. Tried:\n  ${tried.join('\n  ')}\n`
      + 'Install it: run `./scripts/install` in the Bindery repository (it builds binderyd and copies it to '
      + '~/.local/bin, where every client looks), or pass Client.spawn({ daemon: "/path/to/binderyd" }) '
      + 'or set BINDERYD=/path/to/binderyd.',
    { local: true });
    this.tried = tried;
  }
}

/** The connection ended (the input stream closed) while the client still needed it. */
export class ConnectionClosedError extends BinderyError {
  constructor(message = 'the connection to binderyd is closed', options = {}) {
    super(message, { local: true, ...options });
  }
}

/** A shared daemon's socket failed a check made before the first byte (socket-trust.js). */
export class UntrustedSocketError extends ConnectionClosedError {
  /**
   * @param {string} path
   * @param {string} reason
   */
  constructor(path, reason) {
    super(`refusing to talk to ${path}: ${reason}`);
    this.path = path;
    this.reason = reason;
  }
}

/** The daemon process ended; carries how it ended and the last lines it wrote to stderr. */
export class DaemonExitedError extends ConnectionClosedError {
  /**
   * @param {{ exitCode: number | null, signal: string | null, stderr: string[], where?: string }} info
   *   `where`: which daemon it was, for one the client did not spawn (a shared daemon's path, pid, log)
   * @param {{ cause?: unknown }} [options]
   */
  constructor({ exitCode, signal, stderr, where }, options = {}) {
    const how = signal ? `was killed by ${signal}` : `exited with code ${exitCode}`;
    const tail = stderr.length > 0 ? `; its last stderr lines:\n  ${stderr.join('\n  ')}` : '; it wrote nothing to stderr';
    super(`binderyd ${how}${where ? ` (${where})` : ''}${tail}`, options);
    this.exitCode = exitCode;
    this.signal = signal;
    /** The last lines (at most 20) the daemon wrote to stderr. */
    this.stderr = stderr;
  }
}

const byCode = new Map([
  ParseError, InvalidRequestError, MethodNotFoundError, InvalidParamsError, InternalError,
  UnknownTypeError, UnknownSessionError, UnknownFieldError, ReadOnlyFieldError, WrongValueTypeError,
  UnknownCommandError, CommandDisabledError, CommandFailedError, OpenFailedError,
  NeedsDeterministicModeError, SchemaMismatchError, SnapshotMismatchError, StaleRevisionError, RequestCancelledError,
].map((Class) => [Class.code, Class]));

/**
 * The error object of a JSON-RPC response as an instance of its class (BinderyError for codes
 * protocol.md does not list).
 * @param {{ code: number, message: string, data?: unknown }} error
 * @param {string} [method] the method of the request it answers
 * @returns {BinderyError}
 */
export function errorFromResponse(error, method) {
  const Class = byCode.get(error?.code);
  const message = typeof error?.message === 'string' ? error.message : 'unknown error';
  if (Class) return new Class(message, { data: error.data, method });
  return new BinderyError(message, { code: typeof error?.code === 'number' ? error.code : null, data: error?.data, method });
}
