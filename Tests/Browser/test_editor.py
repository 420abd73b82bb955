"""The page editor (#19) in a real browser, at phone portrait (393×852, touch) and desktop (1280×800,
mouse and keyboard), against a real `picturebook serve --edit` with real accounts.

The module starts its own editing server on copies of two sample books (the reader server of
Tools/test-browser.sh stays read-only and is used for the anonymous checks). A second editor is
scripted with urllib to provoke conflicts. Set EDITOR_URL (+ EDITOR_BOOKS, the folder it serves) to
test an already running editing server whose users alice/bob (editors) and carol (admin) have the
passwords below instead.
"""
import http.cookiejar
import json
import os
import pathlib
import shutil
import subprocess
import tempfile
import time
import urllib.error
import urllib.request

import pytest

from conftest import PORTRAIT, ROOT

DESKTOP = (1280, 800)
KITE = "salmas-red-kite"
PASSWORDS = {"alice": "correct horse 1", "bob": "battery staple 2", "carol": "admin carol 3"}
ROLES = {"alice": "editor", "bob": "editor", "carol": "admin"}
SIZES = [pytest.param(PORTRAIT, id="phone"), pytest.param(DESKTOP, id="desktop")]


# ---------------------------------------------------------------- the editing server

def _binary():
    b = os.environ.get("PICTUREBOOK_BIN") or str(ROOT / ".build" / "debug" / "picturebook")
    if not os.access(b, os.X_OK):
        pytest.skip(f"no picturebook binary at {b}")
    return b


def _book_copy(books, name, extra_langs=()):
    """A sample book under another id, optionally with more languages (Japanese for typing tests)."""
    shutil.copytree(ROOT / "Books" / KITE, books / name)
    if extra_langs:
        p = books / name / "book.json"
        book = json.loads(p.read_text(encoding="utf-8"))
        book["languages"] = book["languages"] + list(extra_langs)
        p.write_text(json.dumps(book, ensure_ascii=False, indent=2), encoding="utf-8")


def _flag_for_review(book_dir, page, box, reason):
    """Marks a box as `picturebook clear` marks one it left as scanned."""
    p = book_dir / "book.json"
    book = json.loads(p.read_text(encoding="utf-8"))
    b = next(x for x in book["pages"][page - 1]["textBoxes"] if x["id"] == box)
    b["needsReview"] = True
    b["reviewReason"] = reason
    p.write_text(json.dumps(book, ensure_ascii=False, indent=2), encoding="utf-8")


def _fence_book(book_dir):
    """A book never run through `clear` whose one box the fill's checks leave as scanned (vertical
    Japanese over a fence, Tests/PreparationTests/Fixtures/kept-box-fence.png), and a page of text."""
    book_dir.mkdir()
    shutil.copy(ROOT / "Tests" / "PreparationTests" / "Fixtures" / "kept-box-fence.png", book_dir / "fence.png")
    box = {"id": "b1", "role": "body", "rect": {"x": 40, "y": 40, "width": 46, "height": 546},
           "text": {"en": "A fence."}, "language": "en", "order": 1}
    book = {"format": "picturebook-book/1", "title": {"en": "Fence"}, "languages": ["en"], "readingDirection": "ltr",
            "pages": [{"image": "fence.png", "width": 128, "height": 626, "textBoxes": [box]}]}
    (book_dir / "book.json").write_text(json.dumps(book, indent=2), encoding="utf-8")


@pytest.fixture(scope="module")
def editing(tmp_path_factory):
    """(url, books folder) of a `serve --edit` with the editors alice and bob."""
    if os.environ.get("EDITOR_URL"):
        yield os.environ["EDITOR_URL"].rstrip("/"), pathlib.Path(os.environ["EDITOR_BOOKS"])
        return
    binary = _binary()
    tmp = tmp_path_factory.mktemp("editing")
    books = tmp / "books"
    books.mkdir()
    for size in ("phone", "desktop"):
        for use in ("flow", "conflict", "keys", "history", "zoom"):
            _book_copy(books, f"{use}-{size}", extra_langs=("ja",))
        _book_copy(books, f"review-{size}")
        _flag_for_review(books / f"review-{size}", page=2, box="p002-b2", reason="runsOn")
        _fence_book(books / f"fence-{size}")
    for name, pw in PASSWORDS.items():
        r = subprocess.run([binary, "users", "add", name, "--role", ROLES[name], "--library", str(books), "--password-stdin"],
                           input=pw + "\n", capture_output=True, text=True, timeout=120)
        assert r.returncode == 0, f"users add {name}: {r.stderr}"
    log = open(tmp / "server.log", "w")
    proc = subprocess.Popen([binary, "serve", str(books), "--edit", "--port", "0", "--cache", str(tmp / "cache"),
                             "--no-warm", "--web-root", str(ROOT / "Sources" / "Reader" / "Web")],
                            stdout=log, stderr=subprocess.STDOUT)
    try:
        url = None
        for _ in range(600):
            text = (tmp / "server.log").read_text()
            if "http://" in text:
                url = text[text.index("http://"):].split()[0].rstrip("/")
                break
            assert proc.poll() is None, f"the editing server exited: {text}"
            time.sleep(0.1)
        assert url, "no URL from the editing server"
        yield url, books
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()


class Client:
    """A second editor, scripted: signs in with a cookie jar and saves through the API."""

    def __init__(self, url, name):
        self.url = url
        self.jar = http.cookiejar.CookieJar()
        self.open = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.jar)).open
        status, body, _ = self.call("POST", "/api/session", {"name": name, "password": PASSWORDS[name]})
        assert status == 200, body
        self.csrf = body["csrf"]

    def call(self, method, path, body=None, revision=None):
        headers = {"Content-Type": "application/json"}
        if getattr(self, "csrf", None):
            headers["X-CSRF-Token"] = self.csrf
        if revision is not None:
            headers["If-Match"] = f'"{revision}"'
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.url + path, data=data, method=method, headers=headers)
        try:
            with self.open(req, timeout=60) as r:
                raw = r.read()
                return r.status, json.loads(raw) if raw else None, r.headers
        except urllib.error.HTTPError as e:
            raw = e.read()
            return e.code, json.loads(raw) if raw else None, e.headers

    def book(self, book):
        status, body, _ = self.call("GET", f"/api/edit/books/{book}")
        assert status == 200, body
        return body["revision"], body["book"]


# ---------------------------------------------------------------- browser helpers

def at_size(phone, size, desktop=None):
    """The shared Chromium as a touch phone (393×852) or a mouse-and-keyboard desktop (1280×800)."""
    w, h = size
    desktop = size == DESKTOP if desktop is None else desktop
    phone.d.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
        "width": w, "height": h, "deviceScaleFactor": 1 if desktop else 2, "mobile": not desktop})
    phone.d.execute_cdp_cmd("Emulation.setTouchEmulationEnabled", {"enabled": not desktop, "maxTouchPoints": 5})
    phone.size = size
    return desktop


def drag(phone, desktop, x0, y0, x1, y1, steps=10):
    """A finger (phone) or the mouse (desktop) from (x0, y0) to (x1, y1), with intermediate moves."""
    pts = [(x0 + (x1 - x0) * i / steps, y0 + (y1 - y0) * i / steps) for i in range(steps + 1)]
    if desktop:
        mouse = lambda kind, x, y, buttons: phone.d.execute_cdp_cmd("Input.dispatchMouseEvent", {
            "type": kind, "x": x, "y": y, "button": "left", "buttons": buttons, "clickCount": 1})
        mouse("mouseMoved", x0, y0, 0)
        mouse("mousePressed", x0, y0, 1)
        for x, y in pts[1:]:
            mouse("mouseMoved", x, y, 1)
            time.sleep(0.015)
        mouse("mouseReleased", x1, y1, 0)
    else:
        phone.touch("touchStart", [pts[0]])
        for p in pts[1:]:
            phone.touch("touchMove", [p])
            time.sleep(0.015)
        phone.touch("touchEnd", [])


def fetch_bytes(url):
    with urllib.request.urlopen(url, timeout=240) as r:
        return r.status, r.read()


def center(r):
    return r["x"] + r["width"] / 2, r["y"] + r["height"] / 2


def sign_in(phone, name):
    phone.wait_js("window.__pb.editor.session === 'anon'")
    phone.el('[data-action="sign-in"]').click()
    phone.el("#ed-name").send_keys(name)
    phone.el("#ed-pass").send_keys(PASSWORDS[name] + "\n")
    phone.wait_js("window.__pb.editor.session === 'signed'")


def open_editor(phone, url, book, page):
    phone.d.get(f"{url}/?load={time.monotonic_ns()}#/book/{book}/page/{page}")
    phone.wait_ready(timeout=60)
    phone.wait_js("['anon', 'signed'].includes(window.__pb.editor.session)")
    if phone.js("return window.__pb.editor.session") == "anon":
        sign_in(phone, "alice")
    phone.el('[data-action="edit"]').click()
    phone.wait_js("window.__pb.editor.open && window.__pb.editor.ready", timeout=60)


def box_rect(phone, box_id):
    """The selected-box form's rect in scan pixels."""
    return [int(v) for v in phone.js(
        "return document.querySelector(`.ed-box-form[data-id='${arguments[0]}'] .ed-rect`).dataset.rect", box_id).split(",")]


def select(phone, box_id):
    phone.el(f'.ed-list-btn[data-id="{box_id}"]').click()
    phone.wait_js(f"window.__pb.editor.selected === {json.dumps(box_id)}")


def save(phone):
    saves = phone.js("return window.__pb.editor.saves")
    phone.el('[data-action="save"]').click()
    phone.wait_js(f"window.__pb.editor.saves > {saves}", timeout=60)


def clear_storage(phone):
    phone.js("localStorage.clear(); sessionStorage.clear();"
             "localStorage.setItem('pb.help.scan', '1'); localStorage.setItem('pb.help.clear', '1');")


@pytest.fixture
def ed(phone, editing):
    """The phone fixture pointed at the editing server: no cookies, first-use help already seen."""
    url, books = editing
    phone.d.get(url + "/#/")
    phone.d.delete_all_cookies()
    clear_storage(phone)
    yield phone, url, books
    phone.d.get(url + "/#/")
    phone.d.delete_all_cookies()
    clear_storage(phone)


def screen_box(phone, box_id):
    return phone.rect(f'.ed-box[data-id="{box_id}"]')


def css_scale(phone, box_id):
    """CSS px per scan px in the editor, measured from a box on screen and its rect."""
    r = box_rect(phone, box_id)
    return screen_box(phone, box_id)["width"] / r[2]


def type_into(phone, css, text):
    el = phone.el(css)
    el.clear()
    el.send_keys(text)
    phone.wait(lambda: el.get_attribute("value") == text, what=f"{css} holds {text!r}")
    return el


def stored_box(client, book, page, box_id):
    _, b = client.book(book)
    return next(x for x in b["pages"][page - 1]["textBoxes"] if x["id"] == box_id)


# ---------------------------------------------------------------- readers without an account

def test_anonymous_reader_sees_no_edit_controls(ed, base_url):
    phone, url, _ = ed
    # A server without --edit: the reader is exactly as before (no sign-in, no edit).
    phone.open(f"#/book/{KITE}/page/3")
    phone.wait_js("window.__pb.editor.session === 'off'")
    assert not phone.els(".ed-slot button"), "a read-only server shows no account controls"
    # An editing server, not signed in: only "Sign in".
    phone.d.get(f"{url}/?load={time.monotonic_ns()}#/book/flow-phone/page/3")
    phone.wait_ready(timeout=60)
    phone.wait_js("window.__pb.editor.session === 'anon'")
    assert phone.els('[data-action="sign-in"]')
    assert not phone.els('[data-action="edit"]') and not phone.els(".editor")
    status = phone.js("return fetch('/api/edit/books/flow-phone').then(r => r.status)")
    assert status == 401


def test_page_numbers_are_never_popout_targets(phone):
    book = phone.js("return fetch(arguments[0]).then(r => r.json())", f"/api/books/{KITE}")
    page = book["pages"][2]
    numbers = [b["id"] for b in page["textBoxes"] if b["role"] == "pageNumber"]
    others = [b["id"] for b in page["textBoxes"] if b["role"] != "pageNumber"]
    assert numbers and others, "page 3 of the sample has a page number and body text"
    phone.js("localStorage.setItem('pb.mode', 'scan')")
    phone.open(f"#/book/{KITE}/page/3")
    targets = phone.js("return [...document.querySelectorAll('.screen.current .textbox')].map(b => b.dataset.box)")
    assert set(others) & set(targets), f"body text is enlargeable: {targets}"
    assert not set(numbers) & set(targets), f"page numbers {numbers} must not be PopoutText targets: {targets}"


# ---------------------------------------------------------------- editing

@pytest.mark.parametrize("size", SIZES)
def test_edit_drag_resize_type_save_cleartext_undo_sign_out(ed, size, request):
    phone, url, _ = ed
    sid = request.node.callspec.id
    book = f"flow-{sid}"
    desktop = at_size(phone, size)
    bob = Client(url, "bob")
    rev0, before = bob.book(book)
    original = next(x for x in before["pages"][2]["textBoxes"] if x["id"] == "p003-b1")
    cleared = f"/api/books/{book}/pages/3/cleared?w=480"
    status, cleared_before = fetch_bytes(url + cleared)
    assert status == 200
    open_editor(phone, url, book, 3)
    select(phone, "p003-b1")
    r0 = box_rect(phone, "p003-b1")
    s = css_scale(phone, "p003-b1")

    # Move: drag the box's middle by (40, 30) CSS px.
    cx, cy = center(screen_box(phone, "p003-b1"))
    drag(phone, desktop, cx, cy, cx + 40, cy + 30)
    phone.wait(lambda: box_rect(phone, "p003-b1")[:2] != r0[:2], what="the box moved")
    r1 = box_rect(phone, "p003-b1")
    assert abs((r1[0] - r0[0]) * s - 40) <= 3 and abs((r1[1] - r0[1]) * s - 30) <= 3, (r0, r1, s)
    assert r1[2:] == r0[2:], "moving keeps the size"

    # Resize: the bottom-right handle by (-30, +24) CSS px.
    hx, hy = center(phone.rect('.ed-box.selected .ed-handle.se'))
    drag(phone, desktop, hx, hy, hx - 30, hy + 24)
    phone.wait(lambda: box_rect(phone, "p003-b1")[2:] != r1[2:], what="the box resized")
    r2 = box_rect(phone, "p003-b1")
    assert r2[:2] == r1[:2], "the opposite corner stays put"
    assert abs((r2[2] - r1[2]) * s + 30) <= 3 and abs((r2[3] - r1[3]) * s - 24) <= 3, (r1, r2, s)

    # Arabic types right to left; Japanese in a vertical box is typed in columns.
    arabic, japanese = "طارت الطائرة الورقية عاليا", "凧が高く飛んだ"
    ar = type_into(phone, "#ed-text-ar", arabic)
    assert ar.get_attribute("dir") == "rtl"
    phone.js("const s = document.querySelector('#ed-orientation'); s.value = 'vertical'; s.dispatchEvent(new Event('change'))")
    ja = type_into(phone, "#ed-text-ja", japanese)
    assert phone.js("return getComputedStyle(arguments[0]).writingMode", ja) == "vertical-rl"
    assert phone.js("return getComputedStyle(document.querySelector('#ed-text-ar')).writingMode") == "horizontal-tb"
    phone.js("const s = document.querySelector('#ed-orientation'); s.value = 'horizontal'; s.dispatchEvent(new Event('change'))")
    assert phone.js("return getComputedStyle(document.querySelector('#ed-text-ja')).writingMode") == "horizontal-tb"
    phone.wait_js("window.__pb.editor.dirty === true")

    save(phone)
    stored = stored_box(bob, book, 3, "p003-b1")
    assert [stored["rect"][k] for k in ("x", "y", "width", "height")] == r2
    assert stored["text"]["ar"] == arabic and stored["text"]["ja"] == japanese
    assert stored["textSources"]["ar"]["source"] == "librarian"
    assert phone.js("return window.__pb.editor.revision") != rev0

    # The page's ClearText is remade in the background, round the boxes where they now are, and
    # the reader shows what it made of them: the Arabic in place of the print where the moved
    # box's fill passed its checks, else (the box off half its line, its fill refused and the box
    # put back as scanned) the scan with PopoutText, never the Arabic over the print, and the
    # editor marks the box as left by the server's ClearText.
    phone.wait_js("window.__pb.editor.assets === 'ready'", timeout=240)
    status, cleared_after = fetch_bytes(url + cleared)
    assert status == 200 and cleared_after != cleared_before, "the same URL serves the remade ClearText image"
    status, body = fetch_bytes(url + f"/api/books/{book}/pages/3/clearance")
    clearance = json.loads(body)
    assert status == 200 and clearance["judgedBy"] == "server", clearance
    refused = "p003-b1" in {k["id"] for k in clearance["kept"]}
    assert clearance["cleared"] is not refused, clearance
    phone.wait_js("['kept', 'cleared'].includes(window.__pb.editor.clearance)", timeout=120)
    assert ("review" in phone.el('.ed-box[data-id="p003-b1"]').get_attribute("class").split()) is refused
    phone.el('[data-action="close"]').click()
    phone.wait_js("!document.querySelector('.editor')")
    phone.el('[aria-label="ClearText"]').click()
    phone.wait_ready(timeout=240)
    if refused:
        assert not phone.els('.screen.current .page[data-page="3"] .cleartext'), "no native text over the print"
        assert "/scan" in phone.el('.screen.current .page[data-page="3"] > img').get_attribute("src")
        assert phone.els('.screen.current .textbox[data-box="p003-b1"]'), "its text pops out"
    else:
        phone.el('.seg [data-lang="ar"]').click()
        phone.wait_ready(timeout=240)
        shown = phone.wait(lambda: phone.js(
            "return [...document.querySelectorAll('.screen.current .cleartext')].map(e => e.textContent).join('|')"), what="ClearText")
        assert arabic in shown, shown
        phone.el('.seg [data-lang="en"]').click()
        phone.wait_ready(timeout=240)

    # Undo (the saved change): the page is as it was, and its remade ClearText is shown again.
    phone.el('[data-action="edit"]').click()
    phone.wait_js("window.__pb.editor.open && window.__pb.editor.ready", timeout=60)
    phone.el('[data-action="undo"]').click()
    phone.wait_js("window.__pb.editor.undos === 1", timeout=60)
    back = stored_box(bob, book, 3, "p003-b1")
    assert back["rect"] == original["rect"] and back.get("text") == original.get("text")
    phone.wait_js("window.__pb.editor.assets === 'ready'", timeout=240)
    phone.el('[data-action="close"]').click()
    phone.wait_js("!document.querySelector('.editor')")
    phone.wait_ready(timeout=240)
    shown = phone.wait(lambda: phone.js(
        "return [...document.querySelectorAll('.screen.current .page[data-page=\"3\"] .cleartext')].map(e => e.textContent).join('|')"),
        timeout=120, what="ClearText")
    assert original["text"]["en"] in shown, shown
    img = phone.el('.screen.current .page[data-page="3"] > img')
    assert "/cleared" in img.get_attribute("src") and "v=" in img.get_attribute("src"), img.get_attribute("src")
    phone.wait(lambda: phone.js("return arguments[0].complete && arguments[0].naturalWidth > 0", img), timeout=120, what="the new ClearText image")
    phone.el('[data-action="edit"]').click()
    phone.wait_js("window.__pb.editor.open && window.__pb.editor.ready", timeout=60)

    # Sign out (the editor's account menu): the editor closes, the edit controls go, sign-in returns.
    phone.el('.editor [data-action="account"]').click()
    phone.el('[data-action="sign-out"]').click()
    phone.wait_js("window.__pb.editor.session === 'anon' && !document.querySelector('.editor')")
    assert not phone.els('[data-action="edit"]') and phone.els('[data-action="sign-in"]')
    status = phone.js("return fetch('/api/session').then(r => r.status)")
    assert status == 401, "the session is gone on the server too"


@pytest.mark.parametrize("size", SIZES)
def test_conflict_is_resolved_in_the_merge_dialog(ed, size, request):
    phone, url, _ = ed
    book = f"conflict-{request.node.callspec.id}"
    at_size(phone, size)
    open_editor(phone, url, book, 4)
    select(phone, "p004-b1")
    mine = "Mine: the kite climbs."
    type_into(phone, "#ed-text-en", mine)

    # Bob saves the same page first: his own text in b1 (a real conflict) and an Arabic fix in b2.
    bob = Client(url, "bob")
    rev, b = bob.book(book)
    page = b["pages"][3]
    b1 = next(x for x in page["textBoxes"] if x["id"] == "p004-b1")
    b2 = next(x for x in page["textBoxes"] if x["id"] == "p004-b2")
    b1["text"]["en"] = "Theirs: the kite dives."
    b2["text"]["ar"] = "نص بوب"
    status, body, _ = bob.call("PUT", f"/api/edit/books/{book}/pages/4", page, revision=rev)
    assert status == 200, body

    phone.el('[data-action="save"]').click()
    phone.wait_js("window.__pb.editor.merge && window.__pb.editor.merge.open", timeout=60)
    rows = phone.js("return window.__pb.editor.merge.rows")
    assert "p004-b1" in rows and "p004-b2" in rows, rows
    row1 = phone.el('.ed-merge-row[data-id="p004-b1"]')
    assert "Theirs: the kite dives." in row1.text and mine in row1.text, "both versions are shown"
    phone.el('.ed-merge-row[data-id="p004-b1"] input[value="mine"]').click()
    phone.el('.ed-merge-row[data-id="p004-b2"] input[value="theirs"]').click()
    saves = phone.js("return window.__pb.editor.saves")
    phone.el('[data-action="merge-save"]').click()
    phone.wait_js(f"window.__pb.editor.saves > {saves}", timeout=60)
    after = bob.book(book)[1]["pages"][3]["textBoxes"]
    got = {x["id"]: x.get("text", {}) for x in after}
    assert got["p004-b1"]["en"] == mine, "mine kept where I chose mine"
    assert got["p004-b2"]["ar"] == "نص بوب", "their edit kept where I chose theirs"
    assert not phone.js("return window.__pb.editor.dirty")


def test_keyboard_shortcuts_on_a_desktop(ed):
    phone, url, _ = ed
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys
    at_size(phone, DESKTOP)
    open_editor(phone, url, "keys-desktop", 4)
    select(phone, "p004-b1")
    r0 = box_rect(phone, "p004-b1")
    phone.js("document.querySelector('.ed-stage').focus()")
    keys = lambda *k: ActionChains(phone.d).send_keys(*k).perform()
    chord = lambda mod, k: ActionChains(phone.d).key_down(mod).send_keys(k).key_up(mod).perform()
    keys(Keys.ARROW_RIGHT)
    chord(Keys.SHIFT, Keys.ARROW_DOWN)
    chord(Keys.ALT, Keys.ARROW_RIGHT)
    r1 = box_rect(phone, "p004-b1")
    assert r1 == [r0[0] + 1, r0[1] + 10, r0[2] + 1, r0[3]], (r0, r1)
    n = len(phone.els(".ed-box"))
    keys("n")
    phone.wait(lambda: len(phone.els(".ed-box")) == n + 1, what="N adds a box")
    new = phone.js("return window.__pb.editor.selected")
    phone.js("document.querySelector('.ed-stage').focus()")
    keys(Keys.DELETE)
    phone.wait(lambda: len(phone.els(".ed-box")) == n, what="Delete removes it")
    chord(Keys.CONTROL, "z")
    phone.wait(lambda: len(phone.els(f'.ed-box[data-id="{new}"]')) == 1, what="Ctrl+Z brings it back")
    keys(Keys.ESCAPE)
    phone.wait_js("window.__pb.editor.selected === null")
    phone.js("document.querySelector('.ed-stage').focus()")
    keys(Keys.TAB)
    assert phone.js("return window.__pb.editor.selected"), "Tab selects a box"
    saves = phone.js("return window.__pb.editor.saves")
    chord(Keys.CONTROL, "s")
    phone.wait_js(f"window.__pb.editor.saves > {saves}", timeout=60)
    phone.el('[data-action="keys"]').click()
    assert "Alt + arrows" in phone.el(".ed-help").text


def test_phone_handles_are_finger_sized_and_unsaved_changes_are_kept(ed):
    phone, url, books = ed
    at_size(phone, PORTRAIT)
    open_editor(phone, url, "keys-phone", 3)
    select(phone, "p003-b1")
    # A finger landing 20 px from a corner handle's centre still takes the handle.
    hx, hy = center(phone.rect(".ed-box.selected .ed-handle.se"))
    hit = phone.js("const e = document.elementFromPoint(arguments[0], arguments[1]); return e && e.className", hx + 20, hy)
    assert "ed-handle" in hit, hit
    r0 = box_rect(phone, "p003-b1")
    cx, cy = center(screen_box(phone, "p003-b1"))
    drag(phone, False, cx, cy, cx + 20, cy + 20)
    phone.wait_js("window.__pb.editor.dirty === true")
    # Leaving asks first; "Keep editing" keeps the change, "Discard" drops it.
    phone.el('[data-action="close"]').click()
    phone.el('[data-action="stay"]').click()
    assert phone.els(".editor") and phone.js("return window.__pb.editor.dirty")
    phone.js("location.hash = '#/'")  # leaving through a link or the back button is asked about too
    phone.el('[data-action="discard"]').click()
    phone.wait_js("!document.querySelector('.editor')")
    stored = json.loads((books / "keys-phone" / "book.json").read_text(encoding="utf-8"))
    rect = next(x for x in stored["pages"][2]["textBoxes"] if x["id"] == "p003-b1")["rect"]
    assert [rect[k] for k in ("x", "y", "width", "height")] == r0, "nothing was saved"


# ---------------------------------------------------------------- boxes `clear` left as scanned

@pytest.mark.parametrize("size", SIZES)
def test_a_box_left_for_review_shows_why(ed, size, request):
    """A box `clear` flagged is marked on the page and in the list, and its form says why, what the
    reader does with the page, and what helps; the flag and its reason survive a save."""
    phone, url, _ = ed
    book = f"review-{request.node.callspec.id}"
    at_size(phone, size)
    open_editor(phone, url, book, 2)
    flagged = phone.el('.ed-box[data-id="p002-b2"]')
    assert "review" in flagged.get_attribute("class").split()
    assert "left as scanned" in flagged.get_attribute("aria-label")
    assert "review" not in phone.el('.ed-box[data-id="p002-b1"]').get_attribute("class").split()
    assert phone.el('.ed-list-btn[data-id="p002-b2"]').text.startswith("⚑")
    assert not phone.el('.ed-list-btn[data-id="p002-b1"]').text.startswith("⚑")
    select(phone, "p002-b2")
    note = phone.el(".ed-box-form .ed-review")
    assert note.get_attribute("data-reason") == "runsOn"
    assert "runs on past the box" in note.text and "Widen the box" in note.text, note.text
    assert note.is_displayed()
    select(phone, "p002-b1")
    assert not phone.els(".ed-box-form .ed-review"), "an unflagged box has no note"
    # The box's text corrected and saved: the flag and the reason are kept as they were.
    select(phone, "p002-b2")
    type_into(phone, "#ed-text-en", "A librarian's reading.")
    save(phone)
    stored = stored_box(Client(url, "bob"), book, 2, "p002-b2")
    assert stored["text"]["en"] == "A librarian's reading."
    assert stored["needsReview"] is True and stored["reviewReason"] == "runsOn", stored


@pytest.mark.parametrize("size", SIZES)
def test_a_box_the_servers_cleartext_left_as_scanned(ed, size, request):
    """A book never run through `clear`: the cleared image the server makes leaves its box as
    scanned, so ClearText shows the scan with PopoutText (never the native text over the print),
    and the editor marks the box and says why, as made by the server, not recorded."""
    phone, url, _ = ed
    book = f"fence-{request.node.callspec.id}"
    at_size(phone, size)
    phone.js("localStorage.setItem('pb.mode', 'clear')")
    phone.d.get(f"{url}/?load={time.monotonic_ns()}#/book/{book}/page/1")
    phone.wait_ready(timeout=120)
    assert phone.js("return document.querySelector('.stage').dataset.mode") == "clear"
    assert not phone.els(".screen.current .cleartext"), "no native text over the printed one"
    assert "/scan" in phone.el('.screen.current .page[data-page="1"] img').get_attribute("src")
    assert phone.els('.screen.current .textbox[data-box="b1"]'), "its text still pops out"
    phone.wait_js("['anon', 'signed'].includes(window.__pb.editor.session)")
    if phone.js("return window.__pb.editor.session") == "anon":
        sign_in(phone, "alice")
    phone.el('[data-action="edit"]').click()
    phone.wait_js("window.__pb.editor.open && window.__pb.editor.ready", timeout=60)
    phone.wait_js("window.__pb.editor.clearance === 'kept'", timeout=120)
    assert "review" in phone.el('.ed-box[data-id="b1"]').get_attribute("class").split()
    assert phone.el('.ed-list-btn[data-id="b1"]').text.startswith("⚑")
    select(phone, "b1")
    note = phone.el(".ed-box-form .ed-review")
    assert note.get_attribute("data-by") == "server"
    assert note.get_attribute("data-reason") in ("inDrawing", "joinedToDrawing", "textLeft", "edgesMade", "runsOn")
    assert "ClearText made of the saved page" in note.text and "Running clear" in note.text, note.text
    # Moved, the box is no longer the one judged: the mark goes until a save is judged again.
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys
    phone.js("document.querySelector('.ed-stage').focus()")
    ActionChains(phone.d).send_keys(Keys.ARROW_RIGHT).perform()  # the selected box, 1 px
    phone.wait(lambda: "review" not in phone.el('.ed-box[data-id="b1"]').get_attribute("class").split(),
               what="the mark to go with the move")
