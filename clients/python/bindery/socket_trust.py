"""What a client of a shared daemon checks before it sends a byte.

Another user who made the socket's directory first (``/tmp/bindery-UID/`` when there is no
``XDG_RUNTIME_DIR``) and listens there could read and relay every byte, a typed password
included. So, before the first byte: the directory must be this user's, a real directory, and not
writable by group or others; the socket in it must be a socket of this user's; and the process
listening must run as this user (``SO_PEERCRED``). Any failure raises UntrustedSocket naming the
path.
"""
from __future__ import annotations

import os
import socket
import stat
import struct

from .errors import UntrustedSocket

__all__ = ["check_directory", "verify_socket"]


def check_directory(path: str) -> None:
    """The directory of the socket at ``path``, as it stands: this user's, writable by nobody else."""
    directory = os.path.dirname(path)
    try:
        status = os.lstat(directory)
    except OSError as error:
        raise UntrustedSocket(path, "cannot examine %s: %s" % (directory, error.strerror)) from None
    me = os.geteuid()
    if not stat.S_ISDIR(status.st_mode):
        raise UntrustedSocket(path, "%s is not a directory (a link is not accepted)" % directory)
    if status.st_uid != me:
        raise UntrustedSocket(path, "%s belongs to user %d, not to this user (%d)" % (directory, status.st_uid, me))
    if status.st_mode & 0o022:
        raise UntrustedSocket(path, "%s is writable by others (mode %o)" % (directory, stat.S_IMODE(status.st_mode)))


def verify_socket(path: str, sock: socket.socket) -> None:
    """The directory, the socket file and the peer of the connected ``sock``."""
    check_directory(path)
    me = os.geteuid()
    try:
        status = os.lstat(path)
    except OSError as error:
        raise UntrustedSocket(path, "cannot examine it: %s" % error.strerror) from None
    if not stat.S_ISSOCK(status.st_mode):
        raise UntrustedSocket(path, "it is not a socket")
    if status.st_uid != me:
        raise UntrustedSocket(path, "the socket belongs to user %d, not to this user (%d)" % (status.st_uid, me))
    # struct ucred {pid_t pid; uid_t uid; gid_t gid;}
    credentials = sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    _, uid, _ = struct.unpack("3i", credentials)
    if uid != me:
        raise UntrustedSocket(path, "the process listening there runs as user %d, not as this user (%d); "
                                    "another user may be trying to read this session" % (uid, me))
