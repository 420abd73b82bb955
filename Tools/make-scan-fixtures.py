#!/usr/bin/env python3
"""Writes the tiny TIFF, JPEG 2000 and PDF files Tests/CodecsTests/Fixtures/Scans holds.

Every image is drawn from a pattern the tests recompute (ScanFixtureTests.swift: `pattern`), so a
decoder that swaps channels, drops a bit depth or flips rows fails. Uncompressed TIFFs are written
here by hand; tiffcp (libtiff-tools) recompresses them (LZW, Deflate, JPEG, CCITT G4) and joins
pages; opj_compress (libopenjp2-tools) makes the JPEG 2000 files; the PDF is written by hand.
Plain python3, no packages:  Tools/make-scan-fixtures.py [OUT_DIR]
"""
import os
import struct
import subprocess
import sys
import tempfile
import zlib

W, H = 24, 16


def gray(x, y):
    return (x * 10 + y * 5) % 256


def rgb(x, y):
    return ((x * 10) % 256, (y * 15) % 256, (x * 3 + y * 7) % 256)


def bilevel(x, y):  # 1 = black
    return 1 if (x // 3 + y // 2) % 2 == 0 else 0


PALETTE = [(250, 10, 10), (10, 200, 30), (20, 40, 240), (255, 255, 255)]


def palette_index(x, y):
    return (x // 6 + y // 4) % 4


def box(kind, payload):
    return struct.pack(">I", 8 + len(payload)) + kind + payload


def palette_jp2(codestream, width, height, palette):
    """A JP2 file (ISO/IEC 15444-1 annex I) around a one-component codestream of palette indices."""
    ihdr = struct.pack(">IIHBBBB", height, width, 1, 7, 7, 0, 0)  # 1 component, 8-bit, wavelet, no IPR
    colr = struct.pack(">BBBI", 1, 0, 0, 16)  # enumerated, sRGB
    pclr = struct.pack(">HB", len(palette), 3) + bytes([7, 7, 7]) + b"".join(bytes(c) for c in palette)
    cmap = b"".join(struct.pack(">HBB", 0, 1, column) for column in range(3))  # component 0 through palette column n
    return (box(b"jP  ", b"\r\n\x87\n") + box(b"ftyp", b"jp2 " + struct.pack(">I", 0) + b"jp2 ")
            + box(b"jp2h", box(b"ihdr", ihdr) + box(b"colr", colr) + box(b"pclr", pclr) + box(b"cmap", cmap))
            + box(b"jp2c", codestream))


def tiff(path, width, height, spp, bps, photometric, data, colormap=None):
    """A little-endian baseline TIFF, one strip, no compression."""
    entries = []

    def tag(code, typ, count, value):
        entries.append((code, typ, count, value))

    extra = b""
    offset_data = 8
    offset_after = offset_data + len(data)
    if offset_after % 2:
        data += b"\0"
        offset_after += 1
    bps_value = bps
    if spp > 1:
        extra_bps = struct.pack("<%dH" % spp, *([bps] * spp))
        bps_value = offset_after + len(extra)
        extra += extra_bps
    cmap_offset = None
    if colormap:
        cmap_offset = offset_after + len(extra)
        extra += struct.pack("<%dH" % len(colormap), *colormap)
    tag(256, 3, 1, width)
    tag(257, 3, 1, height)
    tag(258, 3, spp, bps_value)
    tag(259, 3, 1, 1)
    tag(262, 3, 1, photometric)
    tag(273, 4, 1, offset_data)
    tag(277, 3, 1, spp)
    tag(278, 3, 1, height)
    tag(279, 4, 1, len(data))
    tag(284, 3, 1, 1)
    if colormap:
        tag(320, 3, len(colormap), cmap_offset)
    ifd_offset = offset_after + len(extra)
    ifd = struct.pack("<H", len(entries))
    for code, typ, count, value in entries:
        if typ == 3 and count == 1:
            ifd += struct.pack("<HHIHH", code, typ, count, value, 0)
        else:
            ifd += struct.pack("<HHII", code, typ, count, value)
    ifd += struct.pack("<I", 0)
    with open(path, "wb") as f:
        f.write(b"II*\0" + struct.pack("<I", ifd_offset) + data + extra + ifd)


def pack_bits(bits, width):
    out = bytearray()
    for row in bits:
        for i in range(0, width, 8):
            byte = 0
            for k in range(8):
                if i + k < width and row[i + k]:
                    byte |= 0x80 >> k
            out.append(byte)
    return bytes(out)


def pdf(path, pages):
    """pages: list of (width_pt, height_pt, content_stream, image or None); image = (w, h, rgb bytes)."""
    objects = []

    def add(body):
        objects.append(body)
        return len(objects)

    catalog = add(None)
    tree = add(None)
    kids = []
    for (pw, ph, content, image) in pages:
        resources = b"<< >>"
        if image:
            iw, ih, pixels = image
            z = zlib.compress(pixels)
            img = add(b"<< /Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace /DeviceRGB "
                      b"/BitsPerComponent 8 /Filter /FlateDecode /Length %d >>\nstream\n" % (iw, ih, len(z)) + z + b"\nendstream")
            resources = b"<< /XObject << /Im0 %d 0 R >> >>" % img
        stream = add(b"<< /Length %d >>\nstream\n" % len(content) + content + b"\nendstream")
        page = add(b"<< /Type /Page /Parent %d 0 R /MediaBox [0 0 %g %g] /Resources %s /Contents %d 0 R >>"
                   % (tree, pw, ph, resources, stream))
        kids.append(page)
    objects[catalog - 1] = b"<< /Type /Catalog /Pages %d 0 R >>" % tree
    objects[tree - 1] = b"<< /Type /Pages /Kids [%s] /Count %d >>" % (b" ".join(b"%d 0 R" % k for k in kids), len(kids))
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for i, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % i + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    for o in offsets:
        out += b"%010d 00000 n \n" % o
    out += b"trailer\n<< /Size %d /Root %d 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, catalog, xref)
    with open(path, "wb") as f:
        f.write(out)


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "Tests", "CodecsTests", "Fixtures", "Scans")
    os.makedirs(out, exist_ok=True)
    tmp = tempfile.mkdtemp()

    def raw(name):
        return os.path.join(tmp, name)

    def run(*args):
        subprocess.run(args, check=True, stdout=subprocess.DEVNULL)

    g8 = bytes(gray(x, y) for y in range(H) for x in range(W))
    g16 = b"".join(struct.pack("<H", gray(x, y) * 257) for y in range(H) for x in range(W))
    c8 = bytes(v for y in range(H) for x in range(W) for v in rgb(x, y))
    c16 = b"".join(struct.pack("<3H", *(v * 257 for v in rgb(x, y))) for y in range(H) for x in range(W))
    bits = [[bilevel(x, y) for x in range(W)] for y in range(H)]
    pal = bytes(palette_index(x, y) for y in range(H) for x in range(W))
    cmap = [c[0] * 257 for c in PALETTE] + [0] * 252 + [c[1] * 257 for c in PALETTE] + [0] * 252 + [c[2] * 257 for c in PALETTE] + [0] * 252

    tiff(raw("gray8.tif"), W, H, 1, 8, 1, g8)
    tiff(raw("gray16.tif"), W, H, 1, 16, 1, g16)
    tiff(raw("rgb8.tif"), W, H, 3, 8, 2, c8)
    tiff(raw("rgb16.tif"), W, H, 3, 16, 2, c16)
    tiff(raw("bilevel.tif"), W, H, 1, 1, 0, pack_bits(bits, W))  # min-is-white: 1 = black
    tiff(raw("palette8.tif"), W, H, 1, 8, 3, pal, cmap)

    run("tiffcp", "-c", "lzw", raw("gray8.tif"), os.path.join(out, "gray8-lzw.tif"))
    run("tiffcp", "-c", "zip", raw("gray16.tif"), os.path.join(out, "gray16-deflate.tif"))
    run("tiffcp", "-c", "jpeg:95", "-r", "16", raw("rgb8.tif"), os.path.join(out, "rgb8-jpeg.tif"))
    run("tiffcp", "-c", "lzw", raw("rgb16.tif"), os.path.join(out, "rgb16-lzw.tif"))
    run("tiffcp", "-c", "g4", raw("bilevel.tif"), os.path.join(out, "bilevel-g4.tif"))
    run("tiffcp", "-c", "lzw", raw("palette8.tif"), os.path.join(out, "palette8-lzw.tif"))
    run("tiffcp", "-c", "lzw", raw("gray8.tif"), raw("rgb8.tif"), raw("bilevel.tif"), os.path.join(out, "three-pages.tif"))

    with open(raw("gray.pgm"), "wb") as f:
        f.write(b"P5\n%d %d\n255\n" % (W, H) + g8)
    with open(raw("gray16.pgm"), "wb") as f:
        f.write(b"P5\n%d %d\n65535\n" % (W, H) + b"".join(struct.pack(">H", gray(x, y) * 257) for y in range(H) for x in range(W)))
    with open(raw("rgb.ppm"), "wb") as f:
        f.write(b"P6\n%d %d\n255\n" % (W, H) + c8)
    run("opj_compress", "-n", "3", "-i", raw("rgb.ppm"), "-o", os.path.join(out, "rgb8.jp2"))
    run("opj_compress", "-n", "3", "-i", raw("gray.pgm"), "-o", os.path.join(out, "gray8.jp2"))
    run("opj_compress", "-n", "3", "-i", raw("gray16.pgm"), "-o", os.path.join(out, "gray16.j2k"))
    # Six 8×8 tiles: tiling is read, and not mistaken for the hostile tilings Codecs refuses.
    run("opj_compress", "-n", "3", "-t", "8,8", "-i", raw("rgb.ppm"), "-o", os.path.join(out, "rgb8-tiled.jp2"))
    # Read a band of rows at a time, these must give exactly what a whole decode gives: lossy
    # (the 9/7 wavelet), every component subsampled 2×2 on an image whose origin is not 0,0, and
    # tiles whose grid starts above and left of the image.
    run("opj_compress", "-n", "3", "-I", "-r", "8", "-i", raw("rgb.ppm"), "-o", os.path.join(out, "rgb8-lossy.jp2"))
    run("opj_compress", "-n", "2", "-s", "2,2", "-d", "3,5", "-i", raw("rgb.ppm"), "-o", os.path.join(out, "rgb8-subsampled-offset.j2k"))
    run("opj_compress", "-n", "2", "-t", "7,5", "-T", "1,3", "-d", "2,4", "-i", raw("rgb.ppm"), "-o", os.path.join(out, "rgb8-tiles-offset.j2k"))
    # A palette JP2 (opj_compress makes none): a codestream of indices wrapped in boxes by hand,
    # its header holding pclr and cmap boxes, which OpenJPEG applies to the decoded image.
    with open(raw("index.pgm"), "wb") as f:
        f.write(b"P5\n%d %d\n255\n" % (W, H) + pal)
    run("opj_compress", "-n", "2", "-i", raw("index.pgm"), "-o", raw("index.j2k"))
    with open(raw("index.j2k"), "rb") as f:
        codestream = f.read()
    with open(os.path.join(out, "palette8.jp2"), "wb") as f:
        f.write(palette_jp2(codestream, W, H, PALETTE))

    # Page 1: a scan (one image filling the page, drawn at 24×16 pixels on a 72×48 pt page).
    # Page 2: no image: a dark blue square on white, which must be rendered.
    pdf(os.path.join(out, "two-pages.pdf"), [
        (72, 48, b"q 72 0 0 48 0 0 cm /Im0 Do Q", (W, H, c8)),
        (72, 48, b"0 0 0.5 rg 18 12 36 24 re f", None),
    ])
    print("wrote", ", ".join(sorted(os.listdir(out))), "to", out)


if __name__ == "__main__":
    main()
