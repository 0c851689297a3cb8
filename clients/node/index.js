// bindery-client: the Node.js client of binderyd. Everything public is exported from here.
export { Client, VERSION, PROTOCOL_VERSION } from './lib/client.js';
export { Session } from './lib/session.js';
export { TypedSession } from './lib/typed.js';
export { encodeValue, decodeValue } from './lib/values.js';
export { Connection } from './lib/connection.js';
export { FrameDecoder, FramingError, Framing, encodeFrame } from './lib/framing.js';
export { findDaemon, repositoryBuildDirs } from './lib/discovery.js';
export { socketPath } from './lib/socket.js';
export {
  ErrorCodes, errorFromResponse,
  BinderyError, ParseError, InvalidRequestError, MethodNotFoundError, InvalidParamsError, InternalError,
  UnknownTypeError, UnknownSessionError, UnknownFieldError, ReadOnlyFieldError, WrongValueTypeError,
  UnknownCommandError, CommandDisabledError, CommandFailedError, OpenFailedError, NeedsDeterministicModeError,
  SchemaMismatchError, SnapshotMismatchError, StaleRevisionError, RequestCancelledError, AbortError, TimeoutError, SessionClosedError,
  DaemonNotFoundError, ConnectionClosedError, DaemonExitedError, UntrustedSocketError,
} from './lib/errors.js';
