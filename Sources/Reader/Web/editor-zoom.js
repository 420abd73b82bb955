// Zoom and pan for the page editor (editor-page.js), so that on a phone a box can be placed and
// sized to the pixel: + / − / Fit buttons, a two-finger pinch (which also pans as the fingers move),
// Ctrl + wheel and the wheel on a desktop, and the + − 0 keys. Boxes are drawn in scan px times
// the current scale, not scaled with CSS transforms, so their handles keep their finger size at
// any zoom, and every coordinate the editor saves stays in scan (page) pixels.
'use strict';

(() => {
  const Page = Editor.Page;
  const MAX = 8;      // 8× the fitted size: a 2000 px scan shows about 1 scan px per CSS px on a phone
  const STEP = 1.5;
  const ui = pb.editor;
  const clamp = (v, lo, hi) => Math.max(lo, Math.min(hi, v));

  Object.assign(Page.prototype, {
    zoomControls() {
      const b = (label, action, aria, onclick) => h('button', { class: 'ed-zoom-btn', type: 'button', 'data-action': action,
        'aria-label': aria, title: aria, onclick }, label);
      this.zoomLabel = h('span', { class: 'ed-zoom-level', 'aria-live': 'polite' }, '100 %');
      return h('div', { class: 'ed-zoom', role: 'group', 'aria-label': 'Zoom' },
        b('−', 'zoom-out', 'Zoom out', () => this.setZoom(this.zoom / STEP)),
        this.zoomLabel,
        b('+', 'zoom-in', 'Zoom in', () => this.setZoom(this.zoom * STEP)),
        b('Fit', 'zoom-fit', 'Fit the page', () => this.setZoom(1)));
    },

    // New zoom, keeping the scan point under (cx, cy) (client px; default: the stage's middle) there.
    setZoom(z, cx, cy, from) {
      const r = this.stage.getBoundingClientRect();
      const start = from || { zoom: this.zoom, pan: { ...this.pan }, at: null };
      const fx = cx ?? r.left + r.width / 2, fy = cy ?? r.top + r.height / 2;
      const at = start.at || { x: fx, y: fy };
      const s0 = this.fitScale * start.zoom;
      const sx = (at.x - r.left - start.pan.x) / s0, sy = (at.y - r.top - start.pan.y) / s0;
      this.zoom = clamp(z, 1, MAX);
      this.scale = this.fitScale * this.zoom;
      this.pan = { x: fx - r.left - sx * this.scale, y: fy - r.top - sy * this.scale };
      this.layoutSheet();
      this.drawBoxes();
    },

    // Sizes the sheet for the current scale and places it: centred while it fits the stage, else
    // kept covering it (with a little slack at the edges so a box there can still be grabbed).
    layoutSheet() {
      const r = this.stage.getBoundingClientRect();
      const w = this.page.width * this.scale, hh = this.page.height * this.scale;
      const place = (size, room, pan) => (size <= room ? (room - size) / 2 : clamp(pan, room - size - 24, 24));
      this.pan = { x: place(w, r.width, this.pan.x), y: place(hh, r.height, this.pan.y) };
      Object.assign(this.sheet.style, { width: w + 'px', height: hh + 'px', left: this.pan.x + 'px', top: this.pan.y + 'px' });
      if (this.zoomLabel) this.zoomLabel.textContent = `${Math.round(this.zoom * 100)} %`;
      ui.zoom = this.zoom;
      // A sharper scan once the page is shown larger than the image first asked for.
      const want = Math.min(2048, Math.ceil(w * (window.devicePixelRatio || 1)));
      if (want > (this.scanWidth || 0) * 1.2 && this.zoom > 1) {
        this.scanWidth = want;
        this.scan.src = sized(`/api/books/${encodeURIComponent(this.bookId)}/pages/${this.n}/scan`, want);
      }
    },

    // Two fingers: pinch to zoom, move to pan. A box being moved by the first finger is put back.
    attachPinch() {
      const st = this.stage, pts = new Map();
      const two = () => [...pts.values()].slice(0, 2);
      st.addEventListener('pointerdown', (e) => {
        if (e.pointerType !== 'touch') return;
        pts.set(e.pointerId, { x: e.clientX, y: e.clientY });
        if (pts.size !== 2) return;
        if (this.op) {
          if (this.op.ghost) this.op.ghost.remove();
          if (this.op.snap) this.page = this.op.snap;
          this.op = null;
          this.drawBoxes();
        }
        const [a, b] = two();
        this.pinch = { d0: Math.hypot(a.x - b.x, a.y - b.y) || 1, zoom: this.zoom, pan: { ...this.pan },
          at: { x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 } };
        e.preventDefault();
      });
      st.addEventListener('pointermove', (e) => {
        if (!pts.has(e.pointerId)) return;
        pts.set(e.pointerId, { x: e.clientX, y: e.clientY });
        if (!this.pinch || pts.size < 2) return;
        const [a, b] = two();
        const d = Math.hypot(a.x - b.x, a.y - b.y);
        this.setZoom(this.pinch.zoom * d / this.pinch.d0, (a.x + b.x) / 2, (a.y + b.y) / 2, this.pinch);
      });
      const up = (e) => {
        pts.delete(e.pointerId);
        if (pts.size < 2) this.pinch = null;
      };
      st.addEventListener('pointerup', up);
      st.addEventListener('pointercancel', up);
      // Desktop: Ctrl + wheel (and a trackpad pinch, which browsers send as one) zooms at the
      // pointer; the wheel alone pans a zoomed page.
      st.addEventListener('wheel', (e) => {
        if (e.ctrlKey) this.setZoom(this.zoom * Math.exp(-e.deltaY / 300), e.clientX, e.clientY);
        else if (this.zoom > 1) {
          this.pan = { x: this.pan.x - e.deltaX, y: this.pan.y - e.deltaY };
          this.layoutSheet();
        } else return;
        e.preventDefault();
      }, { passive: false });
    },
  });
})();
