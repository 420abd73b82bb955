#!/usr/bin/env python3
"""The reader server under idle and slow clients (#18 item 4).

Starts `picturebook serve` (release build) on the sample books, measures the latency of ordinary
requests alone, then again while IDLE connections sit open saying nothing and SLOW connections
dribble request headers a byte at a time, then checks that the idle timeout closes them all.
Prints p50/p99 per phase and the ratio (the server against itself unloaded is the peer here).

    Tools/bench-slow-clients.py [--idle 10000] [--slow 500] [--requests 1000] [--bin PATH]
"""
import argparse, os, resource, selectors, socket, statistics, subprocess, sys, tempfile, time, urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def start_server(binary, books, idle_timeout):
    cache = tempfile.mkdtemp(prefix="pb-slow-cache-")
    p = subprocess.Popen([binary, "serve", books, "--port", "0", "--no-warm", "--cache", cache,
                          "--idle-timeout", str(idle_timeout)], stdout=subprocess.PIPE, text=True)
    line = p.stdout.readline().strip()
    if "http://" not in line:
        p.kill()
        sys.exit(f"bench-slow-clients: the server did not start: {line!r}")
    port = int(line.rsplit(":", 1)[1].strip("/"))
    return p, port


def timed_requests(port, n):
    paths = ["/api/books", "/api/books/good-morning-farm", "/api/books/good-morning-farm/pages/1/thumb"]
    times = []
    for i in range(n):
        t = time.perf_counter()
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{paths[i % len(paths)]}", timeout=30) as r:
            r.read()
        times.append((time.perf_counter() - t) * 1000)
    times.sort()
    return statistics.median(times), times[int(len(times) * 0.99) - 1]


def is_open(s):
    """True unless the server has closed the connection (a non-blocking peek sees end of file)."""
    try:
        return s.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT) != b""
    except BlockingIOError:
        return True
    except OSError:
        return False


def open_many(port, n):
    socks = []
    for _ in range(n):
        s = socket.socket()
        s.setblocking(True)
        s.connect(("127.0.0.1", port))
        socks.append(s)
    return socks


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--idle", type=int, default=10000)
    ap.add_argument("--slow", type=int, default=500)
    ap.add_argument("--requests", type=int, default=1000)
    ap.add_argument("--idle-timeout", type=float, default=90,
                    help="the server's --idle-timeout; longer than opening all connections takes")
    ap.add_argument("--bin", default=os.path.join(ROOT, ".build/release/picturebook"))
    a = ap.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    need = a.idle + a.slow + 256
    if soft < need:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, max(need, soft)), hard))
    if not os.path.exists(a.bin):
        sys.exit(f"bench-slow-clients: {a.bin} not found; run `swift build -c release --product picturebook` first")
    server, port = start_server(a.bin, os.path.join(ROOT, "Books"), a.idle_timeout)
    try:
        timed_requests(port, 50)  # warm the caches
        base50, base99 = timed_requests(port, a.requests)
        t0 = time.time()
        idle = open_many(port, a.idle)
        slow = open_many(port, a.slow)
        opened = time.time() - t0
        head = b"GET /api/books HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: " + b"a" * 4000
        for s in slow:
            s.send(head[:1])
        still_open = sum(1 for s in idle + slow if is_open(s))
        load50, load99 = timed_requests(port, a.requests)
        for s in slow:
            try:
                s.send(head[1:2])
            except OSError:
                pass
        # Every idle and slow connection must be closed by the server within the idle timeout
        # (plus slack for the machine): count those whose read returns end of file.
        sel = selectors.DefaultSelector()
        for s in idle + slow:
            s.setblocking(False)
            sel.register(s, selectors.EVENT_READ)
        closed, deadline = 0, time.time() + a.idle_timeout + 30
        while closed < len(idle) + len(slow) and time.time() < deadline:
            for key, _ in sel.select(timeout=1):
                try:
                    data = key.fileobj.recv(4096)
                except OSError:
                    data = b""
                if not data:
                    sel.unregister(key.fileobj)
                    key.fileobj.close()
                    closed += 1
        after50, after99 = timed_requests(port, 200)
        print(f"ordinary requests alone                 p50 {base50:7.2f} ms  p99 {base99:7.2f} ms")
        print(f"with {a.idle} idle + {a.slow} slow clients ({still_open} still open when measured)"
              f"   p50 {load50:7.2f} ms  p99 {load99:7.2f} ms  (p99 ratio {load99 / base99:.2f}x; opening them took {opened:.1f} s)")
        print(f"closed by the idle timeout: {closed}/{a.idle + a.slow}; afterwards p99 {after99:.2f} ms")
        print(f"target p99 < 100 ms under load: {'met' if load99 < 100 else 'NOT met'}")
    finally:
        server.terminate()
        server.wait()


if __name__ == "__main__":
    main()
