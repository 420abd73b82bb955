#!/usr/bin/env python3
"""Writes the progressive JPEGs Tests/CodecsTests/Fixtures/Progressive holds (JPEGBandTests).

Pillow's encoder (libjpeg-turbo's progression: DC and AC scans with successive approximation,
so every kind of scan the band decoder reads) over one deterministic 203 x 141 image: odd sizes,
so the last MCU row and column are partial. Chroma 4:4:4, 4:2:2 and 4:2:0, gray, CMYK (Adobe
inverted, as Pillow writes it), and restart intervals every 3 blocks and every MCU row.

    .build/bench-venv/bin/python Tools/make-progressive-fixtures.py [OUT_DIR]
"""
import os
import random
import sys

from PIL import Image

W, H = 203, 141


def image():
    rng = random.Random(20261127)
    pixels = bytearray()
    for y in range(H):
        for x in range(W):
            # Ramps for smooth areas, a little noise so every coefficient band carries data.
            n = rng.randrange(48)
            pixels += bytes(((x * 5 + n) % 256, (y * 7 + x // 3) % 256, (x * y // 40 + n) % 256))
    return Image.frombytes("RGB", (W, H), bytes(pixels))


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "Tests", "CodecsTests", "Fixtures", "Progressive")
    os.makedirs(out, exist_ok=True)
    im = image()
    for sub in (0, 1, 2):
        im.save(os.path.join(out, f"p{sub}.jpg"), quality=90, progressive=True, subsampling=sub)
    im.convert("L").save(os.path.join(out, "gray.jpg"), quality=90, progressive=True)
    im.convert("CMYK").save(os.path.join(out, "cmyk.jpg"), quality=90, progressive=True)
    im.save(os.path.join(out, "rst.jpg"), quality=90, progressive=True, restart_marker_blocks=3)
    im.save(os.path.join(out, "rst-rows.jpg"), quality=90, progressive=True, restart_marker_rows=1, subsampling=2)
    print("wrote", ", ".join(sorted(os.listdir(out))), "to", out)


if __name__ == "__main__":
    main()
