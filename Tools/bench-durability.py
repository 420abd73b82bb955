#!/usr/bin/env python3
"""What making a journal write durable costs on this disk, by the way it is done. For the editor's
journal (Documentation/Editing.md, "The journal"): each step writes one batch's bytes and waits
until they are on disk, and the modes take turns (one step of each, round and round) so that they
all see the same load. Prints p50/p95/p99/max per mode in ms and the load average before and after.

    Tools/bench-durability.py [--dir DIR] [--steps 300] [--bytes 12000] [--gap-ms 5] [--noise [--noise-rate MIB_S]]

Modes:
  append+fsync       O_APPEND write, fsync (the journal on main before session 8)
  append+fdatasync   O_APPEND write, fdatasync (the file grows: its size must be committed anyway)
  zeros+fdatasync    pwrite over a region written with zeros and fsynced once beforehand, then
                     fdatasync: no size or block change, so nothing but the data needs to reach disk
  zeros+fsync        the same with fsync (the mtime change is metadata for fsync, not fdatasync)
  fallocate+fdatasync  pwrite into a region reserved with fallocate(), then fdatasync: the reserved
                     blocks are "unwritten" extents, and marking them written is metadata again

--noise adds a process beside the steps that keeps writing a large file (1 MiB writes, an fsync
every 32 MiB), as a build beside the server does; --noise-rate caps it (MiB/s).

DIR defaults to a temporary folder on the file system of this checkout (the one the editor's
books are on in the benchmarks).
"""
import argparse, multiprocessing, os, statistics, tempfile, time

CHUNK = 1 << 20


def percentile(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))]


class Append:
    def __init__(self, path, sync):
        self.fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        self.sync = sync

    def step(self, data):
        os.write(self.fd, data)
        self.sync(self.fd)


class Overwrite:
    """Writes over a preallocated region, preallocating the next chunk when the end comes near
    (outside the timed step, as a journal would do it off the answer path)."""

    def __init__(self, path, sync, fallocate):
        self.fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        self.sync, self.fallocate = sync, fallocate
        self.used = 0
        self.size = 0

    def prepare(self, need):
        while self.used + need > self.size:
            if self.fallocate:
                os.posix_fallocate(self.fd, self.size, CHUNK)
            else:
                os.pwrite(self.fd, bytes(CHUNK), self.size)
            os.fsync(self.fd)
            self.size += CHUNK

    def step(self, data):
        os.pwrite(self.fd, data, self.used)
        self.used += len(data)
        self.sync(self.fd)


def noise(path, stop, rate):
    """Writes like a build beside the server: big files, now and then synced."""
    block = bytes(range(256)) * 4096
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    n = 0
    while not stop.is_set():
        t = time.perf_counter()
        os.write(fd, block)
        n += 1
        if rate:
            time.sleep(max(0.0, 1 / rate - (time.perf_counter() - t)))
        if n % 32 == 0:
            os.fsync(fd)
        if n % 256 == 0:
            os.ftruncate(fd, 0)
            os.lseek(fd, 0, os.SEEK_SET)
    os.close(fd)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap.add_argument("--dir", default=os.path.join(root, ".build"))
    ap.add_argument("--steps", type=int, default=300)
    ap.add_argument("--bytes", type=int, default=12000, help="bytes a step (a batch's journal lines)")
    ap.add_argument("--gap-ms", type=float, default=5, help="pause between steps (the rest of a batch)")
    ap.add_argument("--noise", action="store_true", help="write a large file beside the steps")
    ap.add_argument("--noise-rate", type=float, default=0, help="MiB/s of the writer beside (0: as fast as it can)")
    args = ap.parse_args()
    os.makedirs(args.dir, exist_ok=True)
    work = tempfile.mkdtemp(prefix="pb-bench-durability-", dir=args.dir)
    modes = {
        "append+fsync": Append(os.path.join(work, "a"), os.fsync),
        "append+fdatasync": Append(os.path.join(work, "b"), os.fdatasync),
        "zeros+fdatasync": Overwrite(os.path.join(work, "c"), os.fdatasync, False),
        "zeros+fsync": Overwrite(os.path.join(work, "c2"), os.fsync, False),
        "fallocate+fdatasync": Overwrite(os.path.join(work, "d"), os.fdatasync, True),
    }
    line = (b'{"seq":1,"summary":"' + b"x" * max(0, args.bytes - 24) + b'"}\n')[: args.bytes]
    times = {m: [] for m in modes}
    stop = multiprocessing.Event()
    noisy = None
    if args.noise:
        noisy = multiprocessing.Process(target=noise, args=(os.path.join(work, "noise"), stop, args.noise_rate))
        noisy.start()
    load0 = os.getloadavg()[0]
    try:
        for _ in range(args.steps):
            for name, m in modes.items():
                if isinstance(m, Overwrite):
                    m.prepare(len(line))
                t = time.perf_counter()
                m.step(line)
                times[name].append((time.perf_counter() - t) * 1000)
                time.sleep(args.gap_ms / 1000)
    finally:
        if noisy:
            stop.set()
            noisy.join()
        for m in modes.values():
            os.close(m.fd)
        for f in os.listdir(work):
            os.unlink(os.path.join(work, f))
        os.rmdir(work)
    load1 = os.getloadavg()[0]
    print(f"bench-durability: {args.steps} steps of {args.bytes} bytes per mode, in {args.dir}, "
          f"load average {load0:.2f}-{load1:.2f}" + (f", with a writer beside ({args.noise_rate:g} MiB/s)" if args.noise and args.noise_rate else ", with a writer beside" if args.noise else ""))
    for name, xs in times.items():
        print(f"  {name:20s} p50 {statistics.median(xs):6.2f}  p95 {percentile(xs, 95):6.2f}  "
              f"p99 {percentile(xs, 99):6.2f}  max {max(xs):6.2f}  mean {statistics.mean(xs):6.2f} ms")


if __name__ == "__main__":
    main()
