"""The README's editor walkthrough, recorded for real: three Huck Finn scans from ../shared go through
`picturebook analyze` and `picturebook ocr`, an editor account is made with `picturebook users add`,
`picturebook serve --edit` serves them, and the browser corrects boxes and text, adds a French
translation, marks the page reviewed, saves and reads the page in ClearText. No JSON by hand.

Skipped unless DOCS_SCREENSHOTS=1:  DOCS_SCREENSHOTS=1 Tools/test-browser.sh -k docs_editor
Writes Documentation/editor/*.png (256-colour PNG) and Documentation/editor/commands.txt (the
commands' own output, quoted in the README).
"""
import io
import json
import os
import pathlib
import shutil
import subprocess
import time

import pytest
from PIL import Image

from conftest import PORTRAIT, ROOT
from test_editor import DESKTOP, at_size, box_rect, center, drag, save, select, type_into, _binary

OUT = ROOT / "Documentation" / "editor"
SCANS = ("c01-02.jpg", "c03-29.jpg", "c21-180.jpg")
PASSWORD = "a long pass phrase"
READING = (760, 1000)
pytestmark = pytest.mark.skipif(os.environ.get("DOCS_SCREENSHOTS") != "1", reason="set DOCS_SCREENSHOTS=1")

# What the librarian types: the transcription of the scan where OCR misread it, and a French
# translation (ours).
CHAPTER = "Chapter III."
BODY = ("I got a good going-over in the morning, from old Miss Watson, on account of my clothes; but the "
        "widow she didn’t scold, but only cleaned off the grease and clay and looked so sorry that I thought "
        "I would behave a while if I could. Then Miss Watson she took me in the closet and prayed, but "
        "nothing come of it. She told me to pray every day, and whatever I asked for I would get it. But it "
        "warn’t so. I tried it. Once I got a fish-line, but no hooks. It warn’t")
BODY_FR = ("Le matin, la vieille Miss Watson me passa un bon savon à cause de mes habits ; mais la veuve, elle, "
           "ne me gronda pas : elle nettoya seulement la graisse et la boue, et elle avait l’air si triste que je "
           "me dis que je serais sage quelque temps, si j’y arrivais. Puis Miss Watson m’emmena dans le cabinet "
           "et pria, mais il n’en sortit rien. Elle me dit de prier tous les jours, et que j’obtiendrais tout ce "
           "que je demanderais. Mais ce n’était pas vrai. J’ai essayé. Une fois, j’ai eu une ligne de pêche, "
           "mais pas d’hameçons. Elle ne")
CAPTION = "MISS WATSON’S LECTURE."


def shared_scans():
    for base in (ROOT.parent / "shared", ROOT.parent.parent / "shared"):
        d = base / "realdata" / "huck-finn-1884" / "images"
        if all((d / s).is_file() for s in SCANS):
            return d
    pytest.skip("the Huck Finn scans are not in ../shared/realdata (no shared folder beside this checkout)")


def shot(phone, name):
    # Cleared pages are made on first request: on a loaded machine that can take minutes.
    phone.wait_js("[...document.images].every(i => i.complete)", timeout=900)
    phone.settle()
    _, png = phone.screenshot("docs-editor-" + name)
    img = Image.open(io.BytesIO(png)).convert("RGB").resize(phone.size, Image.LANCZOS)
    OUT.mkdir(parents=True, exist_ok=True)
    img.quantize(colors=256, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.FLOYDSTEINBERG).save(OUT / f"{name}.png", optimize=True)


def run(binary, log, *args, stdin=None):
    r = subprocess.run([binary, *args], input=stdin, capture_output=True, text=True, timeout=1800)
    assert r.returncode == 0, f"picturebook {' '.join(args)}: {r.stderr}"
    shown = ["picturebook" if a == binary else a for a in args]
    log.append(f"$ picturebook {' '.join(shown)}\n{(r.stdout + r.stderr).strip()}\n")
    return r


def test_docs_editor_walkthrough(phone, tmp_path):
    binary, scans = _binary(), shared_scans()
    lib = tmp_path / "library"
    book = lib / "huck-finn"
    book.mkdir(parents=True)
    for s in SCANS:
        shutil.copy(scans / s, book / s)
    log = []
    run(binary, log, "analyze", str(book), "--language", "en")
    run(binary, log, "ocr", str(book))
    run(binary, log, "users", "add", "ann", "--role", "editor", "--library", str(lib), "--password-stdin", stdin=PASSWORD + "\n")
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "commands.txt").write_text("\n".join(log).replace(str(tmp_path) + "/", ""), encoding="utf-8")

    server_log = open(tmp_path / "server.log", "w")
    proc = subprocess.Popen([binary, "serve", str(lib), "--edit", "--port", "0", "--cache", str(tmp_path / "cache"), "--no-warm",
                             "--web-root", str(ROOT / "Sources" / "Reader" / "Web")], stdout=server_log, stderr=subprocess.STDOUT)
    try:
        url = phone.wait(lambda: "http://" in (tmp_path / "server.log").read_text() and
                         (tmp_path / "server.log").read_text().split("http://", 1)[1].split()[0], timeout=60, what="the server's URL")
        url = "http://" + url.rstrip("/")
        walk(phone, url, book)
    finally:
        proc.terminate()
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:  # still preparing an image
            proc.kill()
            proc.wait()
        server_log.close()


def walk(phone, url, book):
    phone.d.get(url + "/#/")
    phone.d.delete_all_cookies()
    phone.js("localStorage.clear(); sessionStorage.clear(); localStorage.setItem('pb.help.scan', '1'); localStorage.setItem('pb.help.clear', '1');")
    at_size(phone, DESKTOP)
    phone.d.get(f"{url}/?load={time.monotonic_ns()}#/book/huck-finn/page/2")
    phone.wait_ready(timeout=120)
    phone.wait_js("window.__pb.editor.session === 'anon'")
    phone.el('[data-action="sign-in"]').click()
    phone.el("#ed-name").send_keys("ann")
    phone.el("#ed-pass").send_keys(PASSWORD)
    shot(phone, "sign-in")
    phone.el("#ed-pass").send_keys("\n")
    phone.wait_js("window.__pb.editor.session === 'signed'")
    phone.el('[data-action="edit"]').click()
    phone.wait_js("window.__pb.editor.open && window.__pb.editor.ready", timeout=60)
    boxes = {b["id"]: b for b in json.loads((book / "book.json").read_text(encoding="utf-8"))["pages"][1]["textBoxes"]}
    shot(phone, "ocr-boxes")

    # The hand-lettered chapter heading: a title, and its text as printed.
    heading = min(boxes.values(), key=lambda b: b["rect"]["y"])["id"]
    select(phone, heading)
    phone.js("const s = document.querySelector('#ed-role'); s.value = 'title'; s.dispatchEvent(new Event('change'))")
    type_into(phone, "#ed-text-en", CHAPTER)
    # Marks in the drawing that analysis took for text: deleted.
    art = [i for i, b in boxes.items() if b["rect"]["x"] < 330 and 560 < b["rect"]["y"] < 660]
    for i in art:
        select(phone, i)
        phone.el('[data-action="delete-box"]').click()
    # The caption under the drawing: OCR saw only half of it. Widen the box to the left.
    cap = next(i for i, b in boxes.items() if b["rect"]["y"] > 655 and b["rect"]["y"] + b["rect"]["height"] < 690 and b["rect"]["x"] < 330)
    select(phone, cap)
    r = box_rect(phone, cap)
    s = phone.rect(f'.ed-box[data-id="{cap}"]')["width"] / r[2]
    hx, hy = center(phone.rect(".ed-box.selected .ed-handle.nw"))
    drag(phone, True, hx, hy, hx - (r[0] - 88) * s, hy - 3 * s)
    phone.js("const s = document.querySelector('#ed-role'); s.value = 'caption'; s.dispatchEvent(new Event('change'))")
    type_into(phone, "#ed-text-en", CAPTION)
    shot(phone, "caption")
    # The first paragraph: the OCR slips corrected, and a French translation added.
    body = next(i for i, b in boxes.items() if b["rect"]["x"] > 300 and 200 < b["rect"]["y"] < 300)
    select(phone, body)
    type_into(phone, "#ed-text-en", BODY)
    phone.el("#ed-new-lang").send_keys("fr")
    phone.el('[data-action="add-lang"]').click()
    type_into(phone, "#ed-text-fr", BODY_FR)
    phone.js("document.querySelector('#ed-text-fr').scrollIntoView({block: 'center'})")
    shot(phone, "translation")
    phone.el("#ed-reviewed").click()
    save(phone)
    phone.wait_js("['ready', 'failed', 'timeout'].includes(window.__pb.editor.assets)", timeout=1800)
    assert phone.js("return window.__pb.editor.assets") == "ready"
    shot(phone, "saved")
    phone.el('[data-action="close"]').click()
    phone.wait_js("!document.querySelector('.editor')")

    # The editor on a phone: the same page, the caption selected.
    at_size(phone, PORTRAIT)
    phone.el('[data-action="edit"]').click()
    phone.wait_js("window.__pb.editor.open && window.__pb.editor.ready", timeout=60)
    select(phone, cap)
    shot(phone, "phone")
    phone.el('[data-action="close"]').click()
    phone.wait_js("!document.querySelector('.editor')")

    # Read it in ClearText, in English and in French: in a tall desktop window (one page, not the
    # spread), the text at the size it was printed (the smallest reader text size), as a dense
    # novel page needs.
    at_size(phone, READING, desktop=True)
    phone.js("localStorage.setItem('pb.mode', 'clear'); localStorage.setItem('pb.textSize', '12')")
    phone.d.get(f"{url}/?load={time.monotonic_ns()}#/book/huck-finn/page/2")
    phone.wait_ready(timeout=600)
    shot(phone, "cleartext-english")
    phone.el('.seg [data-lang="fr"]').click()
    phone.wait_ready(timeout=600)
    assert "Miss Watson me passa" in phone.js("return document.querySelector('.screen.current').textContent")
    shot(phone, "cleartext-french")
    stored = json.loads((book / "book.json").read_text(encoding="utf-8"))["pages"][1]
    assert stored.get("reviewed") is True
