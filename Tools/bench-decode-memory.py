#!/usr/bin/env python3
"""Peak memory of every decode against the target of issue #18:

    peak RSS <= 1.1 x the decoded image (width x height x 4 bytes, RGBA) + 64 MiB,
    whatever the file declares.

Makes a set of normal and crafted PNG and JPEG files in a scratch folder, runs
`picturebook info FILE --json` (which decodes the whole image) and `picturebook convert FILE
out.png` on each under /usr/bin/time -v, and prints the peak resident set size beside the bound.
A file the decoder refuses decoded nothing, so its bound is 64 MiB: that is the point of
"whatever the file declares" (a 44-byte file must not cost gigabytes).

    Tools/bench-decode-memory.sh [--bin .build/release/picturebook] [--quick] [--keep]

Exit status 1 when any run exceeds its bound. Uses Pillow (the browser tests' venv, made by
Tools/setup.sh --browser) to write the large normal files; the crafted ones are assembled here
byte by byte.
"""
import argparse
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib

MIB = 1 << 20
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def chunk(kind, data, declared=None):
    length = len(data) if declared is None else declared
    body = kind.encode() + data
    return struct.pack(">I", length) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)


PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def ihdr(w, h, depth=8, colour=2):
    return chunk("IHDR", struct.pack(">IIBBBBB", w, h, depth, colour, 0, 0, 0))


def tiny_idat(w, colour_bytes=3):
    # One row of zeros for a 1-pixel-high image; for a taller declared image, simply too little.
    return chunk("IDAT", zlib.compress(b"\x00" * (1 + w * colour_bytes)))


def zeros_stream(n):
    """A zlib stream of n zero bytes, made a block at a time (n may be hundreds of MiB)."""
    z = zlib.compressobj(9)
    block = b"\x00" * (16 * MIB)
    out = []
    left = n
    while left > 0:
        take = min(left, len(block))
        out.append(z.compress(block[:take]))
        left -= take
    out.append(z.flush())
    return b"".join(out)


def patch_jpeg_size(data, side):
    """The same JPEG with its frame header declaring side x side."""
    b = bytearray(data)
    i = 2
    while i + 9 < len(b):
        if b[i] != 0xFF:
            i += 1
            continue
        marker = b[i + 1]
        if marker in (0xC0, 0xC1, 0xC2):
            b[i + 5:i + 7] = struct.pack(">H", side)
            b[i + 7:i + 9] = struct.pack(">H", side)
            return bytes(b)
        i += 2 + (b[i + 2] << 8 | b[i + 3])
    raise SystemExit("bench-decode-memory: no frame header in the JPEG to patch")


def make_files(folder, quick):
    """(name, path, what) for every file measured; `quick` halves the large sides."""
    from PIL import Image  # only the large normal files need it

    files = []

    def add(name, data, what):
        path = os.path.join(folder, name)
        with open(path, "wb") as f:
            f.write(data)
        files.append((name, path, what))

    def add_image(name, image, what, **save):
        path = os.path.join(folder, name)
        image.save(path, **save)
        files.append((name, path, what))

    # Normal files, small to large. Noise, so the encoders cannot shrink them to nothing.
    k = 2 if quick else 1
    W, H, w2, h2 = 6000 // k, 4000 // k, 4000 // k, 3000 // k
    noise = Image.effect_noise((W, H), 60).convert("RGB")
    part = noise.crop((0, 0, w2, h2))
    add_image(f"rgb-{W}x{H}.png", noise, "normal", compress_level=1)
    add_image(f"palette-{W}x{H}.png", noise.convert("P"), "normal", compress_level=1)
    add_image(f"gray16-{w2}x{h2}.png", part.convert("L").convert("I;16"), "normal", compress_level=1)
    add_image(f"rgba-{w2}x{h2}.png", part.convert("RGBA"), "normal", compress_level=1)
    add_image(f"baseline-{W}x{H}.jpg", noise, "normal", quality=90)
    add_image(f"progressive-{W}x{H}.jpg", noise, "normal", quality=90, progressive=True)
    add_image(f"progressive-444-{W}x{H}.jpg", noise, "normal", quality=95, progressive=True, subsampling=0)
    add_image(f"gray-progressive-{W}x{H}.jpg", noise.convert("L"), "normal", progressive=True)
    add_image(f"cmyk-{w2}x{h2}.jpg", part.convert("CMYK"), "normal", quality=90)
    # JPEG 2000 when Pillow was built with OpenJPEG (the PyPI wheels are): lossless, so the file
    # is about as large as the image and holding it whole would show.
    # Lossless noise is the worst case (the codestream is as large as the image, and OpenJPEG
    # holds a tile's codestream whole); the lossy, gray and tiled files are what scans look like.
    try:
        add_image(f"rgb-{w2}x{h2}.jp2", part, "normal", irreversible=False)
        add_image(f"rgb-lossy-{w2}x{h2}.jp2", part, "normal", irreversible=True, quality_mode="rates", quality_layers=[10])
        add_image(f"rgb-tiled-{w2}x{h2}.jp2", part, "normal", irreversible=False, tile_size=(512, 512))
        add_image(f"gray-lossy-{w2}x{h2}.j2k", part.convert("L"), "normal", irreversible=True)
    except (OSError, KeyError) as e:
        print(f"bench-decode-memory: no JPEG 2000 row ({e})", file=sys.stderr)
    # One grey, 100 megapixels (25 when quick): a real image, decoded in full (400 MiB of RGBA).
    w = h = 10000 // k
    rows = zeros_stream(h * (1 + w))
    add("gray-10000x10000.png", PNG_SIGNATURE + ihdr(w, h, 8, 0) + chunk("IDAT", rows) + chunk("IEND", b""), "normal")
    for real in ("Books/little-horse/page-001.jpg", "../shared/realdata/ndl-docl-dev/2544473_01.jpg"):
        path = os.path.normpath(os.path.join(ROOT, real))
        if os.path.exists(path):
            files.append((os.path.basename(path), path, "real scan"))

    # Crafted: declared lengths and sizes that the bytes do not back.
    one = PNG_SIGNATURE + ihdr(1, 1)
    bomb = one + chunk("tEXt", b"", declared=0x7FFFFFFF)
    add("text-chunk-2GiB.png", bomb, "crafted: tEXt declares 2 GiB")
    add("text-chunk-2GiB-no-crc.png", bomb[:-1], "crafted: as above, CRC cut off")
    inflating = zeros_stream(512 * MIB // k)
    add("ztxt-inflates-512MiB.png", one + chunk("zTXt", b"k\x00\x00" + inflating) + tiny_idat(1) + chunk("IEND", b""),
        f"crafted: zTXt inflating to {512 // k} MiB")
    add("iccp-inflates-512MiB.png", one + chunk("iCCP", b"p\x00\x00" + inflating) + tiny_idat(1) + chunk("IEND", b""),
        f"crafted: iCCP inflating to {512 // k} MiB")
    add("idat-inflates-past-image.png", one + chunk("IDAT", inflating) + chunk("IEND", b""),
        f"crafted: 1x1 whose IDAT inflates to {512 // k} MiB")
    add("declares-30000x30000.png", PNG_SIGNATURE + ihdr(30000, 30000) + tiny_idat(30000) + chunk("IEND", b""),
        "crafted: 900 MP declared, one row given")
    add("declares-14000x14000.png", PNG_SIGNATURE + ihdr(14000, 14000) + tiny_idat(14000) + chunk("IEND", b""),
        "crafted: 196 MP declared (inside the limits), one row given")
    small = os.path.join(folder, "small.jpg")
    noise.crop((0, 0, 64, 64)).save(small, quality=80)
    small_progressive = os.path.join(folder, "small-progressive.jpg")
    noise.crop((0, 0, 64, 64)).save(small_progressive, quality=80, progressive=True)
    for side in (65000, 14000):
        for label, source in (("baseline", small), ("progressive", small_progressive)):
            with open(source, "rb") as f:
                data = patch_jpeg_size(f.read(), side)
            mp = side * side / 1e6
            add(f"{label}-declares-{side}x{side}.jpg", data, f"crafted: {mp:.0f} MP declared, 64x64 of data")
    return files


TIME_RE = re.compile(r"Maximum resident set size \(kbytes\): (\d+)")


def measure(argv):
    """(exit status, peak RSS in bytes, stdout) of one run under /usr/bin/time -v."""
    p = subprocess.run(["/usr/bin/time", "-v"] + argv, capture_output=True, text=True)
    m = TIME_RE.search(p.stderr)
    if not m:
        raise SystemExit(f"bench-decode-memory: /usr/bin/time gave no peak for {argv}:\n{p.stderr[-500:]}")
    return p.returncode, int(m.group(1)) * 1024, p.stdout


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", help="the picturebook to measure (default: release build if present, else debug)")
    ap.add_argument("--quick", action="store_true", help="half-size large files (a quarter of the pixels)")
    ap.add_argument("--keep", action="store_true", help="keep the scratch folder of generated files")
    args = ap.parse_args()
    binary = args.bin
    if not binary:
        for c in ("release", "debug"):
            candidate = os.path.join(ROOT, ".build", c, "picturebook")
            if os.path.exists(candidate):
                binary = candidate
                break
    if not binary or not os.path.exists(binary):
        raise SystemExit("bench-decode-memory: no picturebook built (swift build -c release --product picturebook)")
    folder = tempfile.mkdtemp(prefix="bench-decode-memory-")
    try:
        files = make_files(folder, args.quick)
        print(f"binary: {binary}")
        print("bound: 1.1 x decoded RGBA bytes + 64 MiB; a refused file decoded nothing (bound 64 MiB)")
        # What the command costs with nothing to decode (a 1x1 PNG): the runtime and the shared
        # libraries. The verdict is on the whole peak; 'own' (peak minus this) shows what the
        # decode itself took, for telling a decoder's cost from the process's.
        tiny = os.path.join(folder, "one-pixel.png")
        with open(tiny, "wb") as f:
            f.write(PNG_SIGNATURE + ihdr(1, 1) + tiny_idat(1) + chunk("IEND", b""))
        idle = min(measure([binary, "info", tiny, "--json"])[1] for _ in range(3))
        print(f"idle: `info` on a 1x1 PNG peaks at {idle / MIB:.1f} MiB\n")
        header = f"{'file':34} {'command':14} {'exit':>4} {'decoded':>12} {'peak MiB':>9} {'own MiB':>8} {'bound MiB':>9}  verdict"
        print(header)
        print("-" * len(header))
        over = 0
        out_png = os.path.join(folder, "out.png")
        for name, path, what in files:
            runs = [("info", [binary, "info", path, "--json"])]
            if path.endswith(".jpg"):
                runs.append(("info --scale 8", [binary, "info", path, "--json", "--scale", "8"]))
            runs.append(("convert", [binary, "convert", path, out_png]))
            full = None  # the size `info` decoded at full scale; convert (no resize) decodes the same
            for label, argv in runs:
                status, peak, stdout = measure(argv)
                size = None
                if status == 0 and label.startswith("info"):
                    entry = json.loads(stdout)[0]
                    size = (entry["decodedWidth"], entry["decodedHeight"])
                    if label == "info":
                        full = size
                elif status == 0:
                    size = full
                pixels_bytes = size[0] * size[1] * 4 if size else 0
                bound = 1.1 * pixels_bytes + 64 * MIB
                ok = peak <= bound
                over += not ok
                shown = f"{size[0]}x{size[1]}" if size else "refused"
                print(f"{name:34} {label:14} {status:>4} {shown:>12} {peak / MIB:9.1f} {(peak - idle) / MIB:8.1f} {bound / MIB:9.1f}  "
                      f"{'ok' if ok else 'OVER'}  ({what})", flush=True)
            if os.path.exists(out_png):
                os.remove(out_png)
        print(f"\n{over} run(s) over the bound")
        return 1 if over else 0
    finally:
        if args.keep:
            print(f"files kept in {folder}")
        else:
            shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
