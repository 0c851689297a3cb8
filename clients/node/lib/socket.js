// A shared daemon (`binderyd --listen PATH`): its per-user path, and a socket connected to it,
// starting the daemon when none answers (as `binderyd --remote` does).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { ConnectionClosedError, UntrustedSocketError } from './errors.js';
import { checkDirectory, verifySocket } from './socket-trust.js';

/**
 * The socket path of `spelled`: `auto` is `$XDG_RUNTIME_DIR/bindery/daemon.sock` when that is an
 * absolute path, else `/tmp/bindery-UID/daemon.sock` (protocol.md); anything else is made absolute.
 * @param {string} spelled
 * @param {NodeJS.ProcessEnv} [env]
 */
export function socketPath(spelled, env = process.env) {
  if (spelled !== 'auto') return path.resolve(spelled);
  const runtime = env.XDG_RUNTIME_DIR ?? '';
  if (runtime.startsWith('/')) return path.join(runtime, 'bindery', 'daemon.sock');
  return `/tmp/bindery-${process.getuid()}/daemon.sock`;
}

function attempt(file) {
  return new Promise((resolve, reject) => {
    const socket = net.createConnection(file);
    socket.once('connect', () => {
      socket.removeAllListeners('error');
      try {
        verifySocket(file); // before the first byte (socket-trust.js)
      } catch (error) {
        socket.destroy();
        reject(error);
        return;
      }
      resolve(socket);
    });
    socket.once('error', reject);
  });
}

/**
 * A socket connected to the daemon at `file`; when nothing answers and `daemon` is given, starts
 * `daemon --listen FILE --idle-exit 60 ARGS` detached (stderr appended to FILE.log) and waits up to
 * `wait` ms for it.
 * @param {string} file
 * @param {{ daemon?: string, args?: string[], wait?: number }} [options]
 * @returns {Promise<net.Socket>}
 */
export async function connectSocket(file, { daemon, args = [], wait = 10000 } = {}) {
  if (fs.existsSync(path.dirname(file))) checkDirectory(file); // refused before anything is tried
  try {
    return await attempt(file);
  } catch (error) {
    if (!daemon || !['ENOENT', 'ECONNREFUSED'].includes(error.code)) throw error;
  }
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  checkDirectory(file);
  const argv = args.includes('--idle-exit') ? [...args] : ['--idle-exit', '60', ...args];
  const log = fs.openSync(`${file}.log`, 'a', 0o600);
  try {
    spawn(daemon, [`--supervise-listen=${file}`, ...argv], { detached: true, stdio: ['ignore', 'ignore', log] }).unref();
  } finally {
    fs.closeSync(log);
  }
  const deadline = Date.now() + wait;
  for (;;) {
    try {
      return await attempt(file);
    } catch (error) {
      if (error instanceof UntrustedSocketError) throw error;
      if (Date.now() > deadline) {
        throw new ConnectionClosedError(`no binderyd answers on ${file} after starting one; see ${file}.log`, { cause: error });
      }
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }
}
