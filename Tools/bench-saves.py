#!/usr/bin/env python3
"""Save latency of `picturebook serve --edit` with many editors at once on loopback: N editors
sign in, then each saves its page M times in a row (re-reading on 409 when two share a page).
Prints p50/p95/p99/max of the PUT round trip for the saves that got 200, saves per second and the
load average; with --runs N it repeats the whole run (fresh server and book) and prints the median
of each figure over the runs.

    Tools/bench-saves.py [--binary .build/release/picturebook] [--editors 20] [--saves 30] [--runs 3] [--timing]

--timing runs the server with PICTUREBOOK_SAVE_TIMING=1 and prints where a batch's time goes
(its steps summed over the batch's changes, averaged over the batches; "answered" is when its
saves were answered; in older builds "book" is the book.json write behind them, in newer ones the
writer thread's writes are summarised on a line of their own) and where each PUT's time goes
inside the server (p50/p99 of each part).

The binary defaults to the release build when there is one, else the debug build (it says which).
"""
import argparse, http.client, json, os, shutil, socket, statistics, subprocess, sys, tempfile, threading, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def percentile(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--binary")
    ap.add_argument("--editors", type=int, default=20)
    ap.add_argument("--saves", type=int, default=30)
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("--timing", action="store_true", help="print the server's time per save step")
    args = ap.parse_args()
    binary = args.binary
    if not binary:
        rel = os.path.join(ROOT, ".build/release/picturebook")
        binary = rel if os.path.exists(rel) else os.path.join(ROOT, ".build/debug/picturebook")
    kind = "release" if "/release/" in binary else "debug" if "/debug/" in binary else "given"
    runs = [run_once(binary, kind, args) for _ in range(args.runs)]
    if args.runs > 1:
        med = lambda k: statistics.median(r[k] for r in runs)
        print(f"bench-saves: median of {args.runs} runs: p50 {med('p50'):.1f}  p95 {med('p95'):.1f}  p99 {med('p99'):.1f} ms, "
              f"{med('rate'):.0f} saves/s, load average {med('load'):.2f}")
    sys.exit(1 if any(r["failures"] for r in runs) else 0)


def run_once(binary, kind, args):
    work = tempfile.mkdtemp(prefix="pb-bench-saves-")
    lib = os.path.join(work, "books")
    os.makedirs(lib)
    shutil.copytree(os.path.join(ROOT, "Books/good-morning-farm"), os.path.join(lib, "farm"))
    for i in range(args.editors):
        subprocess.run([binary, "users", "add", f"e{i}", "--role", "editor", "--password-stdin", "--library", lib],
                       input=f"bench password {i}\n".encode(), check=True, stderr=subprocess.DEVNULL)
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    env = dict(os.environ)
    log = os.environ.get("BENCH_SERVER_LOG", os.devnull)
    if args.timing:
        env["PICTUREBOOK_SAVE_TIMING"] = "1"
        log = os.path.join(work, "server.log")
    proc = subprocess.Popen([binary, "serve", lib, "--edit", "--port", str(port), "--no-warm", "--cache", os.path.join(work, "cache")],
                            stdout=subprocess.PIPE, stderr=open(log, "w"), env=env)
    proc.stdout.readline()

    book = json.load(open(os.path.join(lib, "farm/book.json")))
    pages = [i + 1 for i, p in enumerate(book["pages"]) if p.get("textBoxes")]
    latencies, conflicts, failures = [], [0], [0]
    lock = threading.Lock()
    ready = threading.Barrier(args.editors)

    def editor(i):
        c = http.client.HTTPConnection("127.0.0.1", port, timeout=60)

        def req(method, path, body=None, headers=None):
            h = dict(headers or {})
            data = json.dumps(body).encode() if body is not None else None
            if data:
                h["Content-Type"] = "application/json"
            c.request(method, path, body=data, headers=h)
            r = c.getresponse()
            return r.status, r.getheader("Set-Cookie"), r.read()

        st, cookie, body = req("POST", "/api/session", {"name": f"e{i}", "password": f"bench password {i}"})
        auth = {"Cookie": cookie.split(";")[0], "X-CSRF-Token": json.loads(body)["csrf"]}
        n = pages[i % len(pages)]
        ready.wait()
        done = 0
        while done < args.saves:
            st, _, body = req("GET", "/api/edit/books/farm", headers=auth)
            doc = json.loads(body)
            page = doc["book"]["pages"][n - 1]
            page["textBoxes"][0].setdefault("text", {})["en"] = f"e{i} save {done}"
            t = time.perf_counter()
            st, _, body = req("PUT", f"/api/edit/books/farm/pages/{n}", page, dict(auth, **{"If-Match": f'"{doc["revision"]}"'}))
            dt = time.perf_counter() - t
            with lock:
                if st == 200:
                    latencies.append(dt)
                    done += 1
                elif st == 409:
                    conflicts[0] += 1
                else:
                    failures[0] += 1
                    done += 1

    load_before = os.getloadavg()[0]
    threads = [threading.Thread(target=editor, args=(i,)) for i in range(args.editors)]
    t0 = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.perf_counter() - t0
    load_after = os.getloadavg()[0]
    proc.terminate()
    proc.wait()
    ms = [x * 1000 for x in latencies]
    print(f"bench-saves: {kind} build ({binary}), {args.editors} editors on {len(pages)} pages of one book, "
          f"{args.saves} saves each, loopback, {os.cpu_count()} cores")
    print(f"bench-saves: {len(ms)} saves (200), {conflicts[0]} conflicts (409, re-read and retried), {failures[0]} failures")
    print(f"bench-saves: PUT latency ms  p50 {percentile(ms, 50):.1f}  p95 {percentile(ms, 95):.1f}  "
          f"p99 {percentile(ms, 99):.1f}  max {max(ms):.1f}")
    print(f"bench-saves: {len(ms) / wall:.0f} saves/s over {wall:.1f} s (sign-ins excluded from latencies); "
          f"load average {load_before:.2f} before, {load_after:.2f} after (1 min)")
    if args.timing:
        print_timing(os.path.join(work, "server.log"))
    shutil.rmtree(work, ignore_errors=True)
    return {"p50": percentile(ms, 50), "p95": percentile(ms, 95), "p99": percentile(ms, 99), "rate": len(ms) / wall,
            "load": max(load_before, load_after), "failures": failures[0]}


def print_timing(log):
    # Lines like "save-batch: 3 changes  total 12.34 ms  refresh 0.01  serialize 0.20  ..."
    batches, requests, writes = [], [], []
    for line in open(log):
        if line.startswith("save-write:"):
            # "save-write: book 12.34 ms  seq 17  bytes 45678" (the writer thread, behind the answers)
            w = line.split()
            writes.append({"book": float(w[2]), "seq": int(w[5])})
            continue
        if line.startswith("save-request:"):
            # "save-request: total 12.3  before 0.4  thread 0.1  save 9.8  resume 0.2  after 1.8"
            w = line.split()[1:]
            requests.append({k: float(v) for k, v in zip(w[0::2], w[1::2])})
            continue
        if not line.startswith("save-batch:"):
            continue
        words = line.split()
        d = {"changes": float(words[1]), "total": float(words[4])}
        rest = words[6:]
        for name, value in zip(rest[0::2], rest[1::2]):
            d[name] = float(value)
        batches.append(d)
    if not batches:
        print("bench-saves: no timing lines from the server (is PICTUREBOOK_SAVE_TIMING supported?)")
        return
    keys = [k for k in batches[0] if k not in ("changes", "total")]
    mean = lambda k: statistics.mean(b[k] for b in batches)
    totals = sorted(b["total"] for b in batches)
    print(f"bench-saves: {len(batches)} batches, {mean('changes'):.1f} changes a batch (max {max(b['changes'] for b in batches):.0f}); "
          f"batch time ms mean {mean('total'):.2f}, p50 {percentile(totals, 50):.2f}, p99 {percentile(totals, 99):.2f}")
    print("bench-saves: mean ms per batch  " + "  ".join(f"{k} {mean(k):.2f}" for k in keys))
    # The slowest batches, whose time a p99 save waits through: which step made them slow.
    slow = sorted(batches, key=lambda b: b["total"])[-max(1, len(batches) // 20):]
    print(f"bench-saves: slowest 5% of batches ({len(slow)}), mean ms  total {statistics.mean(b['total'] for b in slow):.2f}  "
          + "  ".join(f"{k} {statistics.mean(b[k] for b in slow):.2f}" for k in keys))
    if writes:
        # Coalesced: one write may carry several batches; "behind" is how many journal entries the
        # write's state had that the one before it did not.
        ws = sorted(w["book"] for w in writes)
        seqs = [w["seq"] for w in writes]
        steps = [b - a for a, b in zip(seqs, seqs[1:])]
        print(f"bench-saves: {len(writes)} book.json writes behind the answers for {len(batches)} batches; write ms mean "
              f"{statistics.mean(ws):.2f}, p50 {percentile(ws, 50):.2f}, p99 {percentile(ws, 99):.2f}; entries per write "
              f"mean {statistics.mean(steps) if steps else 0:.1f}, max {max(steps) if steps else 0}")
    if requests:
        # Inside the server, per PUT: before = routing, session, book lookup, body; thread = until
        # the save's own thread runs; save = the editor (waiting for and running its batch);
        # resume = back onto the server's threads; after = the answer and the regeneration task.
        parts = [k for k in requests[0]]
        print(f"bench-saves: inside the server per PUT ({len(requests)} saves incl. 409s), ms p50/p99  " + "  ".join(
            f"{k} {percentile([r[k] for r in requests], 50):.1f}/{percentile([r[k] for r in requests], 99):.1f}" for k in parts))


if __name__ == "__main__":
    main()
