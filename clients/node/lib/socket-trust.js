// What the Node client checks before it sends a byte to a shared daemon. Another user who made
// the socket's directory first (/tmp/bindery-UID/ with no XDG_RUNTIME_DIR) and listens there could
// read and relay every byte, a typed password included.
//
// Node's standard library cannot read a socket's peer credentials (no SO_PEERCRED), and Linux's
// /proc does not name a Unix socket's peer (/proc/net/unix lists the inodes of our side only; the
// peer is reachable through sock_diag netlink, which Node cannot open). So the client checks what
// decides who can listen there: the directory is the user's, a real directory, writable by nobody
// else; the socket in it is a socket owned by the user. A socket file is owned by whoever bound
// it, and only the user (or root) can put one in such a directory, so another user's listener is
// refused; what this cannot tell, unlike SO_PEERCRED, is a listening descriptor the user's own
// process handed to another user. protocol.md ("Shared daemon") says so.
import fs from 'node:fs';
import path from 'node:path';
import { UntrustedSocketError } from './errors.js';

// The lstat of `target` (the socket `file`, or its directory), called `name`: refused when it cannot
// be examined, is not what `is` accepts (`otherwise` says what it is), or is another user's.
function owned(file, target, name, is, otherwise) {
  let status;
  try {
    status = fs.lstatSync(target);
  } catch (error) {
    throw new UntrustedSocketError(file, `cannot examine ${name}: ${error.code}`);
  }
  const me = process.geteuid ? process.geteuid() : process.getuid();
  if (!is(status)) throw new UntrustedSocketError(file, otherwise);
  if (status.uid !== me) throw new UntrustedSocketError(file, `${name} belongs to user ${status.uid}, not to this user (${me})`);
  return status;
}

/**
 * The socket's directory as it stands: the user's, writable by nobody else. Throws
 * UntrustedSocketError naming the socket's path.
 * @param {string} file the socket's path
 */
export function checkDirectory(file) {
  const directory = path.dirname(file);
  const status = owned(file, directory, directory, (s) => s.isDirectory(), `${directory} is not a directory (a link is not accepted)`);
  if (status.mode & 0o022) {
    throw new UntrustedSocketError(file, `${directory} is writable by others (mode ${(status.mode & 0o777).toString(8)})`);
  }
}

/**
 * The directory and the socket file at `file`: called once connected, before the first byte.
 * @param {string} file
 */
export function verifySocket(file) {
  checkDirectory(file);
  owned(file, file, 'the socket', (s) => s.isSocket(), 'it is not a socket');
}
