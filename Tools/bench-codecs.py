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
    ap.add_argument("--runs", type=int, default=21)
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

    # 1600x2000 pages, the size the issue targets: a generated picture-book page (below) and three made
    # from the shared real scans:
    #   scan    an 1884 text page with a pen drawing, cream paper, JPEG q85 (a typical library scan)
    #   plate   a 1904 colour plate, JPEG q85
    #   grainy  the scan with heavy sensor grain, JPEG q90: the worst case for the entropy decoder
    # Plasma fractals stand in when ../shared is absent.
    pigs = os.path.join(ROOT, "..", "shared", "realdata", "three-little-pigs-1904", "images", "imgplate-2.jpg")
    sources = {
        "scan": (SCAN if os.path.exists(SCAN) else "plasma:fractal", [], 85),
        "plate": (pigs if os.path.exists(pigs) else "plasma:fractal", [], 85),
        "grainy": (SCAN if os.path.exists(SCAN) else "plasma:fractal", ["-attenuate", "0.4", "+noise", "Gaussian"], 90),
    }
    for name, (src, extra, quality) in sources.items():
        run(["convert", "-size", "1600x2000", src, "-resize", "1600x2000!", "-seed", "7", *extra, p(f"{name}.ppm")])
        run(["cjpeg", "-quality", str(quality), "-outfile", p(f"{name}.jpg"), p(f"{name}.ppm")])
    # And the pages Picturebook exists for: a generated picture-book page (watercolour scene, text,
    # scan wear), re-encoded by cjpeg at q85 like the others.
    print("generating a 1600x2000 picture-book page…", file=sys.stderr)
    run(["swift", "build", "--product", "picturebook"], cwd=ROOT)
    run([os.path.join(ROOT, ".build", "debug", "picturebook"), "generate", "--out", p("gen"), "--pages", "1",
         "--seed", "1001", "--size", "1600x2000", "--no-clean", "--no-truth", "--quality", "100"])
    run(["convert", p("gen/page-001.jpg"), p("book.ppm")])
    run(["cjpeg", "-quality", "85", "-outfile", p("book.jpg"), p("book.ppm")])
    run(["cjpeg", "-quality", "85", "-progressive", "-outfile", p("scan-progressive.jpg"), p("scan.ppm")])
    run(["convert", p("plate.ppm"), p("plate.png")])
    run(["vips", "copy", p("plate.ppm"), p("plate.v")])
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
    djpeg_tiny = f"djpeg -outfile {null} {p('tiny.jpg')}"
    rows = []
    scaled = {}
    for name in ("book", "scan", "plate", "grainy"):
        f = p(f"{name}.jpg")
        for s in (1, 2, 4, 8):
            label = f"JPEG decode {name}, " + ("full" if s == 1 else f"DCT 1/{s}")
            ms = ours("decode", f, "--scale", str(s))
            scaled[(name, s)] = ms
            flag = "" if s == 1 else f"-scale 1/{s} "
            rows.append((label, ms, peer(f"djpeg {flag}-outfile {null} {f}", djpeg_tiny), "djpeg"))
    f = p("scan-progressive.jpg")
    rows.append(("JPEG decode scan, progressive", ours("decode", f), peer(f"djpeg -outfile {null} {f}", djpeg_tiny), "djpeg"))
    rows.append(("JPEG encode plate, q90", ours("encode-jpeg", p("plate.png"), "--quality", "90"),
                 peer(f"cjpeg -quality 90 -outfile {null} {p('plate.ppm')}", f"cjpeg -quality 90 -outfile {null} {p('tiny.ppm')}"), "cjpeg"))
    rows.append(("PNG decode plate, RGB 8-bit", ours("decode", p("plate.png")),
                 peer(f"vips avg {p('plate.png')}", f"vips avg {p('tiny.png')}"), "vips"))
    out_png = p("out.png")
    # Same zlib level and row filters on both sides: .fast is level 1 + "up", .default level 6 + adaptive.
    for preset, vopts in (("fast", "compression=1,filter=up"), ("default", "compression=6,filter=all")):
        rows.append((f"PNG encode plate, {preset}", ours("encode-png", p("plate.png"), "--preset", preset),
                     peer(f"vips copy {p('plate.v')} {out_png}[{vopts}]", f"vips copy {p('tiny.v')} {out_png}[{vopts}]"), "vips"))

    print()
    print(f"{'operation':34} {'picturebook':>12} {'peer':>10} {'ratio':>7}  peer tool")
    for name, a, b, tool in rows:
        print(f"{name:34} {a:10.2f}ms {b:8.2f}ms {a / b:7.2f}  {tool}")
    print()
    for name in ("book", "scan", "plate", "grainy"):
        full = [r for r in rows if r[0] == f"JPEG decode {name}, full"][0]
        print(f"{name:7} JPEG full decode vs djpeg: {full[1] / full[2]:.2f}x (target <= 1.15x);"
              f" 1/8 DCT-scaled decode {scaled[(name, 1)] / scaled[(name, 8)]:.1f}x faster than full (target >= 4x)")
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
