#!/usr/bin/env python3
"""PaddleOCR PP-OCRv4 text detection (DBNet, via the rapidocr-onnxruntime wheel) over a folder of
page images, for Tools/bench-unseen.sh. Runs inside .build/venv-ocr (Tools/setup.sh --ocr).

Only the detector runs (no angle classifier, no recogniser): the benchmark scores where text is,
not what it says. Writes one JSON file:
  {"detector": "...", "pages": {"<file name>": {"lines": [[x0, y0, x1, y1], ...], "milliseconds": t}}}
Each line is the axis-aligned bounding box of one detected quadrilateral (a text line or a part of
one); bench-unseen.py groups lines into blocks. The time is the detector call alone (image already
decoded, model already loaded), the same footing as analyze's per-page figure.

Usage: bench-unseen-ppocr.py IMAGE_DIR OUT_JSON
"""
import json, os, sys, time


def main():
    if len(sys.argv) != 3:
        print("usage: bench-unseen-ppocr.py IMAGE_DIR OUT_JSON", file=sys.stderr)
        return 2
    folder, out = sys.argv[1], sys.argv[2]
    try:
        import cv2
        from rapidocr_onnxruntime import RapidOCR
    except ImportError as e:
        print(f"bench-unseen-ppocr: {e}; run Tools/setup.sh --ocr and use .build/venv-ocr/bin/python", file=sys.stderr)
        return 1
    engine = RapidOCR()
    pages = {}
    names = sorted(n for n in os.listdir(folder) if n.lower().endswith((".jpg", ".jpeg", ".png")))
    for name in names:
        path = os.path.join(folder, name)
        image = cv2.imread(path, cv2.IMREAD_COLOR)
        if image is None:
            print(f"bench-unseen-ppocr: {path}: cannot read the image; page left out", file=sys.stderr)
            continue
        t0 = time.perf_counter()
        result, _ = engine(image, use_det=True, use_cls=False, use_rec=False)
        ms = (time.perf_counter() - t0) * 1000
        lines = []
        for quad in result or []:
            xs = [float(p[0]) for p in quad]
            ys = [float(p[1]) for p in quad]
            lines.append([round(min(xs)), round(min(ys)), round(max(xs)), round(max(ys))])
        pages[name] = {"lines": lines, "milliseconds": round(ms, 1)}
    tmp = out + ".tmp"
    with open(tmp, "w") as f:
        json.dump({"detector": "PP-OCRv4 det (rapidocr-onnxruntime)", "pages": pages}, f)
    os.replace(tmp, out)  # atomic: a killed run never leaves half a file the scorer would trust
    return 0


if __name__ == "__main__":
    sys.exit(main())
