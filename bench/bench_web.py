"""The web server under load: a burst of simultaneous requests, latency with idle
connections held open, and the server's memory over many searches.

Starts ``jaipur_ai.doors.web`` in this process on a free loopback port and measures:

* burst: N clients send ``GET /api`` at once; how many are answered, and how long the
  burst takes;
* idle: M connections are opened and left silent (half of them with half a request),
  then K requests are timed one after another: p50 and p99 latency;
* memory: S short analyses (``POST /api/analyse``, 200 iterations), the process's
  resident memory sampled every 100: it must stay flat.

Every loop is bounded in count and time, and only the loopback address is used.

    PYTHONPATH=. python3 bench/bench_web.py [--burst 1000] [--idle 500] [--searches 1000]
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import socket
import statistics
import sys
import threading
import time
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from jaipur_ai.doors import web  # noqa: E402
from jaipur_ai.doors.webapi import WebApp  # noqa: E402

TIMEOUT = 60.0


def _rss_mb() -> float:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def burst(url: str, n: int) -> dict:
    ok: list = []

    def get() -> None:
        try:
            with urllib.request.urlopen(url + "api", timeout=TIMEOUT) as r:
                ok.append(r.status == 200)
        except OSError:
            ok.append(False)
    threads = [threading.Thread(target=get) for _ in range(n)]
    t0 = time.perf_counter()
    for th in threads:
        th.start()
    for th in threads:
        th.join(TIMEOUT * 2)
    return {"clients": n, "answered": sum(ok), "seconds": round(time.perf_counter() - t0, 2)}


def idle_latency(srv: object, url: str, m: int, k: int) -> dict:
    host, port = srv.server_address[:2]                 # type: ignore[attr-defined]
    socks = [socket.create_connection((host, port), timeout=TIMEOUT) for _ in range(m)]
    for i, s in enumerate(socks):
        if i % 2:
            s.sendall(b"GET /api HTTP/1.1\r\nHost: 127.0.0.1\r\n")
    times = []
    for _ in range(k):
        t0 = time.perf_counter()
        with urllib.request.urlopen(url + "api", timeout=TIMEOUT) as r:
            r.read()
        times.append(time.perf_counter() - t0)
    for s in socks:
        s.close()
    times.sort()
    return {"idle_connections": m, "requests": k,
            "p50_ms": round(1000 * statistics.median(times), 2),
            "p99_ms": round(1000 * times[min(len(times) - 1, int(0.99 * len(times)))], 2)}


def searches(url: str, n: int) -> dict:
    body = json.dumps({"position": "sample", "iterations": 200, "seed": 1}).encode()
    rss = [round(_rss_mb(), 1)]
    for i in range(1, n + 1):
        req = urllib.request.Request(url + "api/analyse", data=body,
                                     headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=TIMEOUT) as r:
            r.read()
        if i % 100 == 0:
            rss.append(round(_rss_mb(), 1))
    return {"searches": n, "rss_mb_every_100": rss}


def main(argv: object = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--burst", type=int, default=1000)
    ap.add_argument("--idle", type=int, default=500)
    ap.add_argument("--requests", type=int, default=200)
    ap.add_argument("--searches", type=int, default=1000)
    a = ap.parse_args(argv)            # type: ignore[arg-type]
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, max(soft, 4 * a.burst + 256)), hard))
    srv = web.make_server(WebApp(level="greedy", hint="greedy"), port=0)
    th = threading.Thread(target=srv.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    th.start()
    url = web.url_of(srv)
    try:
        out = {"burst": burst(url, a.burst), "idle": idle_latency(srv, url, a.idle, a.requests),
               "memory": searches(url, a.searches)}
    finally:
        srv.shutdown()
        srv.server_close()
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
