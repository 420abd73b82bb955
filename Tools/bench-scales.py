#!/usr/bin/env python3
"""Text detection at other scan resolutions (issue 17: "small scans (360–800 px on the long side)
and large ones (5000 px) must both work").

The real corpora's pages are resampled so that their long side is each of the given sizes (Pillow,
Lanczos; the truth boxes scaled with them), `picturebook analyze` runs on every copy, and each copy
is scored by the rules of Tools/bench-unseen.py (imported from it). Scaling real scans does not make
new detail: a 5000 px copy of a 1000 px scan is a soft large scan, and a 400 px copy of it a
coarse small one. What it does show is whether any step after the network depends on the pixel
size — the glyph masks, the rules against drawings, the reading check — and what a page costs in
time and memory at that size.

Usage (release build, Pillow: .build/venv-browser/bin/python after Tools/setup.sh --browser):
  bench-scales.py --bin .build/release/picturebook [--corpus Benchmarks/RealCorpus ...]
                  [--sizes 400,800,2500,5000] [--work .build/bench-scales]
Prints, per corpus, one row per size: P, R, F1, false boxes per text-free page, median ms/page
(analysis alone, `--jobs 1`) and analyze's peak resident memory.
"""
import argparse, importlib.util, json, os, statistics, subprocess, sys

HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location("bench_unseen", os.path.join(HERE, "bench-unseen.py"))
bench_unseen = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bench_unseen)


def scaled_page(p, s):
    """A truth page with every box scaled by s (rounded outwards)."""
    def sc(r):
        return (int(r[0] * s), int(r[1] * s), int(-(-r[2] * s // 1)), int(-(-r[3] * s // 1)))
    q = dict(p)
    q["text"] = [(sc(t), k) for t, k in p["text"]]
    q["grown"] = [sc(t) for t in p["grown"]]
    q["neutral"] = [sc(t) for t in p["neutral"]]
    q["illustrations"] = [sc(t) for t in p["illustrations"]]
    return q


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--corpus", nargs="+", default=[os.path.join(HERE, "..", "Benchmarks", "RealCorpus")])
    ap.add_argument("--sizes", default="400,800,2500,5000")
    ap.add_argument("--work", default=os.path.join(HERE, "..", ".build", "bench-scales"))
    ap.add_argument("--language", default="en")
    a = ap.parse_args()
    try:
        from PIL import Image
    except ImportError:
        print("bench-scales: needs Pillow (.build/venv-browser/bin/python after Tools/setup.sh --browser)", file=sys.stderr)
        return 1
    sizes = [int(v) for v in a.sizes.split(",")]
    for corpus in a.corpus:
        name = os.path.basename(os.path.normpath(corpus))
        try:
            pages = bench_unseen.load_real(corpus)
        except bench_unseen.BenchError as e:
            print(f"bench-scales: {e}", file=sys.stderr)
            return 1
        print(f"\n{name}: {len(pages)} pages, {sum(len(p['text']) for p in pages)} text blocks\n")
        print("| long side | P | R | F1 | false / text-free page | ms/page | peak RSS |")
        print("|---|---:|---:|---:|---:|---:|---:|")
        for size in ["as scanned"] + sizes:
            folder = os.path.join(a.work, name, str(size).replace(" ", "-"))
            os.makedirs(folder, exist_ok=True)
            scaled, where = [], {}
            for p in pages:
                src = os.path.join(corpus, p["key"])
                im = Image.open(src)
                s = 1.0 if size == "as scanned" else size / max(im.size)
                out = os.path.join(folder, p["key"].replace("/", "__"))
                out = os.path.splitext(out)[0] + ".png"
                if not os.path.exists(out):
                    im = im.convert("RGB")
                    if s != 1.0:
                        im = im.resize((max(1, round(im.width * s)), max(1, round(im.height * s))), Image.LANCZOS)
                    im.save(out + ".tmp.png")
                    os.replace(out + ".tmp.png", out)
                q = scaled_page(p, s)
                where[os.path.basename(out)] = q["key"]
                scaled.append(q)
            # wait4 gives this one child's peak resident memory.
            with open(folder + ".analyze.json", "w") as out_f, open(folder + ".analyze.err", "w") as err_f:
                child = subprocess.Popen([a.bin, "analyze", folder, "--detector", "learned", "--language", a.language, "--json",
                                          "--dry-run", "--replace", "--no-masks", "--jobs", "1"], stdout=out_f, stderr=err_f)
                _, status, usage = os.wait4(child.pid, 0)
                child.returncode = os.waitstatus_to_exitcode(status)
            if child.returncode != 0:
                reason = open(folder + ".analyze.err").read()[-500:]
                print(f"bench-scales: analyze failed on {folder}: {reason}", file=sys.stderr)
                return 1
            report = json.load(open(folder + ".analyze.json"))
            dets, ms = {}, []
            for pr in report["pages"]:
                key = where.get(os.path.basename(pr["image"]))
                if key:
                    dets[key] = [bench_unseen.xyxy(b["rect"]) for b in pr["detected"]]
                    ms.append(pr["milliseconds"])
            r = bench_unseen.score(scaled, dets)
            pr_, rc, f1 = r["prf"]
            fb, fp = r["free"]
            rss = f"{usage.ru_maxrss / 1024:.0f} MiB"
            print(f"| {size} | {pr_:.2f} | {rc:.2f} | {f1:.2f} | {fb / fp if fp else float('nan'):.2f} | "
                  f"{statistics.median(ms):.0f} | {rss} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
