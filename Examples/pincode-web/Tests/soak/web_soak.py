#!/usr/bin/env python3
"""The connection soak: starts the release server on 127.0.0.1, opens and closes CONNECTIONS
WebSockets through a third-party client (websocket-client), half of them visits (tap the PIN,
type a valid code, press Submit), and reads the server's resident set (/proc/PID/statm, as an
outside observer sees it) after each tenth. Fails when the last tenth's resident set exceeds the
first tenth's by more than LIMIT percent, when a visit does not end submitted, or when /health
does not count every connection and no session left once they are closed.

usage: web_soak.py SERVER_BINARY [--connections N] [--workers W] [--limit PERCENT] [--timeout SECONDS]
"""
import argparse
import json
import os
import re
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request

import websocket  # websocket-client, from PyPI (make web-soak installs it)

PIN = '{"type":"pointer","control":"pin","phase":"%s","x":10,"y":10}'
SUBMIT = '{"type":"pointer","control":"submit","phase":"%s","x":10,"y":10}'
DIGIT = '{"type":"insertText","text":"%s"}'
# Each step of a visit changes what the page shows: the server answers each with one update.
VISIT = [PIN % "down", PIN % "up"] + [DIGIT % digit for digit in "1357"] + [SUBMIT % "down", SUBMIT % "up"]


class Soak:
    def __init__(self, base, pid, connections, deadline):
        self.base, self.pid, self.connections, self.deadline = base, pid, connections, deadline
        self.lock = threading.Lock()
        self.next = 0          # the next connection's index
        self.done = 0          # connections closed
        self.failures = []
        self.samples = []      # (connections closed, resident bytes) after each tenth
        self.tenths = {connections * k // 10 for k in range(1, 11)}

    def health(self):
        """The server's /health, or None when it has none (a server before the route)."""
        try:
            with urllib.request.urlopen(f"http://{self.base}/health", timeout=10) as response:
                return json.load(response)
        except urllib.error.HTTPError:
            return None

    def resident_bytes(self):
        with open(f"/proc/{self.pid}/statm") as statm:
            return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")

    def claim(self):
        with self.lock:
            if self.failures or self.next >= self.connections or time.monotonic() > self.deadline:
                return None
            self.next += 1
            return self.next - 1

    def one(self, index):
        """A connection: open, read the snapshot, close; every other one a visit in between."""
        ws = websocket.create_connection(f"ws://{self.base}/ws", timeout=10)
        try:
            if not ws.recv().startswith('{"properties"'):
                raise AssertionError(f"connection {index}: no snapshot first")
            if index % 2:
                for message in VISIT:
                    ws.send(message)
                    reply = ws.recv()
                if '"status.text":"Submitted code' not in reply:
                    raise AssertionError(f"visit {index}: Submit fired no action: {reply[:200]}")
        finally:
            ws.close()

    def worker(self):
        while (index := self.claim()) is not None:
            try:
                self.one(index)
            except Exception as error:  # a failed connection ends the soak: report it
                with self.lock:
                    self.failures.append(f"connection {index}: {error!r}")
                return
            with self.lock:
                self.done += 1
                sample = self.done in self.tenths
            if sample:
                resident = self.resident_bytes()
                with self.lock:
                    self.samples.append((self.done, resident))


def start(binary):
    """Starts the server on a free port of 127.0.0.1; returns it and its host:port."""
    server = subprocess.Popen([binary, "--host", "127.0.0.1", "--port", "0"], stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, text=True)
    line = server.stdout.readline()
    match = re.search(r"http://(127\.0\.0\.1:\d+)/", line)
    if not match:
        server.kill()
        raise SystemExit(f"web soak: the server printed no URL: {line!r}")
    # Drain what else it prints, so that it never blocks on a full pipe.
    threading.Thread(target=lambda: [None for _ in server.stdout], daemon=True).start()
    return server, match.group(1)


def soak_and_measure(soak, options, started):
    """Runs the soak's workers and checks what it measured; returns (passed, failed)."""
    workers = [threading.Thread(target=soak.worker) for _ in range(options.workers)]
    for thread in workers:
        thread.start()
    for thread in workers:
        thread.join()
    elapsed = time.monotonic() - started
    for failure in soak.failures[:5]:
        print(f"FAILED: {failure}", file=sys.stderr)
    if soak.failures or soak.done < options.connections:
        print(f"FAILED: {soak.done:,} of {options.connections:,} connections in {elapsed:.0f} s "
              f"({len(soak.failures)} failed, limit {options.timeout:.0f} s)", file=sys.stderr)
        return 0, 1
    # Every connection got its snapshot first and every visit ended submitted.
    passed, failed = 1, 0

    # The server ends a session just after the client sees the close.
    for _ in range(100):
        health = soak.health()
        if not health or health["sessions"] == 0:
            break
        time.sleep(0.05)
    print(f"web soak: /health after the last connection: {json.dumps(health)}")
    ok = health is not None and health["sessions"] == 0 and health["connections"] == options.connections
    passed, failed = passed + ok, failed + (not ok)

    samples = sorted(soak.samples, key=lambda sample: sample[0])
    print("| after | connections | resident set |")
    print("|---|---|---|")
    for tenth, (count, resident) in enumerate(samples, 1):
        print(f"| tenth {tenth} | {count:,} | {resident / 2**20:.1f} MiB |")
    first, last = samples[0][1], samples[-1][1]
    growth = (last - first) / first * 100
    ok = growth <= options.limit
    print(f"web soak: {options.connections:,} connections ({options.connections // 2:,} visits) in {elapsed:.0f} s; "
          f"resident set {first / 2**20:.1f} MiB after the first tenth, {last / 2**20:.1f} MiB after the last "
          f"({growth:+.1f} %, limit +{options.limit:g} %): {'holds' if ok else 'FAILS'}")
    return passed + ok, failed + (not ok)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("server")
    parser.add_argument("--connections", type=int, default=10000)
    parser.add_argument("--workers", type=int, default=4, help="connections open at once")
    parser.add_argument("--limit", type=float, default=5.0, help="the largest growth allowed, in percent")
    parser.add_argument("--timeout", type=float, help="seconds before giving up (default: 1 s per 50 connections, at least 120)")
    options = parser.parse_args()
    if options.connections < 100:
        parser.error("--connections: at least 100, so that a tenth is a sample")
    options.timeout = options.timeout or max(120.0, options.connections / 50)
    started = time.monotonic()
    server, base = start(options.server)
    try:
        soak = Soak(base, server.pid, options.connections, started + options.timeout)
        passed, failed = soak_and_measure(soak, options, started)
    finally:
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
    print(f"{passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
