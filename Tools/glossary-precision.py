#!/usr/bin/env python3
"""Precision of `picturebook glossary` on the sample books, against the glossaries checked by eye.

For each book, the proposals are made afresh on a copy of the book without its glossary (so the
checked entries cannot steer them), and every proposed word pair (word → translation in one
language) is looked up in the book's checked glossary: entries whose source is "editor" (or
absent). A pair counts as right when the checked glossary has the same word in the same language
with the same translation (letter case ignored). Proposals an editor fixed or deleted count as
wrong. Prints one line per book and language pair, and the total.

  Tools/glossary-precision.py [BOOK ...]     (default: every book in Books/; needs a built CLI)
"""
import json
import os
import pathlib
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
CLI = os.environ.get("PICTUREBOOK", str(ROOT / ".build" / "debug" / "picturebook"))


def checked_pairs(book):
    out = set()
    for e in book.get("glossary", []):
        if e.get("source", "editor") != "editor":
            continue
        for lang, text in e.get("translations", {}).items():
            out.add((e["language"], e["text"].lower(), lang, text.lower()))
    return out


def proposals(book_dir):
    book = json.loads((book_dir / "book.json").read_text())
    with tempfile.TemporaryDirectory() as tmp:
        tmp = pathlib.Path(tmp)
        for f in book_dir.iterdir():
            if f.name != "book.json":
                (tmp / f.name).symlink_to(f.resolve())
        bare = dict(book)
        bare.pop("glossary", None)
        (tmp / "book.json").write_text(json.dumps(bare, ensure_ascii=False))
        r = subprocess.run([CLI, "glossary", str(tmp), "--dry-run", "--json"], capture_output=True, text=True)
        if r.returncode != 0:
            sys.exit(f"{book_dir}: picturebook glossary failed: {r.stderr.strip()}")
        return json.loads(r.stdout)["proposals"], book


def main(args):
    books = [pathlib.Path(a) for a in args] or sorted(p for p in (ROOT / "Books").iterdir() if (p / "book.json").exists())
    total_right = total = 0
    print(f"{'book':22} {'pair':12} {'proposed':>8} {'right':>6} {'precision':>9}  checked entries")
    for b in books:
        props, book = proposals(b)
        good = checked_pairs(book)
        per = {}
        for p in props:
            for lang, text in p["translations"].items():
                key = f"{p['language']}→{lang}"
                n, ok = per.get(key, (0, 0))
                hit = (p["language"], p["text"].lower(), lang, text.lower()) in good
                per[key] = (n + 1, ok + int(hit))
        entries = sum(1 for e in book.get("glossary", []) if e.get("source", "editor") == "editor")
        for key, (n, ok) in sorted(per.items()):
            print(f"{b.name:22} {key:12} {n:8} {ok:6} {ok / n if n else 0:9.2f}  {entries}")
            total += n
            total_right += ok
    print(f"{'all':22} {'':12} {total:8} {total_right:6} {total_right / total if total else 0:9.2f}")


if __name__ == "__main__":
    main(sys.argv[1:])
