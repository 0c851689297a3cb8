// A spawned binderyd: its exit status and the tail of its stderr, for DaemonExitedError.
import { spawn } from 'node:child_process';
import { StringDecoder } from 'node:string_decoder';

const EXIT_WAIT_MS = 5000;
const STDERR_WAIT_MS = 1000;

/**
 * Starts `path` with piped stdio. stderr is always read (a full pipe would block the daemon),
 * its lines passed to `onStderrLine` and the last `stderrLines` kept.
 * @param {{ path: string, args?: string[], env?: NodeJS.ProcessEnv, cwd?: string,
 *   stderrLines?: number, onStderrLine?: (line: string) => void }} options
 */
export function startDaemon({ path, args = [], env, cwd, stderrLines = 20, onStderrLine }) {
  const child = spawn(path, args, { stdio: ['pipe', 'pipe', 'pipe'], env, cwd });
  const tail = [];
  let partial = '';
  const decoder = new StringDecoder('utf8');
  const keep = (line) => {
    tail.push(line);
    if (tail.length > stderrLines) tail.shift();
    onStderrLine?.(line);
  };
  child.stderr.on('data', (chunk) => {
    const lines = (partial + decoder.write(chunk)).split('\n');
    partial = lines.pop();
    for (const line of lines) keep(line.replace(/\r$/, ''));
  });
  const stderrEnded = new Promise((resolve) => child.stderr.once('close', resolve));

  let status = null;
  const exited = new Promise((resolve) => {
    child.once('exit', (exitCode, signal) => resolve(status = { exitCode, signal }));
    // spawn itself failed (ENOENT, EACCES): there will be no 'exit'.
    child.once('error', (error) => resolve(status ??= { exitCode: null, signal: null, error }));
  });

  return {
    child,
    exited,
    /** The last lines of stderr, a final line without its newline included. */
    stderrTail() {
      const lines = partial ? [...tail, partial] : [...tail];
      return lines.slice(-stderrLines);
    },
    /** Waits (bounded) for the exit and the end of stderr; null if the process is still running. */
    async settled() {
      const result = await within(exited, EXIT_WAIT_MS);
      await within(stderrEnded, STDERR_WAIT_MS);
      return result ?? null;
    },
  };
}

/** What `promise` resolves with if it does within `ms`, else undefined (also Client#close's wait). */
export function within(promise, ms) {
  let timer;
  return Promise.race([
    promise,
    new Promise((resolve) => { timer = setTimeout(resolve, ms, undefined); }),
  ]).finally(() => clearTimeout(timer));
}
