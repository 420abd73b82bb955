// Picturebook reader: the browser side of `picturebook serve` (API: Documentation/ReaderAPI.md).
// Vanilla JS, no build step. The server's layout engine decides where pages, boxes and popouts go;
// this file draws what it is told, handles input and animates between the states it is given.
'use strict';

const app = document.getElementById('app');
const BAR = 44; // keep in sync with --bar in reader.css
const LADDER = [320, 480, 640, 960, 1280, 1600, 2048];
const RTL_LANGS = new Set(['ar', 'he', 'fa', 'ur', 'yi', 'ps', 'dv', 'ckb', 'syr']);
const SNAP_FRACTION = 0.22;  // drag past this share of the width and the page turns
const FLING_SPEED = 0.45;    // px/ms: a quick flick turns the page however short
const TURN_MS = 280;

// Test and debugging hooks: the browser tests read these instead of guessing at timing.
const pb = (window.__pb = { zoom: null, popout: null, turns: 0, ready: false, layoutFetches: 0 });

const prefs = {
  get textSize() { return Number(localStorage.getItem('pb.textSize')) || 18; },
  set textSize(v) { localStorage.setItem('pb.textSize', String(v)); },
  get mode() { return localStorage.getItem('pb.mode') || 'scan'; },
  set mode(v) { localStorage.setItem('pb.mode', v); },
};

// ---------------------------------------------------------------- fetching

const cache = new Map();
async function getJSON(url) {
  if (cache.has(url)) return cache.get(url);
  const p = fetch(url).then(async (r) => {
    const body = await r.json().catch(() => ({ error: `${url}: not JSON (HTTP ${r.status})` }));
    if (!r.ok) throw new Error(body.error || `${url}: HTTP ${r.status}`);
    return body;
  });
  cache.set(url, p);
  p.catch(() => cache.delete(url));
  return p;
}
const api = {
  books: () => getJSON('/api/books'),
  book: (id) => getJSON(`/api/books/${encodeURIComponent(id)}`),
  layout(id, w, h) {
    pb.layoutFetches++;
    const q = new URLSearchParams({ width: Math.round(w), height: Math.round(h),
      scale: window.devicePixelRatio || 1, textSize: prefs.textSize });
    return getJSON(`/api/books/${encodeURIComponent(id)}/layout?${q}`);
  },
  transition(id, kind, page, w, h, frames = 24) {
    const q = new URLSearchParams({ kind, page, width: Math.round(w), height: Math.round(h), frames });
    return getJSON(`/api/books/${encodeURIComponent(id)}/transition?${q}`);
  },
};

// Image widths snap to the server's ladder so a resize doesn't fetch a new file per pixel.
function sized(url, cssWidth) {
  const need = cssWidth * (window.devicePixelRatio || 1);
  const w = LADDER.find((x) => x >= need) || LADDER[LADDER.length - 1];
  return url + (url.includes('?') ? '&' : '?') + 'w=' + w;
}

// ---------------------------------------------------------------- DOM helpers

function h(tag, attrs = {}, ...kids) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v == null || v === false) continue;
    if (k === 'class') el.className = v;
    else if (k === 'style') Object.assign(el.style, v);
    else if (k.startsWith('on')) el.addEventListener(k.slice(2), v);
    else el.setAttribute(k, v === true ? '' : v);
  }
  for (const kid of kids.flat()) if (kid != null) el.append(kid.nodeType ? kid : document.createTextNode(kid));
  return el;
}
const SVG = {
  back: '<svg viewBox="0 0 24 24"><path d="M15 5l-7 7 7 7"/></svg>',
  left: '<svg viewBox="0 0 24 24"><path d="M15 5l-7 7 7 7"/></svg>',
  right: '<svg viewBox="0 0 24 24"><path d="M9 5l7 7-7 7"/></svg>',
  grid: '<svg viewBox="0 0 24 24"><path d="M4 4h6v6H4zM14 4h6v6h-6zM4 14h6v6H4zM14 14h6v6h-6z"/></svg>',
  pairs: '<svg viewBox="0 0 24 24"><path d="M4 5h7v6H4zM13 13h7v6h-7zM14 8h3a2 2 0 0 1 2 2v1M10 16H7a2 2 0 0 1-2-2v-1"/></svg>',
};
function iconButton(label, svg, onclick, extra = {}) {
  const b = h('button', { class: 'icon-btn', type: 'button', 'aria-label': label, title: label, onclick, ...extra });
  b.innerHTML = svg;
  return b;
}
function place(el, r) {
  el.style.left = r.x + 'px'; el.style.top = r.y + 'px';
  el.style.width = r.width + 'px'; el.style.height = r.height + 'px';
  return el;
}
function stageSize() { return { w: window.innerWidth, h: Math.max(100, window.innerHeight - BAR) }; }
function langDir(lang) { return RTL_LANGS.has(String(lang).split('-')[0]) ? 'rtl' : 'ltr'; }
function langName(lang) {
  try { return new Intl.DisplayNames([lang], { type: 'language' }).of(lang) || lang; } catch { return lang; }
}
function whenLoaded(imgs) {
  return Promise.all([...imgs].map((i) => (i.complete ? (i.decode ? i.decode().catch(() => {}) : null)
    : new Promise((res) => { i.addEventListener('load', res, { once: true }); i.addEventListener('error', res, { once: true }); }))));
}
function showError(msg) {
  document.body.dataset.view = 'error';
  app.replaceChildren(h('div', { class: 'bar' }, iconButton('Library', SVG.back, () => (location.hash = '#/')), h('h1', {}, 'Picturebook')),
    h('p', { class: 'message', role: 'alert', style: { marginTop: BAR + 'px' } }, msg));
}

// ---------------------------------------------------------------- routing

let current = null; // the live view; has destroy()
function route() {
  // The editor (editor.js) keeps the view while it has unsaved changes and asks the user first.
  if (window.Editor && !window.Editor.allowRoute()) return;
  const parts = location.hash.replace(/^#\/?/, '').split('/').filter(Boolean).map(decodeURIComponent);
  if (parts[0] === 'book' && parts[1]) {
    const page = parts[2] === 'page' ? parseInt(parts[3], 10) || 1 : null;
    if (page != null && current instanceof Reader && current.id === parts[1]) return current.showPage(page, false);
    return show(page == null ? new Overview(parts[1]) : new Reader(parts[1], page));
  }
  show(new Library());
}
function show(view) {
  if (current) current.destroy();
  current = view;
  pb.ready = false;
  view.render().catch((e) => { if (current === view) showError(e.message); });
}
window.addEventListener('hashchange', route);
window.addEventListener('DOMContentLoaded', route);

// ---------------------------------------------------------------- library

class Library {
  async render() {
    document.body.dataset.view = 'library';
    const { books } = await api.books();
    const grid = h('div', { class: 'library', role: 'list' });
    for (const b of books) {
      if (b.status === 'ok') {
        grid.append(h('a', { class: 'book-card', role: 'listitem', href: `#/book/${encodeURIComponent(b.id)}`,
          'data-book': b.id, 'aria-label': `${b.displayTitle} (${b.languages.map(langName).join(', ')})` },
          h('img', { src: b.cover, alt: '', loading: 'lazy' }),
          h('span', { class: 'title', dir: 'auto' }, b.displayTitle),
          h('span', { class: 'langs' }, b.languages.map((l) => h('span', { class: 'lang', lang: l }, langName(l))))));
      } else {
        grid.append(h('div', { class: 'book-card error', role: 'listitem', 'data-book': b.id, 'data-status': 'error' },
          h('div', { class: 'cover-missing', 'aria-hidden': 'true' }, '⚠'),
          h('span', { class: 'title' }, b.displayTitle),
          h('span', { class: 'problems' }, 'This book can’t be opened: ', (b.problems || []).join('; '))));
      }
    }
    app.replaceChildren(h('div', { class: 'bar' }, h('h1', {}, 'Picturebook'), window.Editor ? window.Editor.slot(null) : null), grid);
    await whenLoaded(grid.querySelectorAll('img'));
    pb.ready = true;
  }
  destroy() {}
}

// ---------------------------------------------------------------- overview

class Overview {
  constructor(id) { this.id = id; this.onResize = debounce(() => this.layoutGrid(), 150); }
  async render() {
    document.body.dataset.view = 'overview';
    this.book = await api.book(this.id);
    this.scroller = h('div', { class: 'overview' });
    this.grid = h('div', { class: 'grid', role: 'list', 'aria-label': 'Pages' });
    this.scroller.append(this.grid);
    app.replaceChildren(h('div', { class: 'bar' }, iconButton('Library', SVG.back, () => (location.hash = '#/')),
      h('h1', { dir: 'auto' }, this.book.displayTitle)), this.scroller);
    await this.layoutGrid();
    window.addEventListener('resize', this.onResize);
    const back = sessionStorage.getItem('pb.overviewPage.' + this.id);
    if (back) this.grid.querySelector(`[data-page="${back}"]`)?.scrollIntoView({ block: 'center' });
    await whenLoaded(this.grid.querySelectorAll('img'));
    pb.ready = true;
  }
  async layoutGrid() {
    const { w, h: hh } = stageSize();
    const layout = await api.layout(this.id, w, hh);
    this.size = { w, h: hh };
    this.grid.style.height = layout.grid.contentHeight + 'px';
    const big = (window.devicePixelRatio || 1) > 1;
    this.grid.replaceChildren(...layout.grid.cells.map((c) => {
      const p = this.book.pages[c.page - 1];
      return place(h('button', { class: 'thumb', type: 'button', role: 'listitem', 'data-page': c.page,
        'aria-label': `Page ${p.label || c.page}`, onclick: () => this.zoomInto(c.page) },
        h('img', { src: big ? p.thumb2x : p.thumb, alt: '', draggable: 'false' }),
        h('span', { class: 'num', 'aria-hidden': 'true' }, p.label || '')), c.rect);
    }));
  }
  // Thumbnail → page: the layout engine's zoom keyframes, played with the Web Animations API.
  // Its rects are in grid-content coordinates; the scroll offset and the grid's place on screen are
  // blended out as the zoom progresses, so the flight starts exactly on the thumbnail the finger hit.
  async zoomInto(page) {
    if (this.zooming) return;
    this.zooming = true;
    sessionStorage.setItem('pb.overviewPage.' + this.id, page);
    const { w, h: hh } = this.size;
    let tr;
    try { tr = await api.transition(this.id, 'zoom', page, w, hh, 24); } catch { tr = null; }
    const target = `#/book/${encodeURIComponent(this.id)}/page/${page}`;
    if (!tr || !tr.frames || tr.frames.length < 2) { location.hash = target; return; }
    const gridBox = this.grid.getBoundingClientRect();
    const origin = { x: gridBox.left, y: gridBox.top }; // includes scroll
    const last = tr.frames[tr.frames.length - 1];
    const tapped = (f) => f.placements.find((p) => p.page === page && !p.region);
    const r0 = tapped(tr.frames[0]).rect, r1 = tapped(last).rect;
    const progress = (f) => { const r = tapped(f).rect; const d = Math.log(r1.width / r0.width);
      return d ? Math.log(r.width / r0.width) / d : f.time; };
    const fx = h('div', { class: 'fx', 'data-kind': 'zoom' }, h('div', { class: 'fx-dim' }));
    const finals = new Map(last.placements.map((p) => [p.page, p.rect]));
    const firsts = new Map(tr.frames[0].placements.map((p) => [p.page, p.rect]));
    const dur = 480;
    const anims = [];
    const big = (window.devicePixelRatio || 1) > 1;
    for (const pl of last.placements) {
      if (pl.page == null) continue;
      const p = this.book.pages[pl.page - 1];
      // The final frame's rect is the element's own box; every keyframe maps it onto that frame's rect.
      const base = pl.rect.width > 2 ? pl.rect : firsts.get(pl.page) || pl.rect;
      const src = pl.page === page ? sized(p.scan, r1.width) : (big ? p.thumb2x : p.thumb);
      const img = h('img', { src, alt: '', 'data-page': pl.page, style: { width: base.width + 'px', height: base.height + 'px' } });
      if (pl.page === page) img.dataset.tapped = '1';
      const kfs = tr.frames.map((f) => {
        const q = f.placements.find((x) => x.page === pl.page);
        const t = progress(f);
        const off = { x: (1 - t) * origin.x, y: (1 - t) * origin.y + t * BAR };
        if (!q) return { offset: f.time, opacity: 0, transform: 'translate(0px,0px)' };
        const sx = q.rect.width / base.width, sy = q.rect.height / base.height;
        const rot = q.rotation ? ` rotate(${q.rotation}rad)` : '';
        return { offset: f.time, opacity: q.opacity ?? 1,
          transform: `translate(${q.rect.x + off.x}px, ${q.rect.y + off.y}px) scale(${sx}, ${sy})${rot}` };
      });
      fx.append(img);
      anims.push(img.animate(kfs, { duration: dur, easing: 'linear', fill: 'forwards' }));
    }
    const dimAnim = fx.firstChild.animate([{ opacity: 0 }, { opacity: 1 }], { duration: dur, fill: 'forwards' });
    anims.push(dimAnim);
    const tappedImg = fx.querySelector('[data-tapped]');
    // Samples of the tapped page's on-screen rect during the flight, for the tests.
    pb.zoom = { page, running: true, samples: [], animations: anims.length, keyframes: tr.frames.length };
    document.body.append(fx);
    let sampling = true;
    const sample = () => {
      if (!sampling) return;
      const r = tappedImg.getBoundingClientRect();
      pb.zoom.samples.push({ t: performance.now(), x: r.x, y: r.y, width: r.width, height: r.height,
        transform: getComputedStyle(tappedImg).transform });
      requestAnimationFrame(sample);
    };
    requestAnimationFrame(sample);
    await Promise.all(anims.map((a) => a.finished.catch(() => {})));
    sampling = false;
    pb.zoom.final = { x: r1.x, y: r1.y + BAR, width: r1.width, height: r1.height };
    pb.zoom.running = false;
    // The reader draws underneath the finished frame; the overlay leaves once its images are in.
    location.hash = target;
    route(); // draw the reader now rather than on the (asynchronous) hashchange
    const reader = current;
    if (reader instanceof Reader) await reader.ready.catch(() => {});
    fx.animate([{ opacity: 1 }, { opacity: 0 }], { duration: 120 }).finished.then(() => fx.remove());
  }
  destroy() { window.removeEventListener('resize', this.onResize); }
}

function debounce(fn, ms) { let t; return (...a) => { clearTimeout(t); t = setTimeout(() => fn(...a), ms); }; }

// ---------------------------------------------------------------- reader

class Reader {
  constructor(id, page) {
    this.id = id; this.page = page; this.index = 0;
    this.langs = {};          // page number → chosen ClearText language (per page, as the issue asks)
    this.popout = null;
    // Phones fire resize for things that leave the stage as it was (the URL bar, a late orientation
    // event); redrawing then would only flicker and drop whatever the reader was doing.
    this.onResize = debounce(() => {
      const { w, h: hh } = stageSize();
      if (!this.size || w !== this.size.w || hh !== this.size.h) this.relayout(true);
    }, 160);
    this.onKey = (e) => this.key(e);
    this.clearances = new Map(); // clearance URL → {cleared, kept: Set of box ids}; a promise while asked
    let resolve; this.ready = new Promise((r) => (resolve = r)); this.resolveReady = resolve;
  }
  async render() {
    document.body.dataset.view = 'reader';
    this.book = await api.book(this.id);
    this.rtl = this.book.readingDirection === 'rtl';
    this.hasText = this.book.pages.some((p) => p.textBoxes.some((b) => b.text && Object.keys(b.text).length));
    const seenKey = 'pb.hintSeen.' + this.id;
    this.showHint = !sessionStorage.getItem(seenKey) && !localStorage.getItem(seenKey);
    sessionStorage.setItem(seenKey, '1'); // outlines for this visit; a later open of the book starts clean
    if (this.showHint) localStorage.setItem(seenKey, '1');
    this.mode = this.hasText ? prefs.mode : 'scan';
    this.words = new Words.Glossary(this.id, this.book);

    this.pageNo = h('span', { class: 'page-number', 'aria-live': 'polite' });
    this.modeBtn = this.hasText ? h('button', { class: 'icon-btn', type: 'button', 'aria-label': 'ClearText',
      title: 'ClearText: the text typeset by the browser', onclick: () => this.setMode(this.mode === 'clear' ? 'scan' : 'clear') }, 'Aa') : null;
    this.langGroup = h('div', { class: 'seg', role: 'group', 'aria-label': 'Language' });
    this.sizeGroup = h('div', { class: 'seg', role: 'group', 'aria-label': 'Text size' },
      h('button', { class: 'icon-btn', type: 'button', 'aria-label': 'Smaller text', onclick: () => this.setTextSize(-2) }, 'A−'),
      h('button', { class: 'icon-btn', type: 'button', 'aria-label': 'Larger text', onclick: () => this.setTextSize(2) }, 'A+'));
    // Word pairs: the glossary's list, revision, the reader's own pairs (pairs.js).
    this.pairsBtn = this.hasText ? iconButton('Word pairs', SVG.pairs, () => new Pairs.Panel(this).open(), { 'data-action': 'pairs' }) : null;
    const bar = h('div', { class: 'bar' },
      iconButton('Overview', SVG.grid, () => (location.hash = `#/book/${encodeURIComponent(this.id)}`)),
      h('h1', { dir: 'auto' }, this.book.displayTitle), this.pageNo, this.langGroup, this.sizeGroup, this.modeBtn, this.pairsBtn,
      window.Editor ? window.Editor.slot(this) : null); // Sign in / Edit, only on a server run with --edit
    this.track = h('div', { class: 'track' });
    this.stage = h('div', { class: 'stage', 'aria-roledescription': 'book', 'aria-label': this.book.displayTitle }, this.track);
    // Visible buttons sit where the finger would swipe from: in a right-to-left book "next" is on the left.
    this.leftBtn = h('button', { class: 'nav left', type: 'button', 'aria-label': this.rtl ? 'Next page' : 'Previous page', onclick: () => this.step(-1) });
    this.leftBtn.innerHTML = SVG.left;
    this.rightBtn = h('button', { class: 'nav right', type: 'button', 'aria-label': this.rtl ? 'Previous page' : 'Next page', onclick: () => this.step(1) });
    this.rightBtn.innerHTML = SVG.right;
    app.replaceChildren(bar, this.stage, this.leftBtn, this.rightBtn);
    this.attachPointer();
    window.addEventListener('resize', this.onResize);
    window.addEventListener('orientationchange', this.onResize);
    window.addEventListener('keydown', this.onKey);
    await this.relayout(false);
  }
  destroy() {
    window.removeEventListener('resize', this.onResize);
    window.removeEventListener('orientationchange', this.onResize);
    window.removeEventListener('keydown', this.onKey);
    this.closePopout(false);
    Words.hidePop();
    document.querySelectorAll('.panel, .help').forEach((x) => x.remove());
  }
  // The reader added a pair: mark it in the text now.
  redrawWords() { if (this.mode === 'clear') { this.draw(); this.afterDraw(); } }

  // ---- layout

  async relayout(animated) {
    const { w, h: hh } = stageSize();
    const before = this.layout;
    const layout = await api.layout(this.id, w, hh);
    if (this.layout && before !== this.layout) return; // a newer relayout won
    const turned = before && before.viewport.orientation !== layout.viewport.orientation;
    this.layout = layout; this.size = { w, h: hh };
    this.index = Math.max(0, layout.screens.findIndex((s) => s.pages.includes(this.page)));
    this.closePopout(false);
    this.draw();
    if (animated && turned) await this.playRotate(before, layout);
    await this.afterDraw();
  }
  async afterDraw() {
    if (this.mode === 'clear') {
      // A page whose clearance was not known yet was drawn as the scan: drawn again once it is.
      const s = this.screen(this.index);
      const drawn = s.pages.map((n) => this.showsCleared(n));
      await Promise.all(s.pages.map((n) => this.clearances.get(this.clearanceURL(n))));
      if (this.mode === 'clear' && s === this.screen(this.index) && s.pages.some((n, i) => this.showsCleared(n) !== drawn[i])) this.draw();
    }
    Words.help(this.mode === 'clear' ? 'clear' : 'scan');
    await whenLoaded(this.track.querySelectorAll('.screen.current img'));
    pb.ready = true;
    this.resolveReady();
  }
  screen(i) { return this.layout.screens[i]; }
  // Which neighbour lies on which side: in a right-to-left book the next screen is to the left.
  sideIndex(side) { return this.index + (this.rtl ? -side : side); }

  draw() {
    const { w } = this.size;
    const s = this.screen(this.index);
    this.page = s.pages.includes(this.page) ? this.page : s.pages[0];
    pb.ready = false; // until afterDraw has the new screen's images
    Words.hidePop();
    const els = [];
    for (const side of [-1, 0, 1]) {
      const i = this.sideIndex(side);
      if (i < 0 || i >= this.layout.screens.length) continue;
      const el = this.drawScreen(this.screen(i), side === 0);
      el.style.transform = `translateX(${side * w}px)`;
      els.push(el);
    }
    this.track.style.transform = '';
    this.track.replaceChildren(...els);
    this.updateChrome();
  }
  updateChrome() {
    const s = this.screen(this.index);
    const pages = s.pages.slice().sort((a, b) => a - b);
    const label = (n) => this.book.pages[n - 1].label || String(n);
    this.pageNo.textContent = pages.length > 1 ? `${label(pages[0])}–${label(pages[pages.length - 1])} / ${this.book.pages.length}`
      : `${label(pages[0])} / ${this.book.pages.length}`;
    this.stage.dataset.pages = s.pages.join(',');
    this.stage.dataset.screen = String(this.index);
    this.stage.dataset.mode = this.mode;
    this.stage.dataset.orientation = this.layout.viewport.orientation;
    const n = this.layout.screens.length;
    const canLeft = this.sideIndex(-1) >= 0 && this.sideIndex(-1) < n, canRight = this.sideIndex(1) >= 0 && this.sideIndex(1) < n;
    this.leftBtn.disabled = !canLeft; this.rightBtn.disabled = !canRight;
    if (this.modeBtn) {
      this.modeBtn.setAttribute('aria-pressed', String(this.mode === 'clear'));
    }
    // Languages: those the book has; shown in ClearText, where they change what is drawn.
    this.langGroup.replaceChildren();
    this.langGroup.hidden = this.mode !== 'clear';
    const chosen = this.langOf(s.pages[0]);
    // The book's languages, and any other a librarian has added a translation in on these pages
    // (the editor saves pages, not the book's language list).
    const langs = new Set(this.book.languages);
    for (const n of s.pages) for (const b of this.book.pages[n - 1].textBoxes) for (const l of Object.keys(b.text || {})) if (b.text[l]) langs.add(l);
    for (const l of langs) {
      this.langGroup.append(h('button', { class: 'icon-btn', type: 'button', lang: l, 'data-lang': l,
        'aria-label': langName(l), 'aria-pressed': String(l === chosen), title: langName(l),
        onclick: () => this.setLanguage(l) }, l.split('-')[0].toUpperCase()));
    }
    const hash = `#/book/${encodeURIComponent(this.id)}/page/${pages[0]}`;
    if (location.hash !== hash) history.replaceState(null, '', hash);
  }
  // A page saved in the editor gets new ClearText and popout images under the same URLs; the
  // revision in the query makes the browser fetch them instead of its cached copies.
  edited(url, page) {
    const v = window.Editor && window.Editor.assetVersion(this.id, page);
    return v ? url + (url.includes('?') ? '&' : '?') + 'v=' + encodeURIComponent(v) : url;
  }
  // ClearText is drawn on a page only once its cleared image is known to have left none of its
  // boxes but page numbers as scanned (the fill's checks put back a box whose fill they could not
  // show clean): the native text is never drawn over the printed one. Until then, and where a box
  // was left, the page is the scan with PopoutText. A failed answer counts as a box left.
  clearanceURL(n) {
    const p = this.book.pages[n - 1];
    return p.cleared && p.clearance ? this.edited(p.clearance, n) : null;
  }
  clearanceOf(n) {
    const url = this.clearanceURL(n);
    if (!url) return null;
    const known = this.clearances.get(url);
    if (known === undefined) {
      this.clearances.set(url, getJSON(url).then(
        (c) => this.clearances.set(url, { cleared: c.cleared === true, kept: new Set((c.kept || []).map((k) => k.id)) }),
        () => this.clearances.set(url, { cleared: false, kept: new Set() })));
    }
    return known instanceof Promise ? null : known || null;
  }
  showsCleared(n) { const c = this.clearanceOf(n); return !!(c && c.cleared); }
  langOf(page) { return this.langs[page] || this.bookLang || this.book.defaultLanguage || this.book.languages[0]; }

  drawScreen(s, isCurrent) {
    const el = h('div', { class: 'screen' + (isCurrent ? ' current' : ''), 'data-pages': s.pages.join(',') });
    const clear = this.mode === 'clear';
    const pageEls = new Map();
    for (const f of s.frames) {
      const p = this.book.pages[f.page - 1];
      const useCleared = clear && this.showsCleared(f.page);
      const pe = place(h('div', { class: 'page', 'data-page': f.page }, h('img', { src: this.edited(sized(useCleared ? p.cleared : p.scan, f.rect.width), f.page), alt: `Page ${p.label || f.page}`, draggable: 'false' })), f.rect);
      pageEls.set(f.page, { el: pe, frame: f.rect, page: p, cleared: useCleared });
      el.append(pe);
    }
    // A bilingual print repeats one sentence in two boxes (one per printed language). ClearText shows
    // it once, in the chosen language, over the union of those boxes; the rest of the group is cleared.
    const groups = new Map();
    for (const b of s.boxes || []) {
      const box = pageEls.get(b.page)?.page.textBoxes.find((x) => x.id === b.id);
      if (!box || !box.text) continue;
      const key = b.page + '|' + JSON.stringify(box.text);
      if (!groups.has(key)) groups.set(key, []);
      groups.get(key).push(b);
    }
    for (const b of s.boxes || []) {
      const pg = pageEls.get(b.page);
      if (!pg) continue;
      const box = pg.page.textBoxes.find((x) => x.id === b.id);
      if (!box) continue;
      const local = { x: b.rect.x - pg.frame.x, y: b.rect.y - pg.frame.y, width: b.rect.width, height: b.rect.height };
      if (clear && pg.cleared) {
        if (this.clearanceOf(b.page).kept.has(b.id)) continue; // a page number left as printed
        const group = box.text ? groups.get(b.page + '|' + JSON.stringify(box.text)) || [b] : [b];
        const lang = this.langOf(b.page);
        const lead = group.find((g) => pg.page.textBoxes.find((x) => x.id === g.id)?.language === lang) || group[0];
        if (lead !== b) continue;
        const u = group.reduce((a, g) => {
          const x0 = Math.min(a.x, g.rect.x), y0 = Math.min(a.y, g.rect.y);
          return { x: x0, y: y0, width: Math.max(a.x + a.width, g.rect.x + g.rect.width) - x0, height: Math.max(a.y + a.height, g.rect.y + g.rect.height) - y0 };
        }, b.rect);
        const ul = { x: u.x - pg.frame.x, y: u.y - pg.frame.y, width: u.width, height: u.height };
        pg.el.append(this.clearTextBox(box, ul, pg.frame.width / pg.page.width, b.page));
      } else if (box.role !== 'pageNumber') { // a page number is never worth enlarging
        const btn = place(h('button', { class: 'textbox' + (this.showHint ? ' outlined' : ''), type: 'button',
          'data-box': b.id, 'aria-label': 'Enlarge text', onclick: (e) => { e.stopPropagation(); this.openPopout(b, btn); } }), local);
        pg.el.append(btn);
      }
    }
    if (!clear && this.showHint && s.hint && s.hint.label) {
      el.append(place(h('div', { class: 'hint-label' }, s.hint.text || 'Tap to enlarge text'), { ...s.hint.label, width: undefined, height: undefined }));
    }
    return el;
  }

  clearTextBox(box, rect, pageScale, page) {
    const lang = this.langOf(page);
    const text = (box.text && (box.text[lang] ?? box.text[box.language] ?? Object.values(box.text)[0])) || '';
    const shownLang = box.text && box.text[lang] != null ? lang : box.language;
    // Never smaller than the reader asked for, never smaller than the print was.
    const printed = (box.textSize || rect.height / pageScale * 0.7) * pageScale;
    const size = Math.max(prefs.textSize, printed);
    const base = String(shownLang).split('-')[0];
    let cls = 'cleartext';
    if (/^mn-Mong/i.test(shownLang)) cls += ' vertical-lr';
    else if (box.orientation === 'vertical' && ['zh', 'ja', 'ko'].includes(base)) cls += ' vertical-rl';
    const vertical = cls.includes('vertical');
    // Glossary words are marked and open their translation when tapped (words.js).
    const el = h('div', { class: cls, lang: shownLang, dir: langDir(shownLang), 'data-box': box.id, 'data-font-size': size.toFixed(1) },
      Words.mark(text, shownLang, this.words));
    Words.attach(el, this.words);
    el.style.left = rect.x + 'px'; el.style.top = rect.y + 'px';
    el.style.fontSize = size + 'px';
    el.style.color = box.inkColor || '#111';
    // Grow along the line-stacking direction; if that would leave the screen, scroll instead of clipping.
    if (vertical) {
      el.style.height = rect.height + 'px'; el.style.minWidth = rect.width + 'px';
      el.style.maxWidth = Math.max(rect.width, this.size.w - rect.x - 8) + 'px';
    } else {
      el.style.width = rect.width + 'px'; el.style.minHeight = rect.height + 'px';
      el.style.maxHeight = Math.max(rect.height, this.size.h * 0.6) + 'px';
    }
    return el;
  }

  // ---- PopoutText

  openPopout(b, btn) {
    if (this.popout) return this.closePopout(true);
    const pop = b.popout;
    if (!pop) return;
    const box = btn.getBoundingClientRect();
    const stageTop = this.stage.getBoundingClientRect().top;
    const frame = { x: pop.frame.x, y: pop.frame.y + stageTop, width: pop.frame.width, height: pop.frame.height };
    const page = this.book.pages[b.page - 1];
    const tb = page.textBoxes.find((x) => x.id === b.id);
    const scale = Math.min(4, Math.ceil((window.devicePixelRatio || 1) * (pop.magnification || 1) * 2) / 2);
    const img = h('img', { src: this.edited(tb.popout + (tb.popout.includes('?') ? '&' : '?') + 'scale=' + scale, b.page), alt: tb.text ? (tb.text[tb.language] || '') : 'Enlarged text',
      style: { width: pop.contentSize.width + 'px', height: pop.contentSize.height + 'px' } });
    const el = place(h('div', { class: 'popout', role: 'dialog', 'aria-label': 'Enlarged text', tabindex: '-1', 'data-box': b.id,
      onclick: (e) => { e.stopPropagation(); this.closePopout(true); } }, img), frame);
    const scrim = h('div', { class: 'scrim', onclick: (e) => { e.stopPropagation(); this.closePopout(true); } });
    document.body.append(scrim, el);
    const from = `translate(${box.x - frame.x}px, ${box.y - frame.y}px) scale(${box.width / frame.width}, ${box.height / frame.height})`;
    const anim = el.animate([{ transform: from, opacity: 0.6 }, { transform: 'none', opacity: 1 }], { duration: 260, easing: 'cubic-bezier(.2,.8,.2,1)' });
    scrim.animate([{ opacity: 0 }, { opacity: 1 }], { duration: 260 });
    const strip = Words.popoutStrip(tb, frame, this.words);
    this.popout = { el, scrim, from, btn, strip };
    pb.popout = { box: b.id, state: 'growing', page: b.page, magnification: pop.magnification, textSize: pop.textSize,
      contentSize: pop.contentSize, frame };
    anim.finished.then(() => { if (this.popout && this.popout.el === el) { pb.popout.state = 'open'; el.focus({ preventScroll: true }); } }).catch(() => {});
    this.hideHint();
  }
  closePopout(animated) {
    const p = this.popout;
    if (!p) return;
    this.popout = null;
    if (pb.popout) pb.popout.state = 'shrinking';
    Words.hidePop();
    p.strip?.remove();
    const done = () => { p.el.remove(); p.scrim.remove(); if (pb.popout && !this.popout) pb.popout.state = 'closed'; };
    if (!animated) return done();
    p.el.scrollTo(0, 0);
    p.scrim.animate([{ opacity: 1 }, { opacity: 0 }], { duration: 220, fill: 'forwards' });
    p.el.animate([{ transform: 'none', opacity: 1 }, { transform: p.from, opacity: 0.4 }], { duration: 220, easing: 'ease-in', fill: 'forwards' })
      .finished.then(done, done);
  }
  hideHint() {
    if (!this.showHint) return;
    this.showHint = false;
    this.track.querySelectorAll('.textbox.outlined').forEach((b) => b.classList.remove('outlined'));
    this.track.querySelectorAll('.hint-label').forEach((l) => l.animate([{ opacity: 1 }, { opacity: 0 }], { duration: 300, fill: 'forwards' }));
  }

  // ---- modes, language, text size

  setMode(m) {
    this.mode = m; prefs.mode = m;
    this.closePopout(false); this.draw(); this.afterDraw();
  }
  setLanguage(l) {
    const s = this.screen(this.index);
    for (const p of s.pages) this.langs[p] = l;
    this.draw(); this.afterDraw();
  }
  async setTextSize(d) {
    prefs.textSize = Math.min(40, Math.max(12, prefs.textSize + d));
    await this.relayout(false); // the popout geometry depends on the text size
  }

  // ---- turning

  showPage(page, animated) {
    if (!this.layout) { this.page = page; return; }
    const i = this.layout.screens.findIndex((s) => s.pages.includes(page));
    if (i < 0 || i === this.index) return;
    this.page = page;
    this.goTo(i, animated);
  }
  step(side) {
    const i = this.sideIndex(side);
    if (!this.layout || i < 0 || i >= this.layout.screens.length || this.turning) return;
    this.closePopout(false);
    this.turnTo(side, 0, 0);
  }
  // Finish a turn towards `side` (−1 left, +1 right) from the current drag offset.
  async turnTo(side, fromDx, velocity) {
    this.turning = true;
    const { w } = this.size;
    const to = -side * w;
    const dur = Math.max(120, Math.min(TURN_MS, Math.abs(to - fromDx) / Math.max(Math.abs(velocity), 1.2)));
    const a = this.track.animate([{ transform: `translateX(${fromDx}px)` }, { transform: `translateX(${to}px)` }],
      { duration: dur, easing: 'cubic-bezier(.25,.8,.35,1)', fill: 'forwards' });
    await a.finished.catch(() => {});
    this.index = this.sideIndex(side);
    this.page = this.screen(this.index).pages[0];
    this.draw();
    a.cancel();
    pb.turns++;
    this.turning = false;
    this.hideHint();
    await this.afterDraw();
  }
  async springBack(fromDx) {
    const a = this.track.animate([{ transform: `translateX(${fromDx}px)` }, { transform: 'translateX(0px)' }],
      { duration: 320, easing: 'cubic-bezier(.3,1.5,.5,1)' });
    this.track.style.transform = '';
    await a.finished.catch(() => {});
  }
  goTo(i, animated) {
    if (animated && Math.abs(i - this.index) === 1) return this.step(this.rtl ? this.index - i : i - this.index);
    this.index = i; this.page = this.screen(i).pages[0];
    this.draw(); this.afterDraw();
  }
  key(e) {
    if (e.target.closest && e.target.closest('input, textarea')) return;
    if (e.key === 'Escape' && this.popout) return this.closePopout(true);
    if (e.key === 'ArrowRight') { e.preventDefault(); this.step(1); }
    else if (e.key === 'ArrowLeft') { e.preventDefault(); this.step(-1); }
  }

  // Direct manipulation: the pages follow the finger (or mouse) and either snap on to the neighbour
  // or spring back. A tap without movement does nothing here, so tapping the picture never turns.
  attachPointer() {
    let drag = null;
    const stage = this.stage;
    stage.addEventListener('pointerdown', (e) => {
      if (this.turning || this.popout || e.button > 0) return;
      drag = { id: e.pointerId, x0: e.clientX, y0: e.clientY, dx: 0, moving: false, hist: [{ t: e.timeStamp, x: e.clientX }] };
    });
    stage.addEventListener('pointermove', (e) => {
      if (!drag || e.pointerId !== drag.id) return;
      const dx = e.clientX - drag.x0, dy = e.clientY - drag.y0;
      if (!drag.moving) {
        if (Math.abs(dx) < 8 || Math.abs(dx) < Math.abs(dy)) return;
        drag.moving = true;
        try { stage.setPointerCapture(e.pointerId); } catch { /* synthetic pointers */ }
      }
      // Rubber-band at the ends of the book.
      const side = dx < 0 ? 1 : -1, i = this.sideIndex(side);
      const blocked = i < 0 || i >= this.layout.screens.length;
      drag.dx = blocked ? dx / 3 : dx;
      drag.hist.push({ t: e.timeStamp, x: e.clientX });
      if (drag.hist.length > 6) drag.hist.shift();
      this.track.style.transform = `translateX(${drag.dx}px)`;
    });
    const end = (e) => {
      if (!drag || e.pointerId !== drag.id) return;
      const d = drag; drag = null;
      if (!d.moving) return;
      const first = d.hist[0], lastH = d.hist[d.hist.length - 1];
      const v = (lastH.x - first.x) / Math.max(1, lastH.t - first.t);
      const side = d.dx < 0 ? 1 : -1, i = this.sideIndex(side);
      const possible = i >= 0 && i < this.layout.screens.length;
      const far = Math.abs(d.dx) > this.size.w * SNAP_FRACTION;
      const flung = Math.abs(v) > FLING_SPEED && Math.sign(v) === Math.sign(d.dx);
      if (possible && e.type === 'pointerup' && (far || flung)) this.turnTo(side, d.dx, v);
      else this.springBack(d.dx);
    };
    stage.addEventListener('pointerup', end);
    stage.addEventListener('pointercancel', end);
    // Swallow the click a drag ends with, so it can't reach a text box.
    stage.addEventListener('click', (e) => { if (this.turning) e.stopPropagation(); }, true);
  }

  // Portrait ↔ landscape: the current page turns from where the old screen had it into its place
  // in the new one (the layout engine's rotate keyframes); the other direction cross-fades.
  async playRotate(before, after) {
    const page = this.page;
    const cur = this.track.querySelector('.screen.current');
    if (!cur) return;
    let tr = null;
    if (after.viewport.orientation === 'landscape') {
      try { tr = await api.transition(this.id, 'rotate', page, this.size.w, this.size.h, 20); } catch { tr = null; }
    }
    const pageEl = cur.querySelector(`.page[data-page="${page}"]`);
    const anims = [];
    if (tr && tr.frames && tr.frames.length > 1 && pageEl) {
      const fin = tr.frames[tr.frames.length - 1].placements.find((p) => p.page === page)?.rect;
      for (const el of cur.querySelectorAll('.page')) {
        const n = Number(el.dataset.page);
        const kfs = tr.frames.map((f) => {
          const q = f.placements.find((x) => x.page === n);
          if (!q) return { offset: f.time, opacity: n === page ? 1 : 0 };
          if (n !== page) return { offset: f.time, opacity: q.opacity ?? 1 };
          const sx = q.rect.width / fin.width, sy = q.rect.height / fin.height;
          const cx = q.rect.x + q.rect.width / 2 - (fin.x + fin.width / 2), cy = q.rect.y + q.rect.height / 2 - (fin.y + fin.height / 2);
          return { offset: f.time, transform: `translate(${cx}px, ${cy}px) rotate(${q.rotation || 0}rad) scale(${sx}, ${sy})` };
        });
        anims.push(el.animate(kfs, { duration: 450, easing: 'linear' }));
      }
    } else {
      anims.push(cur.animate([{ opacity: 0, transform: 'scale(.92)' }, { opacity: 1, transform: 'none' }], { duration: 320, easing: 'ease-out' }));
    }
    pb.rotate = { kind: tr ? 'rotate' : 'fade', orientation: after.viewport.orientation, at: performance.now() };
    await Promise.all(anims.map((a) => a.finished.catch(() => {})));
  }
}
