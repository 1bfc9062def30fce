"""``jaipur-ai serve`` on this process's stdin and stdout: reading request lines as they
come (bounded, in linear time), and stopping when the frontend goes away, around the
protocol's :class:`~jaipur_ai.doors.serve.Server`."""
from __future__ import annotations

import io
import os
import sys
import threading
from typing import Any, Callable, Optional

from jaipur_ai.doors.limits import Limits
from jaipur_ai.doors.serve import MAX_LINE, Server

__all__ = ["serve_stdio", "LineReader", "watch_output"]


class LineReader:
    """Lines of a file descriptor, read as they come; reading ends (as at the end of
    input) once ``gone()`` is true, so that the server stops when its frontend went
    away even while stdin stays open.  A line longer than MAX_LINE is returned cut at
    MAX_LINE + 1 bytes (the server answers it with one error) and the rest of it, up to
    its newline, is read and dropped as it comes, in linear time."""

    def __init__(self, fd: int, gone: Callable[[], bool]) -> None:
        self.fd = fd
        self.gone = gone
        self.buf = bytearray()
        self.scanned = 0
        self.eof = False
        self.skipping = False     # dropping the rest of an over-long line

    def readline(self) -> bytes:
        import select
        while True:
            i = self.buf.find(b"\n", self.scanned)
            if self.skipping:
                if i >= 0:
                    del self.buf[:i + 1]
                    self.skipping = False
                else:
                    self.buf.clear()
                self.scanned = 0
                if not self.skipping:
                    continue
            elif i >= 0 or self.eof:
                end = i + 1 if i >= 0 else len(self.buf)
                line = bytes(self.buf[:end])
                del self.buf[:end]
                self.scanned = 0
                return line
            elif len(self.buf) > MAX_LINE:
                line = bytes(self.buf[:MAX_LINE + 1])
                self.buf.clear()
                self.scanned, self.skipping = 0, True
                return line
            else:
                self.scanned = len(self.buf)
            if self.eof:
                return b""
            if self.gone():
                return b""
            ready, _, _ = select.select([self.fd], [], [], 0.1)
            if ready:
                chunk = os.read(self.fd, 1 << 16)
                if chunk:
                    self.buf += chunk
                else:
                    self.eof = True


def watch_output(fd: int, server: "Server", done: threading.Event) -> None:
    """Until ``done``: when the reader of ``fd`` (stdout) goes away, stop every search and
    make the server stop reading (docs/protocol.md, "quit and end of input")."""
    import select
    poller = select.poll()
    poller.register(fd, select.POLLERR | select.POLLHUP)
    while not done.is_set():
        if poller.poll(100):
            server.frontend_gone()
            return


def serve_stdio(algorithm: str = "ismcts", threads: int = 1,
                time: Optional[float] = None, limits: Optional[Limits] = None) -> int:
    """Serve on this process's stdin and stdout until ``quit`` or end of input;
    what ``jaipur-ai serve`` runs once the command line (jaipur_ai/doors/cli.py) has
    read its options.  Returns the exit status."""
    out = sys.stdout
    binary_out = getattr(out, "buffer", out)
    binary_in: Any = getattr(sys.stdin, "buffer", sys.stdin)
    server = Server(binary_in, binary_out, algorithm=algorithm, threads=threads, time=time,
                    limits=limits)
    done = threading.Event()
    try:  # read stdin by its descriptor, and watch stdout's (POSIX)
        import select
        in_fd, out_fd = sys.stdin.fileno(), out.fileno()
        if hasattr(select, "poll") and os.name == "posix":
            server.infile = LineReader(in_fd, lambda: server._broken)
            threading.Thread(target=watch_output, args=(out_fd, server, done),
                             name="jaipur-stdout-watch", daemon=True).start()
    except (AttributeError, OSError, ValueError, io.UnsupportedOperation):
        pass
    sys.stdout = sys.stderr  # a stray print must never corrupt the protocol
    try:
        return server.run()
    finally:
        done.set()
        sys.stdout = out
