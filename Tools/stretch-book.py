#!/usr/bin/env python3
"""Make an N-page book from a generated template book, for the memory benchmarks.

Usage: stretch-book.py TEMPLATE OUT N [--no-boxes]

The template's pages are repeated in order (scans hard-linked, so 2,000 pages cost no disk), page
labels and spreads are dropped so every page is a single page of its own, and with --no-boxes the
text boxes are emptied (for analyze, which must find them itself). The book's other fields are kept.
"""
import json
import os
import sys


def main(argv):
    args = [a for a in argv if a != "--no-boxes"]
    if len(args) != 3:
        sys.exit(__doc__.strip().splitlines()[2])
    template, out, n = args[0], args[1], int(args[2])
    book = json.load(open(os.path.join(template, "book.json")))
    pages = book["pages"]
    made = []
    for i in range(n):
        src = pages[i % len(pages)]
        name = "page-%04d.jpg" % (i + 1)
        os.link(os.path.join(template, src["image"]), os.path.join(out, name))
        page = dict(src)
        page["image"] = name
        page.pop("label", None)
        if "--no-boxes" in argv:
            page["textBoxes"] = []
        made.append(page)
    book["pages"] = made
    book.pop("spreads", None)
    with open(os.path.join(out, "book.json"), "w") as f:
        json.dump(book, f)


if __name__ == "__main__":
    main(sys.argv[1:])
