#!/usr/bin/env python3
"""The before/after pictures of Documentation/ClearText.md, from a finished Tools/bench-infill.sh run.

One picture per placement style: a box of the standard corpus (and some of the art around it),
top to bottom
  1. the scan,
  2. cleared by the whole pipeline (`analyze`, then `clear` with its boxes and masks): what a
     librarian gets without drawing anything,
  3. cleared from the truth box with ClearText's own ink estimate (a librarian's box),
  4. cleared with the true ink (the in-fill alone),
  5. the clean background the benchmark scores against.

    Tools/bench-infill.sh && .build/bench-venv/bin/python Tools/cleartext-pictures.py

Writes Documentation/images/cleartext/<style>.jpg.
"""
import json
import os
import sys

import cv2
import numpy as np

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
WORK = os.path.join(ROOT, ".build", "bench-infill")
CORPUS = os.path.join(ROOT, ".build", "corpus")
OUT = os.path.join(ROOT, "Documentation", "images", "cleartext")

# style: (seed, page image, box id) — chosen to show each style's usual case, not its best.
PICKS = {
    "margin": (1004, "page-009.jpg", "p009-b1"),
    "sky": (1001, "page-007.jpg", "p007-b2"),
    "panel": (1002, "page-009.jpg", "p009-b2"),
    "lightOnDark": (1002, "page-006.jpg", "p006-b2"),
    "overArt": (1001, "page-004.jpg", "p004-b1"),
}
ROWS = [("scan", None), ("whole pipeline", "standard-detector"), ("own estimate", "standard-estimate"),
        ("true ink", "standard-oracle"), ("clean", None)]
MAX_WIDTH = 816
MARGIN = 24


def main():
    os.makedirs(OUT, exist_ok=True)
    for style, (seed, image, box_id) in PICKS.items():
        corpus = os.path.join(CORPUS, f"seed-{seed}")
        truth = json.load(open(os.path.join(corpus, "truth.json")))
        page = next(p for p in truth["pages"] if p["image"] == image)
        box = next(b for b in page["textBoxes"] if b["id"] == box_id)
        r = box["rect"]
        stem = os.path.splitext(image)[0]
        scan = cv2.imread(os.path.join(corpus, image))
        h, w = scan.shape[:2]
        x0, y0 = max(0, r["x"] - MARGIN), max(0, r["y"] - MARGIN)
        x1, y1 = min(w, r["x"] + r["width"] + MARGIN), min(h, r["y"] + r["height"] + MARGIN)
        x1 = min(x1, x0 + MAX_WIDTH)
        rows = []
        for label, mode in ROWS:
            if label == "scan":
                img = scan
            elif label == "clean":
                img = cv2.imread(os.path.join(corpus, page["clean"]))
            else:
                path = os.path.join(WORK, mode, f"clear-{seed}", stem + ".png")
                img = cv2.imread(path)
                if img is None:
                    sys.exit(f"cleartext-pictures: {path} is missing; run Tools/bench-infill.sh first")
            rows.append(img[y0:y1, x0:x1])
            rows.append(np.full((6, x1 - x0, 3), 255, np.uint8))
        picture = np.vstack(rows[:-1])
        out = os.path.join(OUT, f"{style}.jpg")
        cv2.imwrite(out, picture, [cv2.IMWRITE_JPEG_QUALITY, 88])
        print(f"{out}: seed {seed} {image} {box_id} ({r['width']}×{r['height']})")


if __name__ == "__main__":
    main()
