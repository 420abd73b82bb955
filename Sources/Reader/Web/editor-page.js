// The page editor (editor.js has sessions and the shared helpers): one page's scan with its text
// boxes, which the librarian selects, moves, resizes, adds and deletes with a finger, a mouse or the
// keyboard, and a form for the selected box's role, order, orientation, language and text.
// Saves name the revision they edited (If-Match); a 409 opens the merge dialog (editor-merge.js).
'use strict';

(() => {
  const { session, call, message, modal, clone, same, writing, awaitAssets, ROLES, langLabel } = Editor.shared;
  const MIN = 4;          // smallest box side, scan px
  const CREATE_MIN = 10;  // a drag on the empty page shorter than this (CSS px) is a tap, not a new box
  const KEYS = [
    ['← ↑ → ↓', 'move the selected box 1 px (Shift: 10 px)'], ['Alt + arrows', 'resize it'],
    ['Delete', 'delete it'], ['N', 'new box'], ['Tab', 'next box (when the page has focus)'],
    ['Esc', 'deselect'], ['Ctrl/⌘ + S', 'save'], ['Ctrl/⌘ + Z', 'undo'],
    ['+ / − / 0', 'zoom in, out, fit the page'], ['Ctrl/⌘ + wheel', 'zoom at the pointer (the wheel pans)'],
  ];
  const CORNERS = ['nw', 'ne', 'sw', 'se'];
  // Why `picturebook clear` left a box exactly as scanned (book.json `reviewReason`; the same
  // sentences as Sources/BookModel/ReviewReason.swift, which `clear --report` prints).
  const REVIEW = {
    inDrawing: ['its ink could not be shown to be type alone (it lies in a drawing)',
      'Draw the box round the letters alone, leaving the drawing out, and run clear again.'],
    joinedToDrawing: ["letters of it touch a drawing's strokes (clearing the others would leave half words)",
      'Clear does not erase a drawing, so a box like this stays as scanned; its text still pops out.'],
    textLeft: ['the fill left its text on the page (the mask missed letters, or took the art across them)',
      'Check the box holds the whole text and run clear again; over busy art it may stay as scanned.'],
    edgesMade: ['the fill made edges its ground does not have (letters left in pieces or as outlines, streaks, blotches)',
      'Check the box holds the whole text and run clear again; over busy art it may stay as scanned.'],
    smeared: ['the fill left smears on its ground (a shade of the ink: ghosts of letters, a band or a line beside the box carried into it)',
      'Check the box holds the whole text and nothing of the drawing beside it, and run clear again; over busy art it may stay as scanned.'],
    runsOn: ['its line runs on past the box (clearing it would leave half a word beside it)',
      'Widen the box to take in the whole line, and run clear again.'],
    lineBeside: ['a line of text in no box lies beside it (clearing it would leave half of its block)',
      'Widen the box to take in the line beside it (or draw a box round that line), and run clear again.'],
    lettersCut: ['letters reach past the box (clearing it would leave pieces of them: ascenders, descenders, a neighbour\'s tails)',
      'Make the box take in the letters whole (their ascenders and descenders), and run clear again.'],
  };
  const ui = pb.editor;

  class Page {
    constructor(bookId, n, reader) {
      this.bookId = bookId; this.n = n; this.reader = reader;
      this.undoStack = []; this.selected = null; this.op = null;
      this.zoom = 1; this.pan = { x: 0, y: 0 };
      this.onKey = (e) => this.key(e);
      this.onResize = () => this.fit();
    }
    get url() { return `/api/edit/books/${encodeURIComponent(this.bookId)}`; }
    dirty() { return !!this.page && !same(this.page, this.base); }

    async start() {
      Page.open = this;
      ui.open = true; ui.ready = false;
      this.el = h('div', { class: 'panel editor', 'data-panel': 'editor', role: 'dialog', 'aria-label': 'Page editor' });
      document.body.append(this.el);
      window.addEventListener('keydown', this.onKey, true);
      window.addEventListener('resize', this.onResize);
      await this.load(this.n);
    }
    close() {
      Page.open = null;
      ui.open = false; ui.ready = false;
      window.removeEventListener('keydown', this.onKey, true);
      window.removeEventListener('resize', this.onResize);
      this.el.remove();
      if (this.reader && current === this.reader) this.reader.showPage(this.n, false);
    }

    // Asks about unsaved changes: resolves true when it is fine to go (saved or discarded).
    leave() {
      if (!this.dirty()) return Promise.resolve(true);
      return new Promise((resolve) => {
        let done = false;
        const finish = (v) => { if (!done) { done = true; m.close(); resolve(v); } };
        const m = modal('Unsaved changes', [
          h('p', {}, `Page ${this.n} has changes that are not saved.`),
          h('div', { class: 'ed-actions' },
            h('button', { class: 'ed-btn', type: 'button', 'data-action': 'stay', onclick: () => finish(false) }, 'Keep editing'),
            h('button', { class: 'ed-btn', type: 'button', 'data-action': 'discard', onclick: () => { this.page = clone(this.base); finish(true); } }, 'Discard'),
            h('button', { class: 'help-ok', type: 'button', 'data-action': 'save-leave', onclick: async () => { done = true; m.close(); resolve(await this.save()); } }, 'Save')),
        ], { onClose: () => finish(false), cls: 'ed-leave' });
      });
    }
    // The router is about to show another view (back button, a link): keep the editor if needed.
    routeAway() {
      if (!this.dirty()) { this.close(); return true; }
      const hash = location.hash;
      history.replaceState(null, '', this.reader ? `#/book/${encodeURIComponent(this.bookId)}/page/${this.n}` : hash);
      this.leave().then((ok) => { if (ok) { this.close(); location.hash = hash; } });
      return false;
    }
    async closeAsked() { if (await this.leave()) this.close(); }
    async goPage(d) {
      const n = this.n + d;
      if (!this.book || n < 1 || n > this.book.pages.length) return;
      if (await this.leave()) await this.load(n);
    }

    // ---- loading and drawing

    async load(n) {
      this.el.replaceChildren(h('p', { class: 'message' }, 'Loading…'));
      const r = await call('GET', this.url);
      if (r.status !== 200 || !r.data) {
        this.el.replaceChildren(this.barEl(), h('p', { class: 'message', role: 'alert' }, message(r, 'The book could not be opened for editing')));
        return;
      }
      this.book = r.data.book; this.revision = r.data.revision; this.n = n;
      this.base = this.book.pages[n - 1];
      this.page = clone(this.base);
      this.undoStack = []; this.selected = null; this.leftByServer = null;
      this.render();
      this.askClearance();
    }

    barEl() {
      const b = (label, action, onclick, extra = {}) => h('button', { class: 'icon-btn ed-bar-btn', type: 'button', 'data-action': action, onclick, ...extra }, label);
      this.saveBtn = b('Save', 'save', () => this.save(), { class: 'icon-btn ed-bar-btn ed-save' });
      this.stateEl = h('span', { class: 'ed-state', 'aria-live': 'polite' });
      return h('div', { class: 'bar' },
        b('Close', 'close', () => this.closeAsked()),
        h('h1', {}, `Edit page ${this.n}`),
        b('‹', 'prev-page', () => this.goPage(-1), { 'aria-label': 'Previous page', title: 'Previous page' }),
        b('›', 'next-page', () => this.goPage(1), { 'aria-label': 'Next page', title: 'Next page' }),
        this.stateEl,
        b('Undo', 'undo', () => this.undo()),
        b('History', 'history', () => Editor.history(this), { title: 'Who changed this page and the book, and when; put an earlier version back' }),
        this.saveBtn,
        b('Keys', 'keys', () => this.help(), { title: 'Keyboard shortcuts' }), Editor.slot(null));
    }

    render() {
      const p = this.page;
      this.scanWidth = Math.min(1280, innerWidth);
      this.scan = h('img', { class: 'ed-scan', alt: `Scan of page ${this.n}`, draggable: 'false',
        src: sized(`/api/books/${encodeURIComponent(this.bookId)}/pages/${this.n}/scan`, this.scanWidth) });
      this.zoom = 1; this.pan = { x: 0, y: 0 };
      this.layer = h('div', { class: 'ed-layer' });
      this.sheet = h('div', { class: 'ed-sheet' }, this.scan, this.layer);
      this.stage = h('div', { class: 'ed-stage', tabindex: '0', 'aria-label': `Page ${this.n}: ${p.textBoxes ? p.textBoxes.length : 0} boxes. Drag on the page to add a box; pinch or + and − to zoom.` }, this.sheet, this.zoomControls());
      this.side = h('div', { class: 'ed-side' });
      this.el.replaceChildren(this.barEl(), h('div', { class: 'ed-body' }, this.stage, this.side));
      this.attachPointer();
      this.attachPinch();
      this.fit();
      this.drawBoxes(); this.drawSide(); this.updateState();
      this.scan.decode().catch(() => {}).then(() => { ui.ready = true; });
      ui.page = this.n; ui.revision = this.revision;
    }
    // At zoom 1 the scan fills the stage; boxes are placed in scan px times this.scale, which is
    // that fitted scale times the zoom (editor-zoom.js).
    fit() {
      if (!this.stage || !this.stage.isConnected) return;
      const r = this.stage.getBoundingClientRect();
      const s = Math.min((r.width - 16) / this.page.width, (r.height - 16) / this.page.height);
      this.fitScale = Math.max(0.02, s);
      this.scale = this.fitScale * this.zoom;
      this.layoutSheet();
      this.drawBoxes();
    }
    // Reading only: a page without boxes keeps having no textBoxes field until one is added.
    boxes() { return this.page.textBoxes || []; }
    box(id) { return this.boxes().find((b) => b.id === id); }
    placeBox(el, r) {
      const s = this.scale;
      Object.assign(el.style, { left: r.x * s + 'px', top: r.y * s + 'px', width: r.width * s + 'px', height: r.height * s + 'px' });
    }
    drawBoxes() {
      if (!this.layer) return;
      this.layer.replaceChildren(...this.boxes().map((b) => {
        const sel = b.id === this.selected;
        const el = h('div', { class: 'ed-box' + (sel ? ' selected' : '') + (b.role === 'pageNumber' ? ' page-number' : ''),
          'data-id': b.id, 'data-role': b.role || 'body', role: 'button', 'aria-pressed': String(sel) },
        h('span', { class: 'ed-tag', 'aria-hidden': 'true' }));
        this.markBox(el, b);
        if (sel) for (const c of CORNERS) el.append(h('span', { class: 'ed-handle ' + c, 'data-corner': c, 'aria-hidden': 'true' }));
        this.placeBox(el, b.rect);
        return el;
      }));
      ui.selected = this.selected;
    }
    // A box's mark for review on the page: class, label and tag (set again in place when the
    // server's verdicts arrive, so nothing a finger is on is replaced).
    markBox(el, b) {
      const f = this.flag(b);
      el.classList.toggle('review', !!f);
      el.setAttribute('aria-label', `Box ${b.id}, ${b.role || 'body'}${f ? ', left as scanned for review' : ''}`);
      el.querySelector('.ed-tag').textContent = `${b.order != null ? b.order + ' ' : ''}${b.role || 'body'}${f ? ' · review' : ''}`;
    }
    listLabel(b) {
      return `${this.flag(b) ? '⚑ ' : ''}${b.id} · ${b.role || 'body'}${b.text ? ' · ' + String(Object.values(b.text)[0] || '').slice(0, 24) : ''}`;
    }
    updateState(text) {
      const d = this.dirty();
      ui.dirty = d;
      if (this.saveBtn) this.saveBtn.disabled = !d || this.saving;
      if (this.stateEl) this.stateEl.textContent = text || (d ? 'Unsaved changes' : '');
    }

    // ---- the side panel: page settings, the box list and the selected box's form

    drawSide() {
      const p = this.page;
      const reviewed = h('input', { type: 'checkbox', id: 'ed-reviewed', checked: p.reviewed === true,
        onchange: () => { this.change(() => {
          if (reviewed.checked) p.reviewed = true; else if ('reviewed' in this.base) p.reviewed = false; else delete p.reviewed;
        }, false); } });
      const list = h('ol', { class: 'ed-list', 'aria-label': 'Boxes in reading order' },
        ...this.sortedBoxes().map((b) => h('li', {}, h('button', { type: 'button', class: 'ed-list-btn', 'data-id': b.id, 'aria-pressed': String(b.id === this.selected),
          onclick: () => this.select(b.id) }, this.listLabel(b)))));
      this.side.replaceChildren(
        h('div', { class: 'ed-row' }, reviewed, h('label', { for: 'ed-reviewed' }, 'Page reviewed')),
        h('div', { class: 'ed-row' },
          h('button', { class: 'ed-btn', type: 'button', 'data-action': 'add-box', onclick: () => this.addBox() }, '+ box'),
          h('button', { class: 'ed-btn', type: 'button', 'data-action': 'delete-box', disabled: !this.selected, onclick: () => this.deleteBox() }, 'Delete box')),
        list, this.selected ? this.boxForm(this.box(this.selected)) : h('p', { class: 'ed-hint' }, 'Select a box to edit it, or drag on the page to draw a new one.'));
    }
    sortedBoxes() {
      const bs = this.boxes().slice();
      return bs.sort((a, b) => (a.order ?? 1e9) - (b.order ?? 1e9) || bs.indexOf(a) - bs.indexOf(b));
    }
    boxForm(b) {
      const field = (label, id, control) => h('div', { class: 'ed-field' }, h('label', { for: id }, label), control);
      const opts = (values, cur) => [...new Set([...values, ...(cur != null && !values.includes(cur) ? [cur] : [])])]
        .map((v) => h('option', { value: v, selected: v === cur }, v));
      const role = h('select', { id: 'ed-role', onchange: () => this.change(() => { b.role = role.value; }) }, opts(ROLES, b.role || 'body'));
      const order = h('input', { id: 'ed-order', type: 'number', min: '0', step: '1', inputmode: 'numeric', value: b.order ?? '',
        onchange: () => this.change(() => { const v = parseInt(order.value, 10); if (Number.isFinite(v) && v >= 0) b.order = v; else delete b.order; }) });
      const orient = h('select', { id: 'ed-orientation', onchange: () => this.change(() => { b.orientation = orient.value; }) },
        opts(['horizontal', 'vertical'], b.orientation || 'horizontal'));
      const langs = this.book.languages || [];
      const lang = h('select', { id: 'ed-language', onchange: () => this.change(() => { if (lang.value) b.language = lang.value; else delete b.language; }) },
        h('option', { value: '' }, '—'), opts(langs, b.language));
      const r = b.rect;
      const texts = [...new Set([...langs, ...Object.keys(b.text || {})])].map((l) => this.textField(b, l));
      const newLang = h('input', { id: 'ed-new-lang', placeholder: 'e.g. fr', size: '6', autocapitalize: 'none', spellcheck: 'false' });
      return h('form', { class: 'ed-form ed-box-form', 'data-id': b.id, onsubmit: (e) => e.preventDefault() },
        h('h2', {}, `Box ${b.id}`),
        h('p', { class: 'ed-rect', 'data-rect': `${r.x},${r.y},${r.width},${r.height}` }, `x ${r.x}, y ${r.y}, ${r.width} × ${r.height} px`),
        this.flag(b) ? this.reviewNote(b, this.flag(b)) : null,
        h('div', { class: 'ed-grid' }, field('Role', 'ed-role', role), field('Reading order', 'ed-order', order),
          field('Orientation', 'ed-orientation', orient), field('Printed language', 'ed-language', lang)),
        h('h3', {}, 'Text and translations'), ...texts,
        h('div', { class: 'ed-row' }, h('label', { for: 'ed-new-lang' }, 'Add a language'), newLang,
          h('button', { class: 'ed-btn', type: 'button', 'data-action': 'add-lang', onclick: () => {
            const t = newLang.value.trim();
            if (!/^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$/.test(t)) { newLang.setCustomValidity('A language tag like fr or zh-Hant'); newLang.reportValidity(); return; }
            this.change(() => { b.text = b.text || {}; if (b.text[t] == null) b.text[t] = ''; });
          } }, 'Add')));
    }
    // Whether a box was left as scanned, by whom and why: `clear`'s verdict recorded in book.json,
    // or that of the ClearText the server made of the saved page (not recorded; `clear` records
    // it), which holds only while the box is where it was judged.
    flag(b) {
      if (b.needsReview) return { by: 'clear', reason: b.reviewReason };
      const k = this.leftByServer && this.leftByServer.get(b.id);
      return k && k.rect && ['x', 'y', 'width', 'height'].every((c) => k.rect[c] === b.rect[c]) ? { by: 'server', reason: k.reason } : null;
    }
    // Asks which boxes the cleared image readers get for the saved page left as scanned.
    async askClearance() {
      const n = this.n, rev = this.revision;
      const r = await call('GET', `/api/books/${encodeURIComponent(this.bookId)}/pages/${n}/clearance?v=${encodeURIComponent(rev)}`);
      if (Page.open !== this || this.n !== n || this.revision !== rev || r.status !== 200 || !r.data) return;
      const before = new Map(this.boxes().map((b) => [b.id, JSON.stringify(this.flag(b))]));
      this.leftByServer = new Map((r.data.kept || []).map((k) => [k.id, k]));
      // Marks change in place; only the selected box's form is drawn again, and only when its
      // own mark changed (a form being typed in is otherwise left alone).
      for (const b of this.boxes()) {
        if (before.get(b.id) === JSON.stringify(this.flag(b))) continue;
        const el = this.layer && this.layer.querySelector(`.ed-box[data-id="${CSS.escape(b.id)}"]`);
        if (el) this.markBox(el, b);
        const item = this.side && this.side.querySelector(`.ed-list-btn[data-id="${CSS.escape(b.id)}"]`);
        if (item) item.textContent = this.listLabel(b);
        if (b.id === this.selected) this.drawSide();
      }
      ui.clearance = r.data.cleared ? 'cleared' : 'kept';
    }
    // A box left as scanned: why, what the reader does with its page, and what helps.
    reviewNote(b, f) {
      const [why, help] = REVIEW[f.reason]
        || ['its ink could not be shown to be type alone, or its fill was not clean', 'Correct the box if it is wrong, and run clear again.'];
      const by = f.by === 'clear' ? 'Left as scanned by clear: ' : 'Left as scanned by the ClearText made of the saved page: ';
      const after = f.by === 'clear' ? '' : ' (Running clear on the book records this in book.json.)';
      return h('p', { class: 'ed-review', role: 'note', 'data-reason': f.reason || '', 'data-by': f.by },
        h('strong', {}, by), why + '. ', 'Readers see this page as the scan, with PopoutText. ', help + after);
    }
    textField(b, l) {
      const id = `ed-text-${l}`;
      const w = writing(l, b);
      const src = b.textSources && b.textSources[l];
      const note = src && src.source === 'ocr' ? ` · OCR${src.confidence != null ? ' ' + Math.round(src.confidence * 100) + ' %' : ''}` : '';
      const ta = h('textarea', { id, class: 'ed-text' + (w ? ' ' + w : ''), lang: l, dir: langDir(l), 'data-lang': l, rows: '3', spellcheck: 'true' });
      ta.value = (b.text && b.text[l]) || '';
      // Typing changes the model without redrawing the form (which would lose the caret); one undo
      // step per focus.
      let snap = null;
      ta.addEventListener('focus', () => { snap = clone(this.page); });
      ta.addEventListener('input', () => {
        if (snap) { this.undoStack.push(snap); snap = null; }
        b.text = b.text || {};
        if (b.source === 'detected') b.source = 'librarian'; // re-running analysis must not replace it
        if (ta.value) {
          b.text[l] = ta.value;
          b.textSources = b.textSources || {};
          b.textSources[l] = { source: 'librarian' }; // a person's text now: OCR will never overwrite it
        } else {
          delete b.text[l];
          if (b.textSources) { delete b.textSources[l]; if (!Object.keys(b.textSources).length) delete b.textSources; }
          if (!Object.keys(b.text).length) delete b.text;
        }
        this.updateState();
      });
      return h('div', { class: 'ed-field ed-text-field' }, h('label', { for: id }, langLabel(l) + note), ta);
    }

    // ---- changes

    // Every change goes through here: one undo step, the box marked as a librarian's, redraw.
    change(fn, redrawSide = true) {
      this.undoStack.push(clone(this.page));
      fn();
      const b = this.selected && this.box(this.selected);
      if (b && b.source === 'detected') b.source = 'librarian'; // analysis must not move it back
      this.drawBoxes();
      if (redrawSide) this.drawSide();
      this.updateState();
    }
    select(id) {
      this.selected = id;
      this.drawBoxes(); this.drawSide();
    }
    newId() {
      const ids = new Set(this.boxes().map((b) => b.id));
      let k = this.boxes().length + 1;
      while (ids.has(`p${this.n}-b${k}`)) k++;
      return `p${this.n}-b${k}`;
    }
    addBox(rect) {
      const p = this.page;
      const w = Math.round(p.width / 3), hh = Math.round(p.height / 10);
      rect = rect || { x: Math.round((p.width - w) / 2), y: Math.round((p.height - hh) / 2), width: w, height: hh };
      const id = this.newId();
      const orders = this.boxes().map((b) => b.order).filter((o) => o != null);
      const lang = (this.book.languages || [])[0];
      this.undoStack.push(clone(p));
      if (!p.textBoxes) p.textBoxes = [];
      p.textBoxes.push({ id, role: 'body', rect, ...(lang ? { language: lang } : {}), order: orders.length ? Math.max(...orders) + 1 : this.boxes().length + 1 });
      this.select(id);
      this.updateState();
    }
    deleteBox() {
      if (!this.selected) return;
      const id = this.selected;
      this.undoStack.push(clone(this.page));
      this.page.textBoxes = this.boxes().filter((b) => b.id !== id);
      this.selected = null;
      this.drawBoxes(); this.drawSide(); this.updateState();
    }
    clampRect(r) {
      const W = this.page.width, H = this.page.height;
      const width = Math.max(MIN, Math.min(W, Math.round(r.width))), height = Math.max(MIN, Math.min(H, Math.round(r.height)));
      return { x: Math.max(0, Math.min(W - width, Math.round(r.x))), y: Math.max(0, Math.min(H - height, Math.round(r.y))), width, height };
    }
    nudge(dx, dy, resize) {
      const b = this.selected && this.box(this.selected);
      if (!b) return;
      this.change(() => {
        const r = b.rect;
        b.rect = this.clampRect(resize ? { x: r.x, y: r.y, width: r.width + dx, height: r.height + dy } : { ...r, x: r.x + dx, y: r.y + dy });
      });
    }

    // ---- pointer: select, move, resize with a corner, draw a new box on the empty page

    attachPointer() {
      const st = this.stage;
      const toScan = (e) => {
        const r = this.sheet.getBoundingClientRect();
        return { x: (e.clientX - r.left) / this.scale, y: (e.clientY - r.top) / this.scale };
      };
      st.addEventListener('pointerdown', (e) => {
        if (e.button > 0 || this.op || this.pinch || e.target.closest('.ed-zoom')) return;
        const pt = toScan(e);
        const handle = e.target.closest('.ed-handle'), boxEl = e.target.closest('.ed-box');
        if (handle && boxEl) this.op = { kind: 'resize', corner: handle.dataset.corner, id: boxEl.dataset.id };
        else if (boxEl) {
          if (boxEl.dataset.id !== this.selected) this.select(boxEl.dataset.id);
          this.op = { kind: 'move', id: boxEl.dataset.id };
        } else this.op = { kind: 'create' };
        Object.assign(this.op, { pid: e.pointerId, start: pt, cx: e.clientX, cy: e.clientY, snap: clone(this.page), moved: false });
        if (this.op.id) this.op.rect0 = { ...this.box(this.op.id).rect };
        try { st.setPointerCapture(e.pointerId); } catch { /* synthetic pointers */ }
        e.preventDefault();
      });
      st.addEventListener('pointermove', (e) => {
        const op = this.op;
        if (!op || e.pointerId !== op.pid) return;
        const pt = toScan(e);
        if (!op.moved && Math.hypot(e.clientX - op.cx, e.clientY - op.cy) < (op.kind === 'create' ? CREATE_MIN : 3)) return;
        op.moved = true;
        const dx = pt.x - op.start.x, dy = pt.y - op.start.y;
        if (op.kind === 'create') {
          op.rect = this.clampRect({ x: Math.min(pt.x, op.start.x), y: Math.min(pt.y, op.start.y), width: Math.abs(dx), height: Math.abs(dy) });
          if (!op.ghost) { op.ghost = h('div', { class: 'ed-box ed-ghost' }); this.layer.append(op.ghost); }
          this.placeBox(op.ghost, op.rect);
          return;
        }
        const b = this.box(op.id), r0 = op.rect0;
        if (op.kind === 'move') b.rect = this.clampRect({ ...r0, x: r0.x + dx, y: r0.y + dy });
        else {
          // The opposite corner stays put; dragging past it flips the box rather than inverting it.
          let x0 = r0.x, y0 = r0.y, x1 = r0.x + r0.width, y1 = r0.y + r0.height;
          if (op.corner.includes('w')) x0 += dx; else x1 += dx;
          if (op.corner.includes('n')) y0 += dy; else y1 += dy;
          const W = this.page.width, H = this.page.height;
          const cx0 = Math.max(0, Math.min(x0, x1)), cx1 = Math.min(W, Math.max(x0, x1));
          const cy0 = Math.max(0, Math.min(y0, y1)), cy1 = Math.min(H, Math.max(y0, y1));
          b.rect = this.clampRect({ x: cx0, y: cy0, width: cx1 - cx0, height: cy1 - cy0 });
        }
        const el = this.layer.querySelector(`.ed-box[data-id="${CSS.escape(op.id)}"]`);
        if (el) this.placeBox(el, b.rect);
      });
      const end = (e) => {
        const op = this.op;
        if (!op || e.pointerId !== op.pid) return;
        this.op = null;
        if (op.kind === 'create') {
          op.ghost?.remove();
          if (op.moved && op.rect && e.type === 'pointerup') this.addBox(op.rect);
          else if (!op.moved && this.selected) this.select(null);
          return;
        }
        if (!op.moved || same(op.snap, this.page)) return;
        if (e.type === 'pointercancel') { this.page = op.snap; this.drawBoxes(); return; }
        this.undoStack.push(op.snap);
        const b = this.box(op.id);
        if (b.source === 'detected') b.source = 'librarian';
        this.drawBoxes(); this.drawSide(); this.updateState();
      };
      st.addEventListener('pointerup', end);
      st.addEventListener('pointercancel', end);
    }

    // ---- keyboard (capture phase: the reader underneath never sees these keys)

    key(e) {
      if (document.querySelector('.ed-modal')) return; // a dialog handles its own keys
      e.stopPropagation();
      const mod = e.ctrlKey || e.metaKey;
      const k = e.key;
      if (mod && (k === 's' || k === 'S')) { e.preventDefault(); this.save(); return; }
      if (mod && (k === 'z' || k === 'Z') && !e.shiftKey) {
        if (e.target.closest && e.target.closest('input, textarea')) return; // the field's own undo
        e.preventDefault(); this.undo(); return;
      }
      if (e.target.closest && e.target.closest('input, textarea, select')) {
        if (k === 'Escape') e.target.blur();
        return;
      }
      const arrows = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };
      if (arrows[k] && this.selected) {
        e.preventDefault();
        const step = e.shiftKey ? 10 : 1;
        this.nudge(arrows[k][0] * step, arrows[k][1] * step, e.altKey);
      } else if ((k === 'Delete' || k === 'Backspace') && this.selected) { e.preventDefault(); this.deleteBox(); }
      else if ((k === 'n' || k === 'N') && !mod && !e.altKey) { e.preventDefault(); this.addBox(); }
      else if (k === 'Escape') { e.preventDefault(); if (this.selected) this.select(null); }
      else if ((k === '+' || k === '=') && !mod) { e.preventDefault(); this.setZoom(this.zoom * 1.5); }
      else if (k === '-' && !mod) { e.preventDefault(); this.setZoom(this.zoom / 1.5); }
      else if (k === '0' && !mod) { e.preventDefault(); this.setZoom(1); }
      else if (k === 'Tab' && document.activeElement === this.stage) {
        const ids = this.sortedBoxes().map((b) => b.id);
        const i = ids.indexOf(this.selected) + (e.shiftKey ? -1 : 1);
        if (this.selected == null && ids.length) { e.preventDefault(); this.select(ids[e.shiftKey ? ids.length - 1 : 0]); }
        else if (i >= 0 && i < ids.length) { e.preventDefault(); this.select(ids[i]); }
      }
    }
    help() {
      const m = modal('Keyboard shortcuts', [
        h('dl', { class: 'ed-keys' }, ...KEYS.flatMap(([k, v]) => [h('dt', {}, h('kbd', {}, k)), h('dd', {}, v)])),
        h('p', {}, 'On a touch screen: tap a box to select it, drag it to move it, drag a round corner handle to resize it, drag on the empty page to draw a new box. Pinch with two fingers to zoom, and move them to pan; or use the + and − buttons.'),
        h('button', { class: 'help-ok', type: 'button', onclick: () => m.close() }, 'OK')], { cls: 'ed-help' });
    }

    // ---- saving, conflicts, undo

    async save() {
      if (this.saving || !this.dirty()) return !this.dirty();
      this.saving = true; this.updateState('Saving…');
      const sent = clone(this.page);
      const r = await call('PUT', `${this.url}/pages/${this.n}`, { body: sent, revision: this.revision });
      this.saving = false;
      if (r.status === 200 && r.data) { this.saved(r.data, sent); return true; }
      if (r.status === 409 && r.data) {
        ui.conflicts = (ui.conflicts || 0) + 1;
        this.updateState('Someone else saved this page');
        return Editor.merge(this, r.data);
      }
      this.updateState();
      if (r.status === 401) { Editor.signInDialog(); this.error('Your session has ended. Sign in again, then save.'); }
      else if (r.status === 400 && r.data && r.data.problems) this.error(message(r, 'The page is not valid'), r.data.problems);
      else this.error(message(r, 'Saving failed'));
      return false;
    }
    // A save or an undo answered 200: the page as stored is the new base.
    saved(data, sent) {
      this.revision = data.revision;
      this.base = data.page;
      // Keep what was typed after the save was sent; if nothing was, take the stored page.
      this.page = sent && !same(sent, this.page) ? this.page : clone(data.page);
      if (this.book) this.book.pages[this.n - 1] = clone(data.page);
      if (this.selected && !this.box(this.selected)) this.selected = null;
      ui.saves++; ui.revision = data.revision; ui.assets = 'pending'; ui.clearance = null;
      this.leftByServer = null;
      this.drawBoxes(); this.drawSide(); this.updateState('Saved · updating ClearText…');
      const rev = data.revision;
      awaitAssets(this.bookId, this.n, rev, (state) => {
        if (this.revision !== rev || Page.open !== this) return;
        ui.assets = state;
        const text = { pending: 'Saved · updating ClearText…', ready: 'Saved · ClearText updated', failed: 'Saved · ClearText could not be remade', timeout: 'Saved · ClearText still updating', unknown: 'Saved' }[state];
        if (!this.dirty()) this.updateState(text);
        if (state === 'ready') this.askClearance();
      });
    }
    async undo() {
      if (this.undoStack.length) {
        this.page = this.undoStack.pop();
        if (this.selected && !this.box(this.selected)) this.selected = null;
        this.drawBoxes(); this.drawSide(); this.updateState();
        return;
      }
      // Nothing unsaved to take back: undo the page's last saved change (a new journal entry).
      const r = await call('POST', `${this.url}/pages/${this.n}/undo`, { revision: this.revision });
      if (r.status === 200 && r.data) { ui.undos = (ui.undos || 0) + 1; this.saved(r.data, null); this.updateState('Undone · updating ClearText…'); }
      else if (r.status === 404) this.error('There is no saved change on this page to undo.');
      else if (r.status === 409 && r.data) {
        this.error('This page was changed by someone else; it now shows their version. Undo again to take back their change.');
        this.revision = r.data.currentRevision; this.base = r.data.current; this.page = clone(r.data.current);
        this.drawBoxes(); this.drawSide(); this.updateState();
      } else this.error(message(r, 'Undo failed'));
    }
    error(text, problems) {
      ui.lastError = text;
      const m = modal('Not saved', [h('p', { role: 'alert' }, text),
        problems ? h('ul', {}, problems.map((p) => h('li', {}, String(p)))) : null,
        h('button', { class: 'help-ok', type: 'button', onclick: () => m.close() }, 'OK')], { cls: 'ed-error-dialog' });
    }
  }
  Page.open = null;
  Editor.register(Page);
})();
