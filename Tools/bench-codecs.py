#!/usr/bin/env python3
"""Codec benchmark: Picturebook's PNG/JPEG decode and encode against libjpeg-turbo's djpeg/cjpeg
and libvips, on the same files, in one run. Prints a table of medians and ratios.

    Tools/bench-codecs.py [--runs N] [--keep DIR]

Picturebook is timed in-process (Benchmarks/pbbench: median of N runs after a warm-up). The peer
tools are whole processes, timed with hyperfine; their start-up cost is removed by subtracting the
same tool's time on an 8x8 image, so both sides measure the codec work alone. Ratios are
Picturebook / peer: below 1.0 means Picturebook is faster.
"""
import argparse, json, os, shutil, subprocess, sys, tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCAN = os.path.join(ROOT, "..", "shared", "realdata", "huck-finn-1884", "images", "c01-02.jpg")


def run(cmd, **kw):
    return subprocess.run(cmd, check=True, text=True, capture_output=True, **kw).stdout


def need(tool):
    if shutil.which(tool) is None:
        sys.exit(f"bench-codecs: '{tool}' is missing; run Tools/setup.sh --bench")


def hyperfine(cmds, runs):
    """Median seconds of each command, in order."""
    with tempfile.NamedTemporaryFile(suffix=".json") as out:
        run(["hyperfine", "-N", "--warmup", "3", "--runs", str(runs), "--export-json", out.name, *cmds])
        data = json.load(open(out.name))
    return [r["median"] for r in data["results"]]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--keep", help="keep the generated inputs in this folder")
    args = ap.parse_args()
    for tool in ("djpeg", "cjpeg", "vips", "convert", "hyperfine"):
        need(tool)

    print("building Benchmarks/pbbench (release)…", file=sys.stderr)
    run(["swift", "build", "-c", "release", "--product", "pbbench"], cwd=os.path.join(ROOT, "Benchmarks"))
    pbbench = os.path.join(ROOT, "Benchmarks", ".build", "release", "pbbench")

    work = args.keep or tempfile.mkdtemp(prefix="pb-bench-codecs-")
    os.makedirs(work, exist_ok=True)
    p = lambda name: os.path.join(work, name)
    # A scanned-page-like 1600x2000 input: a real 1884 scan enlarged, with grain so the entropy
    # coder sees scan-like noise rather than a smooth upscale. Plasma if shared/ is absent.
    src = SCAN if os.path.exists(SCAN) else "plasma:fractal"
    run(["convert", "-size", "1600x2000", src, "-resize", "1600x2000!", "-attenuate", "0.4",
         "+noise", "Gaussian", "-seed", "7", p("page.ppm")])
    run(["cjpeg", "-quality", "90", "-outfile", p("page.jpg"), p("page.ppm")])
    run(["cjpeg", "-quality", "90", "-progressive", "-outfile", p("page-progressive.jpg"), p("page.ppm")])
    run(["convert", p("page.ppm"), "-define", "png:compression-level=6", p("page.png")])
    run(["vips", "copy", p("page.ppm"), p("page.v")])
    run(["convert", "-size", "8x8", "xc:gray", p("tiny.ppm")])
    run(["cjpeg", "-outfile", p("tiny.jpg"), p("tiny.ppm")])
    run(["convert", p("tiny.ppm"), p("tiny.png")])
    run(["vips", "copy", p("tiny.ppm"), p("tiny.v")])

    def ours(*a):
        out = run([pbbench, *a, "--repeat", str(args.runs)])
        return json.loads(out.strip().splitlines()[-1])["ms"]

    def peer(cmd, tiny_cmd):
        big, tiny = hyperfine([cmd, tiny_cmd], args.runs)
        return max(big - tiny, 1e-6) * 1000

    null = "/dev/null"
    rows = []
    rows.append(("JPEG decode, full 1600x2000", ours("decode", p("page.jpg")),
                 peer(f"djpeg -outfile {null} {p('page.jpg')}", f"djpeg -outfile {null} {p('tiny.jpg')}"), "djpeg"))
    rows.append(("JPEG decode, progressive", ours("decode", p("page-progressive.jpg")),
                 peer(f"djpeg -outfile {null} {p('page-progressive.jpg')}", f"djpeg -outfile {null} {p('tiny.jpg')}"), "djpeg"))
    for s in (2, 4, 8):
        rows.append((f"JPEG decode, DCT 1/{s}", ours("decode", p("page.jpg"), "--scale", str(s)),
                     peer(f"djpeg -scale 1/{s} -outfile {null} {p('page.jpg')}", f"djpeg -outfile {null} {p('tiny.jpg')}"), "djpeg"))
    rows.append(("JPEG encode, q90", ours("encode-jpeg", p("page.png"), "--quality", "90"),
                 peer(f"cjpeg -quality 90 -outfile {null} {p('page.ppm')}", f"cjpeg -quality 90 -outfile {null} {p('tiny.ppm')}"), "cjpeg"))
    rows.append(("PNG decode, RGB 8-bit", ours("decode", p("page.png")),
                 peer(f"vips avg {p('page.png')}", f"vips avg {p('tiny.png')}"), "vips"))
    out_png = p("out.png")
    for level in (1, 6):
        rows.append((f"PNG encode, level {level}", ours("encode-png", p("page.png"), "--level", str(level)),
                     peer(f"vips copy {p('page.v')} {out_png}[compression={level}]",
                          f"vips copy {p('tiny.v')} {out_png}[compression={level}]"), "vips"))

    full = rows[0][1]
    eighth = rows[4][1]
    print()
    print(f"{'operation':32} {'picturebook':>12} {'peer':>10} {'ratio':>7}  peer tool")
    for name, a, b, tool in rows:
        print(f"{name:32} {a:10.2f}ms {b:8.2f}ms {a / b:7.2f}  {tool}")
    print()
    print(f"JPEG full decode vs djpeg: {rows[0][1] / rows[0][2]:.2f}x (target <= 1.15x)")
    print(f"JPEG 1/8 DCT-scaled decode is {full / eighth:.1f}x faster than full decode (target >= 4x)")
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
