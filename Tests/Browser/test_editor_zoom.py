"""Zooming the page editor on a phone (393×852, touch) to place and size boxes precisely (#19): a
two-finger pinch and the + / − / Fit buttons zoom, the corner handles keep their finger size, and a
box dragged while zoomed is saved in page (scan) pixels — the drag's CSS px divided by the zoomed
scale, not by the fitted one and not as screen pixels. Uses test_editor's editing server and helpers.
"""
import pytest

from conftest import PORTRAIT
from test_editor import (Client, at_size, box_rect, center, css_scale, drag, ed, editing, open_editor,  # noqa: F401
                         save, screen_box, select, stored_box)

BOOK = "zoom-phone"


def pinch(phone, cx, cy, d0, d1, steps=10):
    """Two fingers on a horizontal line through (cx, cy), from d0 to d1 CSS px apart."""
    at = lambda d: [(cx - d / 2, cy), (cx + d / 2, cy)]
    phone.touch("touchStart", at(d0))
    for i in range(1, steps + 1):
        phone.touch("touchMove", at(d0 + (d1 - d0) * i / steps))
    phone.touch("touchEnd", [])


def test_zoom_on_a_phone_places_boxes_in_page_pixels(ed):
    phone, url, _ = ed
    at_size(phone, PORTRAIT, desktop=False)
    open_editor(phone, url, BOOK, 3)
    select(phone, "p003-b1")
    assert phone.js("return window.__pb.editor.zoom") == 1
    s1 = css_scale(phone, "p003-b1")
    handle1 = phone.rect(".ed-box.selected .ed-handle.se")
    rect_before = box_rect(phone, "p003-b1")

    # The buttons: + zooms 1.5×, Fit goes back.
    phone.tap_el('[data-action="zoom-in"]')
    phone.wait_js("window.__pb.editor.zoom === 1.5")
    assert abs(css_scale(phone, "p003-b1") / s1 - 1.5) < 0.02
    phone.tap_el('[data-action="zoom-fit"]')
    phone.wait_js("window.__pb.editor.zoom === 1")

    # A pinch centred on the box, fingers from 60 to 180 px apart: about 3×, the box stays there.
    cx, cy = center(screen_box(phone, "p003-b1"))
    pinch(phone, cx, cy, 60, 180)
    phone.wait_js("window.__pb.editor.zoom > 2.5")
    zoom = phone.js("return window.__pb.editor.zoom")
    s2 = css_scale(phone, "p003-b1")
    assert abs(s2 / s1 - zoom) < 0.05 * zoom, (s1, s2, zoom)
    bx, by = center(screen_box(phone, "p003-b1"))
    assert abs(bx - cx) < 6 and abs(by - cy) < 6, "the pinch zooms about the point between the fingers"
    # Handles are drawn in CSS px, not scaled: still a finger's size.
    handle2 = phone.rect(".ed-box.selected .ed-handle.se")
    assert abs(handle2["width"] - handle1["width"]) < 0.5 and handle2["width"] >= 22

    # Drag the box by (40, 30) CSS px at this zoom: it moves by that divided by the zoomed scale.
    r0 = box_rect(phone, "p003-b1")
    assert r0 == rect_before, "zooming does not move the box"
    drag(phone, False, bx, by, bx + 40, by + 30)
    phone.wait(lambda: box_rect(phone, "p003-b1")[:2] != r0[:2], what="the box moved")
    r1 = box_rect(phone, "p003-b1")
    dx, dy = r1[0] - r0[0], r1[1] - r0[1]
    assert abs(dx - 40 / s2) <= 2 and abs(dy - 30 / s2) <= 2, (r0, r1, s2)
    # ... which is far less than the same drag at the fitted scale would have moved it.
    assert dx < 40 / s1 * 0.6, (dx, 40 / s1)
    assert r1[2:] == r0[2:]

    save(phone)
    stored = stored_box(Client(url, "bob"), BOOK, 3, "p003-b1")
    assert [stored["rect"][k] for k in ("x", "y", "width", "height")] == r1, "saved in page pixels"
    page = Client(url, "bob").book(BOOK)[1]["pages"][2]
    assert 0 <= r1[0] and r1[0] + r1[2] <= page["width"] and r1[1] + r1[3] <= page["height"]
