"""History and restore in the browser editor (#19), at 393×852 (touch) and 1280×800: an editor sees
who changed the page or the book and when, and puts a page back to an earlier version (a new,
journaled save) after confirming; only an admin is offered setting the whole book back, which is
checked against the stored book and journal. Uses test_editor's editing server and helpers.
"""
import json

import pytest

from test_editor import KITE, PASSWORDS, SIZES, Client, at_size, clear_storage, ed, editing, open_editor  # noqa: F401


def history_of(client, book):
    status, body, _ = client.call("GET", f"/api/edit/books/{book}/history")
    assert status == 200, body
    return body["entries"]


def text_of(client, book, page, box):
    _, b = client.book(book)
    return next(x for x in b["pages"][page - 1]["textBoxes"] if x["id"] == box).get("text", {}).get("en")


def bob_saves(bob, book, page, box, text):
    rev, b = bob.book(book)
    p = b["pages"][page - 1]
    next(x for x in p["textBoxes"] if x["id"] == box).setdefault("text", {})["en"] = text
    status, body, _ = bob.call("PUT", f"/api/edit/books/{book}/pages/{page}", p, revision=rev)
    assert status == 200, body


def open_history(phone):
    phone.el('[data-action="history"]').click()
    phone.wait_js("window.__pb.editor.history && window.__pb.editor.history.open", timeout=60)


def confirm(phone):
    phone.wait_js("!!document.querySelector('.ed-confirm [data-action=\"confirm-yes\"]')")
    phone.el('.ed-confirm [data-action="confirm-yes"]').click()


def sign_in_as(phone, url, book, page, name):
    phone.d.get(f"{url}/#/")
    phone.d.delete_all_cookies()
    clear_storage(phone)
    phone.d.get(f"{url}/?as={name}#/book/{book}/page/{page}")
    phone.wait_ready(timeout=60)
    phone.wait_js("window.__pb.editor.session === 'anon'")
    phone.el('[data-action="sign-in"]').click()
    phone.el("#ed-name").send_keys(name)
    phone.el("#ed-pass").send_keys(PASSWORDS[name] + "\n")
    phone.wait_js("window.__pb.editor.session === 'signed'")
    phone.el('[data-action="edit"]').click()
    phone.wait_js("window.__pb.editor.open && window.__pb.editor.ready", timeout=60)


@pytest.mark.parametrize("size", SIZES)
def test_history_and_restore(ed, size, request):
    phone, url, _ = ed
    book = f"history-{request.node.callspec.id}"
    at_size(phone, size)
    bob = Client(url, "bob")
    original4 = text_of(bob, book, 4, "p004-b1")
    bob_saves(bob, book, 3, "p003-b1", "First version")   # 1
    bob_saves(bob, book, 3, "p003-b1", "Second version")  # 2
    bob_saves(bob, book, 4, "p004-b1", "Page four edit")  # 3

    # An editor: the page's changes newest first, with who and what; the whole book on request.
    open_editor(phone, url, book, 3)  # alice, an editor
    open_history(phone)
    assert phone.js("return window.__pb.editor.history.rows") == [2, 1]
    rows = [e.text for e in phone.els(".ed-history-row")]
    assert "bob" in rows[0] and "text of p003-b1" in rows[0], rows
    assert not phone.els('[data-action="restore-book"]'), "only an admin may set the whole book back"
    phone.el('input[name="ed-history-scope"][value="book"]').click()
    phone.wait_js("JSON.stringify(window.__pb.editor.history.rows) === '[3,2,1]'")
    phone.el('input[name="ed-history-scope"][value="page"]').click()
    phone.wait_js("JSON.stringify(window.__pb.editor.history.rows) === '[2,1]'")

    # Put page 3 back to change #1: asked first; Cancel changes nothing.
    phone.el('[data-action="restore-page"][data-seq="1"]').click()
    phone.el('.ed-confirm [data-action="confirm-no"]').click()
    assert len(history_of(bob, book)) == 3 and text_of(bob, book, 3, "p003-b1") == "Second version"
    phone.el('[data-action="restore-page"][data-seq="1"]').click()
    confirm(phone)
    phone.wait_js("window.__pb.editor.restored === 1", timeout=60)
    assert text_of(bob, book, 3, "p003-b1") == "First version"
    last = history_of(bob, book)[-1]
    assert (last["seq"], last["user"], last["page"], last["kind"]) == (4, "alice", 3, "page")
    assert text_of(bob, book, 4, "p004-b1") == "Page four edit", "putting a page back leaves other pages alone"

    # An admin sets the whole book back to change #1: page 4 loses bob's later edit too.
    sign_in_as(phone, url, book, 3, "carol")
    open_history(phone)
    phone.el('input[name="ed-history-scope"][value="book"]').click()
    phone.wait_js("JSON.stringify(window.__pb.editor.history.rows) === '[4,3,2,1]'")
    phone.el('[data-action="restore-book"][data-seq="2"]').click()
    confirm(phone)
    phone.wait_js("window.__pb.editor.restored === 1 && window.__pb.editor.ready", timeout=60)
    assert text_of(bob, book, 3, "p003-b1") == "Second version"
    assert text_of(bob, book, 4, "p004-b1") == original4
    last = history_of(bob, book)[-1]
    assert (last["user"], last["kind"], last["page"]) == ("carol", "restore", None)
    # The editor shows the restored page, at the new revision.
    assert phone.js("return window.__pb.editor.revision") == last["revision"]
