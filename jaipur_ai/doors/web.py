"""``jaipur-ai web``: play, analyse and review in the browser (docs/web.md).

A local HTTP server from the standard library (``ThreadingHTTPServer``, one thread a
connection, at most MAX_CONNECTIONS at once) around :class:`jaipur_ai.doors.webapi.WebApp`, which answers every request.  It
binds 127.0.0.1 unless told otherwise, answers only requests addressed to that host
name when it does (no DNS rebinding), and takes request bodies only as
``application/json`` (a page of another site cannot post to it without the browser
asking first).  The HTTP layer's own errors (a bad request line, a body too big) are
JSON too.

>>> server = make_server(WebApp(level="greedy", hint="greedy"), port=0)
>>> url_of(server).startswith("http://127.0.0.1:")
True
>>> server.server_close()
"""
from __future__ import annotations

import io
import re
import socket
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Optional

from jaipur_ai._version import __version__
from jaipur_ai.options import describe
from jaipur_ai.doors.requests import RequestError
from jaipur_ai.doors.webapi import Response, WebApp, error_response, json_response

__all__ = ["WebApp", "make_server", "url_of", "run", "DEFAULT_PORT", "MAX_BODY",
           "LISTEN_BACKLOG", "MAX_CONNECTIONS", "IDLE_TIMEOUT", "REQUEST_TIMEOUT"]

#: The port ``jaipur-ai web`` listens on unless ``--port`` says otherwise.
DEFAULT_PORT = 8357
#: The largest request body read (bytes).
MAX_BODY = 1 << 20
#: Connections the operating system queues before the server accepts them.
LISTEN_BACKLOG = 1024
#: Connections served at once, one thread each; the next waits in the listen queue.
MAX_CONNECTIONS = 512
#: Seconds a connection may stay silent (between requests, or within one's headers and
#: body) before the server closes it.
IDLE_TIMEOUT = 30.0
#: Seconds a request may take to arrive whole (request line, headers and body), from its
#: first byte: a client that sends a byte now and then, each within the idle timeout,
#: does not hold its connection's thread longer (as servers bound a request's headers).
REQUEST_TIMEOUT = 10.0

_DIGITS = re.compile(r"[0-9]+")


class _RequestReader(io.RawIOBase):
    """The reading end of a connection: each read waits at most the idle timeout, and
    once a request's first byte has come, the whole request must have come within
    ``limit`` seconds (:data:`REQUEST_TIMEOUT`); past it a read raises TimeoutError, which
    ends the connection.  ``next_request()`` starts the wait for the next request;
    ``done()`` ends the deadline once the request was read (the answer is written with
    the idle timeout)."""

    def __init__(self, sock: socket.socket, idle: float, limit: float) -> None:
        super().__init__()
        self._sock = sock
        self._raw = sock.makefile("rb", buffering=0)
        self.idle = idle
        self.limit = limit
        self.deadline: Optional[float] = None
        self.reading = True

    def readable(self) -> bool:
        return True

    def next_request(self) -> None:
        self.deadline = None
        self.reading = True

    def done(self) -> None:
        if self.deadline is not None:
            self._sock.settimeout(self.idle)
        self.deadline = None
        self.reading = False

    def readinto(self, b: Any) -> Optional[int]:
        if self.deadline is not None:
            left = self.deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"the request did not arrive whole within "
                                   f"{self.limit:g} seconds")
            self._sock.settimeout(min(self.idle, left))
        n = self._raw.readinto(b)
        if n and self.reading and self.deadline is None:
            self.deadline = time.monotonic() + self.limit
        return n

    def close(self) -> None:
        self._raw.close()
        super().close()


# --------------------------------------------------------------------------- HTTP
class _Handler(BaseHTTPRequestHandler):
    server_version = f"jaipur-ai-web/{__version__}"
    error_content_type = "application/json"
    server: "_WebServer"

    def setup(self) -> None:
        # the socket's timeout, the server's: idle, headers and body; and a deadline for
        # a whole request, from its first byte
        self.connection = self.request
        self.connection.settimeout(self.server.idle_timeout)
        super().setup()
        self.rfile.close()
        self._reader = _RequestReader(self.connection, self.server.idle_timeout,
                                      self.server.request_timeout)
        self.rfile = io.BufferedReader(self._reader)

    def handle_one_request(self) -> None:
        self._reader.next_request()
        super().handle_one_request()

    def do_GET(self) -> None:
        self._answer("GET")

    def do_POST(self) -> None:
        self._answer("POST")

    def do_PUT(self) -> None:
        self._answer("PUT")

    def do_DELETE(self) -> None:
        self._answer("DELETE")

    def do_PATCH(self) -> None:
        self._answer("PATCH")

    def _read_body(self) -> bytes:
        # RFC 9110 (8.6): Content-Length = 1*DIGIT, the whitespace around a field's value
        # not part of it; several that disagree are an invalid message (RFC 9112, 6.3)
        values = {v.strip(" \t") for v in self.headers.get_all("Content-Length") or []}
        if not values:
            return b""
        if len(values) > 1:
            raise RequestError("Content-Length", "several headers that disagree: "
                                                 f"{', '.join(sorted(map(repr, values)))}")
        text = values.pop()
        if not _DIGITS.fullmatch(text):
            raise RequestError("Content-Length", f"expected a number of bytes (digits only), "
                                                 f"got {describe(text)}")
        n = int(text) if len(text) <= 18 else MAX_BODY + 1
        if n > MAX_BODY:
            raise RequestError("body", f"{n} bytes, the most is {MAX_BODY}",
                               "PayloadTooLargeError")
        return self.rfile.read(n)

    def _check_headers(self, method: str) -> None:
        if len(self.headers.get_all("Host") or []) > 1:   # RFC 9112 (3.2): a 400
            raise RequestError("Host", "more than one Host header: a request names one host")
        host = (self.headers.get("Host") or "").strip().lower()
        if host and self.server.loopback:      # (a browser always names the host)
            name = host.split("]")[0] + "]" if host.startswith("[") else host.split(":")[0]
            if name not in ("127.0.0.1", "localhost", "[::1]"):
                raise RequestError("Host", f"{describe(host)}: this server answers requests "
                                           "to 127.0.0.1 or localhost only", "ForbiddenError")
        if method == "POST":
            kind = (self.headers.get("Content-Type") or "").split(";")[0].strip().lower()
            if kind != "application/json":
                raise RequestError("Content-Type", f"expected application/json, got "
                                                   f"{describe(kind or None)}",
                                   "UnsupportedMediaTypeError")

    def _answer(self, method: str) -> None:
        app = self.server.app
        try:
            body = self._read_body()
            self._check_headers(method)
        except RequestError as e:
            self.close_connection = True
            resp = error_response(e)
        else:
            resp = app.handle(method, self.path, body)
        self._send(resp)

    def _send(self, resp: Response) -> None:
        self._reader.done()         # the request was read: the answer has the idle timeout
        try:
            self.send_response(resp.status)
            self.send_header("Content-Type", resp.content_type)
            self.send_header("X-Content-Type-Options", "nosniff")
            for k, v in resp.headers.items():
                self.send_header(k, v)
            if resp.stream is None:
                self.send_header("Content-Length", str(len(resp.body)))
                self.end_headers()
                self.wfile.write(resp.body)
                return
            self.close_connection = True
            self.end_headers()
            for chunk in resp.stream:
                self.wfile.write(chunk)
                self.wfile.flush()
        except OSError:          # the page went away: nothing to answer to
            self.close_connection = True
        finally:
            if resp.stream is not None:
                close = getattr(resp.stream, "close", None)
                if close is not None:
                    close()

    def send_error(self, code: int, message: Optional[str] = None,
                   explain: Optional[str] = None) -> None:
        """The HTTP layer's own errors (a bad request line or header) in JSON too."""
        reason = message or self.responses.get(code, ("error",))[0]
        body = {"error": {"type": "HTTPError", "field": None, "message": reason,
                          "reason": reason, "status": code}}
        self._send(json_response(body, code))
        self.close_connection = True

    def log_message(self, format: str, *args: Any) -> None:
        if self.server.verbose:
            sys.stderr.write(f"{self.address_string()} - {format % args}\n")


class _Slot:
    """One connection's place in the server's pool, released once whoever releases it:
    its thread when the request is done, or the accept loop when the thread could not
    be started. (``Thread.start`` cut short by Ctrl-C may leave the thread running, so
    both may try; a second release of the pool's semaphore would raise ValueError, which
    the accept loop took for a failed request, and the server went on serving through
    the Ctrl-C.)"""

    def __init__(self, pool: threading.BoundedSemaphore) -> None:
        self._pool = pool
        self._lock = threading.Lock()
        self._held = True

    def release(self) -> None:
        with self._lock:
            held, self._held = self._held, False
        if held:
            self._pool.release()


class _WebServer(ThreadingHTTPServer):
    daemon_threads = True
    # the listen backlog (socketserver's default is 5: a burst of connections beyond it
    # waited for the client's own timeout)
    request_queue_size = LISTEN_BACKLOG

    def __init__(self, address: tuple[str, int], app: WebApp, verbose: bool,
                 idle_timeout: float = IDLE_TIMEOUT,
                 request_timeout: float = REQUEST_TIMEOUT) -> None:
        if ":" in address[0]:
            self.address_family = socket.AF_INET6
        self.idle_timeout = idle_timeout
        self.request_timeout = request_timeout
        self._slots = threading.BoundedSemaphore(MAX_CONNECTIONS)
        self.app = app
        self.verbose = verbose
        self.loopback = address[0] in ("localhost", "::1") or address[0].startswith("127.")
        super().__init__(address, _Handler)

    def process_request(self, request: Any, client_address: Any) -> None:
        # a bounded pool: past MAX_CONNECTIONS the accept loop waits for a slot, and new
        # connections wait in the listen queue (each slot is freed by its idle timeout
        # at the latest)
        self._slots.acquire()
        slot = _Slot(self._slots)
        t = threading.Thread(target=self._serve_connection,
                             args=(request, client_address, slot),
                             daemon=self.daemon_threads)
        try:
            t.start()
        except BaseException:
            # no thread, or a Ctrl-C while start() waited for it to begin: the thread,
            # if it runs, finds the slot already freed
            slot.release()
            raise

    def _serve_connection(self, request: Any, client_address: Any, slot: "_Slot") -> None:
        try:
            self.process_request_thread(request, client_address)
        finally:
            slot.release()

    def handle_error(self, request: Any, client_address: Any) -> None:
        if self.verbose:  # pragma: no cover - only a bug gets here
            super().handle_error(request, client_address)


def _log_stderr(text: str) -> None:
    sys.stderr.write(text)


def make_server(app: WebApp, host: str = "127.0.0.1", port: int = DEFAULT_PORT,
                verbose: bool = False, idle_timeout: float = IDLE_TIMEOUT,
                request_timeout: float = REQUEST_TIMEOUT) -> ThreadingHTTPServer:
    """An HTTP server of ``app`` bound to ``host``:``port`` (port 0: a free one; its
    number is ``server.server_address[1]``); ``serve_forever()`` serves.  A connection
    that sends nothing for ``idle_timeout`` seconds (between requests, or in the middle
    of one) is closed, and so is one whose request has not come whole (request line,
    headers and body) ``request_timeout`` seconds after its first byte: slow or
    half-sent requests do not hold its threads."""
    if verbose:
        app.log = _log_stderr
    return _WebServer((host, port), app, verbose, idle_timeout, request_timeout)


def url_of(server: ThreadingHTTPServer) -> str:
    host, port = server.server_address[:2]
    if isinstance(host, bytes):  # pragma: no cover - (a Unix socket; not made here)
        host = host.decode()
    shown = f"[{host}]" if ":" in str(host) else host
    return f"http://{shown}:{port}/"


def run(app: WebApp, host: str = "127.0.0.1", port: int = DEFAULT_PORT,
        verbose: bool = False) -> int:
    """Serve until Ctrl-C; prints the URL first.  What ``jaipur-ai web`` runs."""
    server = make_server(app, host, port, verbose)
    print(f"jaipur-ai web: serving on {url_of(server)} (Ctrl-C stops)", flush=True)
    try:
        server.serve_forever(poll_interval=0.2)
    except KeyboardInterrupt:
        print("\njaipur-ai web: stopped", flush=True)
        return 130
    finally:
        server.server_close()
    return 0
