#!/usr/bin/env python3
"""Pillow + raqm side of Tools/bench-typeset.sh: fit a paragraph into a box and draw it, the way
Picturebook's `typeset --bench` does, and print the median time per fit.

The algorithm mirrors Picturebook's so the comparison is of the machinery, not of the method:
bisect the font size to a quarter pixel between a minimum and a maximum; at each size measure
every word and the space once with raqm shaping (ImageFont.getlength), wrap greedily, and check
lines x line height against the box; finally draw the lines with ImageDraw.multiline_text using
the RAQM layout engine. Fonts are cached per size, as Picturebook's faces and glyphs are (warm).

    bench-typeset.py TEXT_FILE FONT_FILE WIDTH HEIGHT MIN MAX RUNS [OUT.png]
"""
import statistics
import sys
import time

from PIL import Image, ImageDraw, ImageFont, features

LINE_SPACING = 1.3


def main():
    text_file, font_file, w, h, lo, hi, runs = sys.argv[1:8]
    out = sys.argv[8] if len(sys.argv) > 8 else None
    w, h, lo, hi, runs = int(w), int(h), float(lo), float(hi), int(runs)
    if not features.check("raqm"):
        sys.exit("bench-typeset.py: this Pillow has no raqm layout (is libfribidi installed?)")
    text = open(text_file, encoding="utf-8").read().strip()
    words = text.split()
    fonts = {}

    def font(size):
        f = fonts.get(size)
        if f is None:
            f = ImageFont.truetype(font_file, size, layout_engine=ImageFont.Layout.RAQM)
            fonts[size] = f
        return f

    def wrap(size):
        f = font(size)
        space = f.getlength(" ")
        lines, current, width = [], [], 0.0
        for word in words:
            ww = f.getlength(word)
            if current and width + space + ww > w:
                lines.append(" ".join(current))
                current, width = [word], ww
            else:
                width = width + space + ww if current else ww
                current.append(word)
            if ww > w:
                return None  # a word alone is wider than the box
        if current:
            lines.append(" ".join(current))
        return lines

    def fits(size):
        lines = wrap(size)
        return lines is not None and len(lines) * size * LINE_SPACING <= h

    def fit():
        if fits(hi):
            size = hi
        elif not fits(lo):
            size = lo
        else:
            a, b = lo, hi
            while b - a > 0.25:
                mid = (a + b) / 2
                if fits(mid):
                    a = mid
                else:
                    b = mid
            size = max(lo, int(a * 4) / 4)
        return size, wrap(size) or words

    def once():
        size, lines = fit()
        image = Image.new("RGBA", (w, h), (255, 255, 255, 255))
        draw = ImageDraw.Draw(image)
        f = font(size)
        # multiline_text advances each line by the bottom of "A"'s box plus `spacing`.
        spacing = size * LINE_SPACING - draw.textbbox((0, 0), "A", font=f)[3]
        draw.multiline_text((0, 0), "\n".join(lines), font=f, fill=(0, 0, 0, 255), spacing=spacing)
        return size, lines, image

    for _ in range(3):
        once()
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        size, lines, image = once()
        times.append((time.perf_counter() - t0) * 1000)
    if out:
        image.save(out)
    print("pillow-bench runs=%d size=%.2f lines=%d median_ms=%.4f mean_ms=%.4f raqm=%s" % (
        runs, size, len(lines), statistics.median(times), statistics.fmean(times),
        features.version("raqm")))


if __name__ == "__main__":
    main()
