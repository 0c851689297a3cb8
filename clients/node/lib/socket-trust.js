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

function myUid() {
  return process.geteuid ? process.geteuid() : process.getuid();
}

/**
 * The socket's directory as it stands: the user's, writable by nobody else. Throws
 * UntrustedSocketError naming the socket's path.
 * @param {string} file the socket's path
 */
export function checkDirectory(file) {
  const directory = path.dirname(file);
  let status;
  try {
    status = fs.lstatSync(directory);
  } catch (error) {
    throw new UntrustedSocketError(file, `cannot examine ${directory}: ${error.code}`);
  }
  const me = myUid();
  if (!status.isDirectory()) throw new UntrustedSocketError(file, `${directory} is not a directory (a link is not accepted)`);
  if (status.uid !== me) throw new UntrustedSocketError(file, `${directory} belongs to user ${status.uid}, not to this user (${me})`);
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
  let status;
  try {
    status = fs.lstatSync(file);
  } catch (error) {
    throw new UntrustedSocketError(file, `cannot examine it: ${error.code}`);
  }
  const me = myUid();
  if (!status.isSocket()) throw new UntrustedSocketError(file, 'it is not a socket');
  if (status.uid !== me) throw new UntrustedSocketError(file, `the socket belongs to user ${status.uid}, not to this user (${me})`);
}
