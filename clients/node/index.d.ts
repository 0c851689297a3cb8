// Hand-written typings of bindery-client; test/exports.test.js keeps them in step with index.js.
import { EventEmitter } from 'node:events';
import type { ChildProcess } from 'node:child_process';

// ---------------------------------------------------------------------------------------------
// Protocol shapes

/** A JSON value, as the daemon sends it. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/**
 * A value a script may pass to `set`, `invoke` and `open`: JSON, or native values the client encodes
 * by the schema's forms (protocol.md, "Value types"): a Date as ISO 8601 in UTC, a Uint8Array (or
 * ArrayBuffer, DataView) as base64, a Set as an array, a Map as an object, a bigint as an exact
 * decimal string where a Decimal is expected (else a number).
 */
export type NativeValue =
  | JsonValue | Date | Uint8Array | ArrayBuffer | DataView | bigint | undefined
  | ReadonlySet<NativeValue> | ReadonlyMap<string | number, NativeValue>
  | readonly NativeValue[] | { readonly [key: string]: NativeValue };

/** What `value`, `values` and `invoke(..., { native: true })` give: JSON with Date, Uint8Array and Set. */
export type DecodedValue =
  | null | boolean | number | string | Date | Uint8Array | Set<DecodedValue> | DecodedValue[]
  | { [key: string]: DecodedValue };

/** A member of an `object` type, or of a `union`'s case. */
export type MemberType = ValueType & { name: string; optional: boolean };

/** A member's value type in a schema (protocol.md, "Value types"). */
export interface ValueType {
  type: 'string' | 'boolean' | 'integer' | 'number' | 'enum' | 'array' | 'object' | 'dictionary' | 'union' | 'any'
    | 'viewModel';
  nullable: boolean;
  /**
   * What a `string` or `array` stands for: `date-time`, `uuid`, `uri`, `decimal`, `byte`, `error`,
   * `index-set`.
   */
  format?: string;
  /** The raw values of an `enum`; the cases of a `union`. */
  cases?: string[] | Array<{ name: string; members: MemberType[] }>;
  /** The element type of an `array`. */
  items?: ValueType;
  /** An `array` whose elements are unique (a Swift Set, an IndexSet). */
  uniqueItems?: boolean;
  /** The value type of a `dictionary`. */
  values?: ValueType;
  /** The Swift name of an `object` (a struct), a `union` (an enum with payloads) or a `viewModel`. */
  typeName?: string;
  /**
   * A `viewModel` (a child view model) type's own schema, nested; a type that contains itself is
   * described inside itself by `{type: name}` only.
   */
  schema?: Schema | { type: string };
  /** The members of an `object`, in decoding order; an `optional` one is left out when it has no value. */
  members?: MemberType[];
}

/** A field (`writable: true`) or an output (`writable: false`) of a schema. */
export interface FieldSchema extends ValueType {
  name: string;
  label: string;
  writable: boolean;
}

export interface CommandSchema {
  name: string;
  label: string;
  async: boolean;
  hasEnabledCondition: boolean;
  /** The argument type of a command that takes arguments. */
  args?: ValueType;
  /** The result type of a command that returns a value. */
  result?: ValueType;
}

/** One view model type: what `initialize` and `viewModels/describe` return. */
export interface Schema {
  type: string;
  fields: FieldSchema[];
  commands: CommandSchema[];
  /** 16 hex digits; changes whenever the type's schema does. */
  schemaHash: string;
}

export interface InitializeResult {
  protocolVersion: number;
  serverInfo: { name: string; version: string };
  viewModels: Schema[];
  /** The capabilities the daemon agreed to, when the params asked for some. */
  capabilities?: Capabilities;
}

/** What `initialize` agreed to: `splices` when the daemon may send list splices. */
export interface Capabilities {
  splices?: boolean;
  [name: string]: JsonValue | undefined;
}

/** One edit of a list: at index `at`, remove `delete` elements, then insert `insert` there. */
export interface SpliceOp {
  at: number;
  delete: number;
  insert: JsonValue[];
}

/** A list member sent as its edit (protocol.md, "List splices"): `ops` in order, then its `length`. */
export interface Splice {
  ops: SpliceOp[];
  length: number;
}

/** What `session/undo` and `session/redo` answer. */
export interface HistoryResult {
  /** The session's revision once the changes the undo (or redo) caused were applied. */
  revision: number;
  canUndo: boolean;
  canRedo: boolean;
}

/** What `open` takes as `restore`: a snapshot's `type` and `fields` are what counts. */
export interface RestoreSnapshot {
  type: string;
  fields: Record<string, JsonValue>;
  schemaHash?: string;
  revision?: number;
}

/** What `session.snapshot()` resolves with: the type, its schemaHash, the revision, the writable fields' values. */
export interface Snapshot extends RestoreSnapshot {
  schemaHash: string;
  revision: number;
}

/** A session's state: one member per observed field, output, `c.enabled` and `c.running`. */
export type State = Readonly<Record<string, JsonValue>>;

/** What accompanies each change set. */
export interface ChangeInfo {
  /** The session's revision after this change set. */
  revision: number;
  /** The id of the request that caused it; undefined for a timer or a fetched state. */
  cause: number | string | undefined;
  /** 'didChange' from the daemon, or the fetch of a whole state that produced this diff. */
  source: 'didChange' | 'resync' | 'refresh' | 'observe' | 'reopen' | 'reconnect';
  /**
   * The lists of this change set the daemon sent as splices, by member: the edit that made their
   * new value (which `changes` holds whole, like any other). Empty when it sent whole values.
   */
  splices: Record<string, Splice>;
}

export interface RequestOptions {
  /** Aborting sends `$/cancelRequest` and rejects with AbortError. */
  signal?: AbortSignal;
  /** A time limit in ms: then the request is cancelled like an aborted one, with TimeoutError. */
  timeout?: number;
}

export interface InvokeOptions extends RequestOptions {
  /** Resolve with native values (Date, Uint8Array, Set), read by the command's result type. */
  native?: boolean;
}

export interface LowLevelRequestOptions extends RequestOptions {
  /** Runs synchronously when a successful response is read, before any later message. */
  onResponse?: (result: any) => void;
}

export interface ExitStatus {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
}

// ---------------------------------------------------------------------------------------------
// Client

export interface ClientOptions {
  /** What the daemon writes: its stdout. */
  input: NodeJS.ReadableStream;
  /** What the daemon reads: its stdin. */
  output: NodeJS.WritableStream;
  /** Default 'content-length'. */
  framing?: FramingName;
  /** Default time limit, in ms, of every request. */
  timeout?: number;
  /** How long, in ms, an aborted request waits for the daemon's answer (default 2000). */
  cancelGrace?: number;
  /** What pending requests fail with when the input ends. */
  closeError?: () => Error | Promise<Error>;
  /** Ask `initialize` for list splices (default true); `state` is the same either way. */
  splices?: boolean;
  /** Ask `initialize` for the daemon's text of every value (`session.display`; default false). */
  display?: boolean;
}

export interface SpawnOptions {
  /** The executable; default: $BINDERYD, PATH, then the repository's .build/{release,debug}. */
  daemon?: string;
  args?: string[];
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** Adds --deterministic: a virtual clock moved by `advanceClock`, seeded randomness. */
  deterministic?: boolean;
  /** Adds --seed N (and --deterministic). */
  seed?: number;
  /** Adds --record FILE: the daemon writes the exchange as a transcript. */
  record?: string;
  /** Send `initialize` before resolving (default true). */
  initialize?: boolean;
  clientInfo?: { name: string; version?: string };
  timeout?: number;
  cancelGrace?: number;
  /** How many stderr lines DaemonExitedError keeps (default 20). */
  stderrLines?: number;
  /** Ask `initialize` for list splices (default true); `state` is the same either way. */
  splices?: boolean;
  /** Ask `initialize` for the daemon's text of every value (`session.display`; default false). */
  display?: boolean;
}

export interface ConnectOptions {
  /** The shared daemon's socket: a path, or 'auto' (default): $XDG_RUNTIME_DIR/bindery/daemon.sock, else /tmp/bindery-UID/daemon.sock. */
  socket?: string;
  /** The executable started when no daemon answers; default: found as `spawn` finds it. */
  daemon?: string;
  /** Options of a daemon it starts (`--deterministic`, `--state DIR`, `--idle-exit N`; default --idle-exit 60). */
  args?: string[];
  /** Start a daemon when none answers (default true). */
  start?: boolean;
  /** Send `initialize` before resolving (default true). */
  initialize?: boolean;
  clientInfo?: { name: string; version?: string };
  timeout?: number;
  cancelGrace?: number;
  /** Ask `initialize` for list splices (default true); `state` is the same either way. */
  splices?: boolean;
  /** Ask `initialize` for the daemon's text of every value (`session.display`; default false). */
  display?: boolean;
  /**
   * When the daemon dies, reconnect (starting one if none answers, with backoff) and reopen the
   * keyed sessions, instead of closing (default true).
   */
  reconnect?: boolean;
}

/** A reconnect attempt about to be made: after `delay` ms; `error` is why the last connection ended. */
export interface ReconnectingEvent {
  delay: number;
  attempt: number;
  error: Error;
}

/** `set` and `invoke` options: `expectedRevision` refuses the call (StaleRevisionError) when the session moved on. */
export interface WriteOptions extends RequestOptions {
  expectedRevision?: number;
}

export interface OpenOptions extends RequestOptions {
  /** Arguments of the type's constructor (`element` takes `{symbol}`). */
  args?: Record<string, NativeValue>;
  /** The members to keep in `state`; default all. */
  observe?: string[];
  /** Opening a key again returns the session already open under it. */
  key?: string;
  /** The type's schemaHash as a generated client knows it: a daemon whose differs refuses (SchemaMismatchError). */
  schemaHash?: string;
  /** A snapshot (`session.snapshot()`) whose fields the new session starts with; SnapshotMismatchError when it does not fit. */
  restore?: RestoreSnapshot;
}

/** What a generated session class's `open` takes. */
export interface TypedOpenOptions extends RequestOptions {
  /** Arguments of the type's constructor (`element` takes `{symbol}`). */
  args?: Record<string, NativeValue>;
  /** Opening a key again returns the session already open under it. */
  key?: string;
  /** A snapshot (`snapshot()`) whose fields the new session starts with. */
  restore?: RestoreSnapshot;
}

export declare const VERSION: string;
export declare const PROTOCOL_VERSION: number;

export declare class Client extends EventEmitter {
  constructor(options: ClientOptions);
  /** Finds binderyd, spawns it and (unless `initialize: false`) initializes. */
  static spawn(options?: SpawnOptions): Promise<Client>;
  /** Connects to a shared daemon (`binderyd --listen`), starting one when none answers. */
  static connect(options?: ConnectOptions): Promise<Client>;
  /** The shared daemon's socket path, for a client made by `connect`; null otherwise. */
  socketPath: string | null;
  /** The JSON-RPC connection underneath. */
  readonly connection: Connection;
  /** The spawned daemon; null over plain streams. */
  process: ChildProcess | null;
  serverInfo: { name: string; version: string } | null;
  protocolVersion: number | null;
  /** The capabilities the daemon agreed to in `initialize`; empty before, or when it agreed to none. */
  capabilities: Capabilities;
  /** The schemas of every type, once initialized. */
  readonly viewModels: Schema[];
  /** Open sessions by id (a copy). */
  readonly sessions: ReadonlyMap<number, Session>;
  readonly closed: boolean;
  /** True while a client of a shared daemon reconnects to it (calls wait meanwhile). */
  readonly reconnecting: boolean;
  initialize(params?: Record<string, unknown>, options?: RequestOptions): Promise<InitializeResult>;
  describe(type?: undefined, options?: RequestOptions): Promise<Schema[]>;
  describe(type: string, options?: RequestOptions): Promise<Schema>;
  open(type: string, options?: OpenOptions): Promise<Session>;
  /** Moves a --deterministic daemon's clock; resolves with the new time in ms. */
  advanceClock(ms: number, options?: RequestOptions): Promise<number>;
  request<T = any>(method: string, params?: object | unknown[], options?: LowLevelRequestOptions): Promise<T>;
  notify(method: string, params?: object | unknown[]): void;
  /** shutdown + exit; resolves with a spawned daemon's exit status, null over streams. */
  close(options?: { timeout?: number }): Promise<ExitStatus | null>;

  on(event: 'notification', listener: (method: string, params: any) => void): this;
  on(event: 'protocolError', listener: (error: BinderyError) => void): this;
  on(event: 'stderr', listener: (line: string) => void): this;
  on(event: 'exit', listener: (status: ExitStatus & { error?: Error }) => void): this;
  on(event: 'close', listener: (error: Error) => void): this;
  on(event: 'reconnecting', listener: (event: ReconnectingEvent) => void): this;
  on(event: 'reconnected', listener: (event: { attempt: number; sessions: Session[] }) => void): this;
  on(event: string | symbol, listener: (...args: any[]) => void): this;
}

// ---------------------------------------------------------------------------------------------
// Session

/** A child view model as its parent's state shows it: `{session: id}` (protocol.md, "Child view models"). */
export interface ChildRef {
  readonly session: number;
}

export declare class Session extends EventEmitter {
  /** Made by `client.open`, or by the client for a child view model its parent shows. */
  private constructor();
  readonly id: number;
  readonly type: string;
  readonly key: string | undefined;
  /** Whether the last open with this key found the session already open. */
  reopened: boolean;
  /** Whether the last open with this key found it stored by `binderyd --state DIR` (its fields restored). */
  restored: boolean;
  /** Every observed member's current value; a new object on each change. */
  readonly state: State;
  /** The daemon's text for each member that is not a string, a list or a child (with `display: true`). */
  readonly display: Readonly<Record<string, string>>;
  readonly revision: number;
  readonly closed: boolean;
  readonly schema: Schema;
  /** Writable field names. */
  readonly fields: string[];
  /** Read-only output names. */
  readonly outputs: string[];
  readonly commands: string[];
  /** Fields, outputs, and `c.enabled` / `c.running` per command. */
  readonly members: string[];
  /** The session whose member shows this one (a child view model); null for one `client.open` made. */
  readonly parent: Session | null;
  /** True once the parent no longer shows this child: it is closed too, and calls reject. */
  readonly detached: boolean;
  /**
   * The child session a member shows (a tab, a detail), null while it shows none; the same object
   * every time. TypeError for a member holding rows (see `rows`) or no view model.
   */
  child(name: string): Session | null;
  /** The child sessions an array member shows, in its current order; each row keeps its session. */
  rows(name: string): Session[];
  /** The child sessions a member shows (rows, one, or none), or with no name every child shown. */
  children(name?: string): Session[];
  get(name: string): JsonValue | undefined;
  /** A member's value as native values (Date, Uint8Array, Set), read by its type in the schema. */
  value<T = DecodedValue>(name: string): T | undefined;
  /** Every member of `members` (default: `state`) as native values; pass a change set to convert it. */
  values(members?: Record<string, JsonValue>): Record<string, DecodedValue>;
  /** Resolves with the revision; `state` already shows the value (as JSON) and its effects. */
  set(field: string, value: NativeValue, options?: WriteOptions): Promise<number>;
  /** Resolves with the command's return value (null for none); native values with `{ native: true }`. */
  invoke<T = JsonValue>(command: string, args?: NativeValue, options?: InvokeOptions & WriteOptions): Promise<T>;
  refresh(options?: RequestOptions): Promise<State>;
  observe(names: string[], options?: RequestOptions): Promise<State>;
  /** Undoes the last step of this session's writes; `state` already shows the fields written back. */
  undo(options?: RequestOptions): Promise<HistoryResult>;
  /** Writes again what the last undo took back. */
  redo(options?: RequestOptions): Promise<HistoryResult>;
  /** The daemon's snapshot of the session, for `client.open(type, { restore })`. */
  snapshot(options?: RequestOptions): Promise<Snapshot>;
  close(options?: RequestOptions): Promise<void>;
  /** Every change set from now on, buffered, in order. */
  changes(options?: { signal?: AbortSignal }): AsyncIterableIterator<Record<string, JsonValue>>;
  waitUntil(predicate: (state: State) => boolean, options?: { timeout?: number; signal?: AbortSignal }): Promise<State>;

  on(event: 'change', listener: (changes: Record<string, JsonValue>, info: ChangeInfo) => void): this;
  on(event: 'close', listener: (error: Error | undefined) => void): this;
  on(event: string | symbol, listener: (...args: any[]) => void): this;
}

// ---------------------------------------------------------------------------------------------
// TypedSession

/**
 * What the classes generated by clients/codegen/bindery-codegen extend: a Session of one type,
 * typed by the generated `State` (every member) and `Fields` (the writable ones).
 */
export declare class TypedSession<S extends object, F extends object> {
  /** The view model type of a generated subclass. */
  static readonly type: string | undefined;
  /** The schemaHash a generated subclass was generated from; `open` sends it. */
  static readonly schemaHash: string | undefined;
  /** Wraps a session of the subclass's type (its static `open` does this). */
  constructor(session: Session);
  /** The plain Session underneath. */
  readonly session: Session;
  readonly id: number;
  readonly revision: number;
  readonly closed: boolean;
  /** Whether the session came back from `binderyd --state DIR`. */
  readonly restored: boolean;
  /** Every member's current value; a new object on each change. */
  readonly state: S;
  /** Writes a field; resolves with the revision. */
  set<K extends keyof F & string>(field: K, value: F[K], options?: RequestOptions): Promise<number>;
  /** Calls `listener` for every change set; returns a function that removes it. */
  onChange(listener: (changes: Partial<S>, info: ChangeInfo) => void): () => void;
  /** Every change set from now on, buffered, in order. */
  changes(options?: { signal?: AbortSignal }): AsyncIterableIterator<Partial<S>>;
  waitUntil(predicate: (state: S) => boolean, options?: { timeout?: number; signal?: AbortSignal }): Promise<S>;
  refresh(options?: RequestOptions): Promise<S>;
  /** Undoes the last step of the session's writes. */
  undo(options?: RequestOptions): Promise<HistoryResult>;
  /** Writes again what the last undo took back. */
  redo(options?: RequestOptions): Promise<HistoryResult>;
  /** The daemon's snapshot of the session, for `open(client, { restore })`. */
  snapshot(options?: RequestOptions): Promise<Snapshot>;
  close(options?: RequestOptions): Promise<void>;
}

// ---------------------------------------------------------------------------------------------
// Values

/**
 * `value` in the wire form the daemon reads, following `type` (a schema type object) when given:
 * what `set`, `invoke` and `open` do with what they are passed. Throws InvalidParamsError for a
 * value with no wire form.
 */
export declare function encodeValue(value: NativeValue, type?: ValueType): JsonValue | undefined;

/** A value as the daemon sent it, read as native values by its type object (what `value` does). */
export declare function decodeValue(value: JsonValue | undefined, type?: ValueType): DecodedValue | undefined;

// ---------------------------------------------------------------------------------------------
// Connection and framing

export type FramingName = 'content-length' | 'ndjson';

export interface ConnectionOptions {
  input: NodeJS.ReadableStream;
  output: NodeJS.WritableStream;
  framing?: FramingName;
  cancelGrace?: number;
  closeError?: (streamError?: Error) => Error | Promise<Error>;
}

export declare class Connection extends EventEmitter {
  constructor(options: ConnectionOptions);
  readonly framing: FramingName;
  readonly closed: boolean;
  readonly pendingCount: number;
  startRequest<T = any>(method: string, params?: object | unknown[], options?: LowLevelRequestOptions): { id: number; promise: Promise<T> };
  request<T = any>(method: string, params?: object | unknown[], options?: LowLevelRequestOptions): Promise<T>;
  notify(method: string, params?: object | unknown[]): void;
  endOutput(): void;
  close(error?: Error): void;

  on(event: 'notification', listener: (method: string, params: any) => void): this;
  on(event: 'protocolError', listener: (error: BinderyError) => void): this;
  on(event: 'close', listener: (error: Error) => void): this;
  on(event: string | symbol, listener: (...args: any[]) => void): this;
}

export declare const Framing: Readonly<{ ContentLength: 'content-length'; Ndjson: 'ndjson' }>;

export declare class FramingError extends Error {
  constructor(message: string);
}

export declare class FrameDecoder {
  constructor(options?: { framing?: FramingName; onError?: (error: FramingError) => void });
  readonly framing: FramingName;
  readonly bufferedBytes: number;
  /** The bodies this chunk completed, in order. */
  push(chunk: Uint8Array): Buffer[];
  /** End of stream: a last NDJSON line without its newline. */
  end(): Buffer[];
}

export declare function encodeFrame(body: string | Uint8Array, framing?: FramingName): Buffer;

// ---------------------------------------------------------------------------------------------
// Discovery

/**
 * The absolute path of binderyd: `daemon` (used or refused), else `$BINDERYD`, else `PATH`, else
 * `$HOME/.local/bin/binderyd` (where `./scripts/install` copies it), else the repository's
 * `.build/release` and `.build/debug`. Throws DaemonNotFoundError listing every place tried.
 * `env` (its BINDERYD, PATH and HOME) and `buildDirs` replace the real ones, for tests.
 */
export declare function findDaemon(options?: {
  daemon?: string;
  env?: Record<string, string | undefined>;
  buildDirs?: string[];
}): string;

/** A shared daemon's socket path: 'auto' resolved as protocol.md says, or `spelled` made absolute. */
export declare function socketPath(spelled: string, env?: Record<string, string | undefined>): string;

/** The repository's build folders, found from this package's location; empty when installed as a copy. */
export declare function repositoryBuildDirs(): string[];

// ---------------------------------------------------------------------------------------------
// Errors

export declare const ErrorCodes: Readonly<{
  ParseError: -32700;
  InvalidRequest: -32600;
  MethodNotFound: -32601;
  InvalidParams: -32602;
  InternalError: -32603;
  UnknownType: -32010;
  UnknownSession: -32011;
  UnknownField: -32012;
  ReadOnlyField: -32013;
  WrongValueType: -32014;
  UnknownCommand: -32015;
  CommandDisabled: -32016;
  CommandFailed: -32017;
  OpenFailed: -32018;
  NeedsDeterministicMode: -32019;
  SchemaMismatch: -32021;
  SnapshotMismatch: -32022;
  StaleRevision: -32023;
  RequestCancelled: -32800;
}>;

export interface BinderyErrorOptions {
  code?: number | null;
  data?: unknown;
  method?: string;
  local?: boolean;
  cause?: unknown;
}

export declare class BinderyError extends Error {
  constructor(message: string, options?: BinderyErrorOptions);
  /** The JSON-RPC error code; null for failures without one (daemon missing or gone). */
  code: number | null;
  data: any;
  /** The method of the request that failed. */
  method: string | undefined;
  /** True when the client refused the call itself, without a round trip. */
  local: boolean;
}

export declare class ParseError extends BinderyError { static readonly code: -32700; }
export declare class InvalidRequestError extends BinderyError { static readonly code: -32600; }
export declare class MethodNotFoundError extends BinderyError { static readonly code: -32601; }
export declare class InvalidParamsError extends BinderyError { static readonly code: -32602; }
export declare class InternalError extends BinderyError { static readonly code: -32603; }
export declare class UnknownTypeError extends BinderyError { static readonly code: -32010; }
export declare class UnknownSessionError extends BinderyError { static readonly code: -32011; }
export declare class UnknownFieldError extends BinderyError { static readonly code: -32012; }
export declare class ReadOnlyFieldError extends BinderyError { static readonly code: -32013; }
export declare class WrongValueTypeError extends BinderyError { static readonly code: -32014; }
export declare class UnknownCommandError extends BinderyError { static readonly code: -32015; }
export declare class CommandDisabledError extends BinderyError { static readonly code: -32016; }
export declare class CommandFailedError extends BinderyError { static readonly code: -32017; }
export declare class OpenFailedError extends BinderyError { static readonly code: -32018; }
export declare class NeedsDeterministicModeError extends BinderyError { static readonly code: -32019; }
/** The daemon's type differs from the one the typed client was generated from: regenerate it. */
export declare class SchemaMismatchError extends BinderyError { static readonly code: -32021; }
/** `open`'s `restore` does not fit the type; `data` is `{type, schemaHash, reason}`. */
export declare class SnapshotMismatchError extends BinderyError { static readonly code: -32022; }
export declare class StaleRevisionError extends BinderyError { static readonly code: -32023; }
export declare class RequestCancelledError extends BinderyError { static readonly code: -32800; }
/** Cancelled by an AbortSignal; `cause` is the daemon's answer when it sent one. */
export declare class AbortError extends RequestCancelledError {}
export declare class TimeoutError extends AbortError {
  constructor(message: string, options?: BinderyErrorOptions & { timeout?: number });
  timeout: number | undefined;
}
export declare class SessionClosedError extends UnknownSessionError {}

export declare class DaemonNotFoundError extends BinderyError {
  constructor(tried: string[]);
  /** Every place looked at, and why each failed. */
  tried: string[];
}
export declare class ConnectionClosedError extends BinderyError {
  constructor(message?: string, options?: BinderyErrorOptions);
}
/** A shared daemon's socket failed a check made before the first byte (see protocol.md). */
export declare class UntrustedSocketError extends ConnectionClosedError {
  constructor(path: string, reason: string);
  /** The socket's path. */
  path: string;
  /** What failed: the directory, the socket file, or the platform. */
  reason: string;
}
export declare class DaemonExitedError extends ConnectionClosedError {
  /** `where`: which daemon it was, for one the client did not spawn (a shared daemon's path, pid and log). */
  constructor(info: { exitCode: number | null; signal: string | null; stderr: string[]; where?: string }, options?: { cause?: unknown });
  exitCode: number | null;
  signal: string | null;
  /** The last lines (20 by default) the daemon wrote to stderr. */
  stderr: string[];
}

export declare function errorFromResponse(error: { code: number; message: string; data?: unknown }, method?: string): BinderyError;
