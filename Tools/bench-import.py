#!/usr/bin/env python3
"""Peak memory and time of `picturebook import` on 300-page scan deliveries (issue #20's target:
at most 300 MiB peak for a 300-page 16-bit TIFF set and a 300-page PDF of scans).

Generates in .build/bench-import (plain python3, no packages; picturebook makes the PDF's JPEG):
  tiff-set/       300 single-page 16-bit RGB TIFFs, Deflate with horizontal prediction
  multipage.tif   the same 300 pages as one file
  scans.pdf       300 pages, each one JPEG scan (DCTDecode) filling an A5-ish page
then runs each import under /usr/bin/time -v and prints pages, seconds and peak RSS.

  Tools/bench-import.py [--bin .build/release/picturebook] [--pages 300] [--width 1600 --height 2400]
"""
import argparse
import os
import shutil
import struct
import subprocess
import sys
import zlib


def page_strips(width, height, rows_per_strip, phase):
    """Deflate strips of a 16-bit RGB page with horizontal differencing (Predictor 2): a diagonal
    ramp, so every row differs but each is one start value and a constant step."""
    strips = []
    step = struct.pack("<3H", 40, 25, 10) * (width - 1)
    for top in range(0, height, rows_per_strip):
        rows = []
        for y in range(top, min(height, top + rows_per_strip)):
            start = struct.pack("<3H", (y * 25 + phase) % 65536, (y * 40) % 65536, (y * 7 + phase) % 65536)
            rows.append(start + step)
        strips.append(zlib.compress(b"".join(rows), 6))
    return strips


def write_tiff(path, width, height, pages, rows_per_strip=64):
    """A little-endian TIFF with `pages` directories. All pages share one set of strips (the
    decoder reads and decodes them once per page all the same), which keeps the file small."""
    strips = page_strips(width, height, rows_per_strip, 0)
    out = bytearray(b"II*\0\0\0\0\0")
    offsets = []
    for s in strips:
        offsets.append(len(out))
        out += s
        if len(out) % 2:
            out += b"\0"
    counts = [len(s) for s in strips]
    shared = len(out)
    out += struct.pack("<%dI" % len(offsets), *offsets)
    shared_counts = len(out)
    out += struct.pack("<%dI" % len(counts), *counts)
    bps_at = len(out)
    out += struct.pack("<3H", 16, 16, 16)
    first_ifd = len(out)
    struct.pack_into("<I", out, 4, first_ifd)
    for k in range(pages):
        entries = [
            (256, 4, 1, width), (257, 4, 1, height), (258, 3, 3, bps_at), (259, 3, 1, 8), (262, 3, 1, 2),
            (273, 4, len(offsets), shared), (277, 3, 1, 3), (278, 4, 1, rows_per_strip),
            (279, 4, len(counts), shared_counts), (284, 3, 1, 1), (317, 3, 1, 2),
        ]
        here = len(out)
        ifd = struct.pack("<H", len(entries))
        for code, typ, count, value in entries:
            if typ == 3 and count == 1:
                ifd += struct.pack("<HHIHH", code, typ, count, value, 0)
            else:
                ifd += struct.pack("<HHII", code, typ, count, value)
        next_ifd = here + len(ifd) + 4 if k + 1 < pages else 0
        out += ifd + struct.pack("<I", next_ifd)
    with open(path, "wb") as f:
        f.write(out)


def write_pdf(path, jpeg, jw, jh, pages):
    """`pages` pages of 420×630 pt, each drawing its own copy of the JPEG scan over the page."""
    offsets = []
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")

    def obj(number, body):
        offsets.append((number, len(out)))
        out.extend(b"%d 0 obj\n" % number + body + b"\nendobj\n")

    kids = [3 + 3 * k for k in range(pages)]
    obj(1, b"<< /Type /Catalog /Pages 2 0 R >>")
    obj(2, b"<< /Type /Pages /Kids [%s] /Count %d >>" % (b" ".join(b"%d 0 R" % k for k in kids), pages))
    content = b"q 420 0 0 630 0 0 cm /Im0 Do Q"
    for k in range(pages):
        page, image, stream = 3 + 3 * k, 4 + 3 * k, 5 + 3 * k
        obj(page, b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 420 630] /Resources << /XObject << /Im0 %d 0 R >> >> "
                  b"/Contents %d 0 R >>" % (image, stream))
        obj(image, b"<< /Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace /DeviceRGB /BitsPerComponent 8 "
                   b"/Filter /DCTDecode /Length %d >>\nstream\n" % (jw, jh, len(jpeg)) + jpeg + b"\nendstream")
        obj(stream, b"<< /Length %d >>\nstream\n" % len(content) + content + b"\nendstream")
    xref = len(out)
    count = 3 + 3 * pages
    out += b"xref\n0 %d\n0000000000 65535 f \n" % count
    for _, o in sorted(offsets):
        out += b"%010d 00000 n \n" % o
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (count, xref)
    with open(path, "wb") as f:
        f.write(out)


def measure(label, command):
    result = subprocess.run(["/usr/bin/time", "-v"] + command, capture_output=True, text=True)
    if result.returncode != 0:
        print(f"{label}: failed ({result.returncode})\n{result.stderr[-2000:]}", file=sys.stderr)
        sys.exit(1)
    stats = {}
    for line in result.stderr.splitlines():
        if ":" in line:
            k, _, v = line.strip().rpartition(": ")
            stats[k] = v
    rss = int(stats.get("Maximum resident set size (kbytes)", "0")) / 1024
    elapsed = stats.get("Elapsed (wall clock) time (h:mm:ss or m:ss)", "?")
    print(f"{label:34s} peak RSS {rss:7.1f} MiB   wall {elapsed}")
    return rss


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=".build/release/picturebook")
    ap.add_argument("--pages", type=int, default=300)
    ap.add_argument("--width", type=int, default=1600)
    ap.add_argument("--height", type=int, default=2400)
    args = ap.parse_args()
    os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    if not os.path.exists(args.bin):
        sys.exit(f"bench-import: {args.bin} is missing; build it (swift build -c release --product picturebook)")
    work = ".build/bench-import"
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work + "/tiff-set")
    w, h, n = args.width, args.height, args.pages
    one = work + "/one.tif"
    write_tiff(one, w, h, 1)
    for k in range(n):
        shutil.copyfile(one, f"{work}/tiff-set/p{k + 1:03d}.tif")
    os.remove(one)
    write_tiff(work + "/multipage.tif", w, h, n)
    subprocess.run([args.bin, "convert", f"{work}/tiff-set/p001.tif", f"{work}/scan.jpg", "--quality", "85"], check=True,
                   capture_output=True)
    with open(f"{work}/scan.jpg", "rb") as f:
        jpeg = f.read()
    write_pdf(work + "/scans.pdf", jpeg, w, h, n)
    size = lambda p: os.path.getsize(p) / 2**20
    print(f"inputs: {n} pages of {w}×{h}, 16-bit RGB TIFF ({w * h * 6 / 2**20:.0f} MiB of samples a page); "
          f"multipage.tif {size(work + '/multipage.tif'):.1f} MiB, scans.pdf {size(work + '/scans.pdf'):.1f} MiB; {args.bin}")
    peaks = [
        measure(f"import {n} × 16-bit TIFF (folder)", [args.bin, "import", work + "/tiff-set", "--out", work + "/out-set"]),
        measure(f"import {n}-page 16-bit TIFF", [args.bin, "import", work + "/multipage.tif", "--out", work + "/out-multi"]),
        measure(f"import {n}-page PDF of JPEG scans", [args.bin, "import", work + "/scans.pdf", "--out", work + "/out-pdf"]),
    ]
    print(f"largest peak {max(peaks):.1f} MiB (target 300 MiB)")


if __name__ == "__main__":
    main()
