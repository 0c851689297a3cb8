// How a shared daemon ended, for a client that is not its parent: its supervisor
// (`binderyd --supervise-listen=PATH`, which every client that starts a daemon uses) writes
// `PATH.exit` — `pid N: killed by signal 9` or `pid N: exited with code 0` — when it ends. Node
// cannot learn the peer's pid (no SO_PEERCRED), so a record written after this client connected
// is taken as the end of the daemon it was connected to.
import { constants } from 'node:os';
import fs from 'node:fs';
import { ConnectionClosedError, DaemonExitedError } from './errors.js';

const signalNames = new Map(Object.entries(constants.signals).map(([name, number]) => [number, name]));

/**
 * A Client's or Connection's streams over `socket`, connected now to `file`: its close error says
 * how the daemon ended (`socketCloseError`).
 * @param {string} file
 * @param {import('node:net').Socket} socket
 */
export function overSocket(file, socket) {
  const connectedAt = Date.now();
  return { input: socket, output: socket, closeError: () => socketCloseError(file, connectedAt) };
}

/**
 * The error for a socket connection the daemon ended: DaemonExitedError (how it ended, the path,
 * its log's last lines) when a record comes within `wait` ms, else ConnectionClosedError.
 * @param {string} file the socket's path
 * @param {number} connectedAt Date.now() when the connection was made
 * @param {number} [wait]
 */
export async function socketCloseError(file, connectedAt, wait = 3000) {
  const deadline = Date.now() + wait;
  for (;;) {
    try {
      const status = fs.statSync(`${file}.exit`);
      const match = /^pid (\d+): (killed by signal|exited with code) (\d+)$/.exec(fs.readFileSync(`${file}.exit`, 'utf8').trim());
      if (match && status.mtimeMs >= connectedAt - 1000) {
        const number = Number(match[3]);
        const killed = match[2] === 'killed by signal';
        let stderr = [];
        try {
          stderr = fs.readFileSync(`${file}.log`, 'utf8').split('\n').filter((line) => line !== '').slice(-20);
        } catch {
          // no log
        }
        return new DaemonExitedError({
          exitCode: killed ? null : number, signal: killed ? (signalNames.get(number) ?? `signal ${number}`) : null, stderr,
          where: `the shared daemon on ${file} (pid ${match[1]}); its log: ${file}.log`,
        });
      }
    } catch {
      // not written (yet)
    }
    if (Date.now() > deadline) return new ConnectionClosedError(`the shared daemon on ${file} closed the connection`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
