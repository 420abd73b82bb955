// Picturebook editor: the librarian's side of `picturebook serve --edit` (API: the editor section of
// Documentation/ReaderAPI.md). Vanilla JS like reader.js, whose helpers (h, api, cache, pb, langDir,
// langName, sized, current, route) it shares through the page's global scope.
// Sessions and the account menu are here; the page editor is the Editor.Page class below; the
// page editor is in editor-page.js and its conflict dialog in editor-merge.js.
'use strict';

window.Editor = (() => {
  const ROLES = ['body', 'title', 'caption', 'pageNumber'];
  const CJK = new Set(['zh', 'ja', 'ko']);
  const POLL_MS = 500;
  // 'unknown' until GET /api/session answers; 'off' = server not in edit mode (the reader stays as it was).
  const session = { state: 'unknown', name: null, role: null, csrf: null };
  const slots = new Set();
  pb.editor = { session: 'unknown', open: false, saves: 0 };
  // "book/page" → revision of its last save: reader.js adds it to the page's image URLs so the
  // browser fetches the remade ClearText and popout images instead of its cached copies.
  const assetVersions = {};

  async function call(method, url, { body, revision } = {}) {
    const headers = { Accept: 'application/json' };
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    if (method !== 'GET' && session.csrf) headers['X-CSRF-Token'] = session.csrf;
    if (revision != null) headers['If-Match'] = `"${revision}"`;
    let r;
    try {
      r = await fetch(url, { method, headers, credentials: 'same-origin', cache: 'no-store',
        body: body === undefined ? undefined : JSON.stringify(body) });
    } catch (e) {
      return { status: 0, data: { error: `The server could not be reached (${e.message}).` }, headers: new Headers() };
    }
    const data = r.status === 204 ? null : await r.json().catch(() => null);
    return { status: r.status, data, headers: r.headers };
  }
  const message = (res, fallback) => (res.data && res.data.error) || `${fallback} (HTTP ${res.status})`;

  function setSession(state, data = {}) {
    session.state = state;
    session.name = data.name || null; session.role = data.role || null; session.csrf = data.csrf || null;
    pb.editor.session = state;
    pb.editor.user = session.name;
    for (const s of slots) if (s.isConnected) fillSlot(s); else slots.delete(s);
  }
  async function refreshSession() {
    const r = await call('GET', '/api/session');
    if (r.status === 200 && r.data) setSession('signed', r.data);
    else if (r.status === 401) setSession('anon');
    else setSession('off'); // 404: not an editing server; anything else: treat as read-only
  }
  const sessionKnown = refreshSession();

  // ---------------------------------------------------------------- the bar's account slot

  // A span in the reader's (or library's) bar: nothing for plain readers, "Sign in" when the server
  // edits, the editor's name, "Edit" and "Sign out" when signed in.
  function slot(reader) {
    const el = h('span', { class: 'ed-slot', 'data-in': reader ? 'reader' : 'bar' });
    el.reader = reader;
    slots.add(el);
    fillSlot(el);
    return el;
  }
  function fillSlot(el) {
    el.replaceChildren();
    if (session.state === 'anon') {
      el.append(h('button', { class: 'icon-btn ed-signin', type: 'button', 'data-action': 'sign-in', onclick: () => signInDialog() }, 'Sign in'));
    } else if (session.state === 'signed') {
      if (el.reader) {
        el.append(h('button', { class: 'icon-btn ed-edit', type: 'button', 'data-action': 'edit', title: 'Edit this page',
          onclick: () => openEditor(el.reader) }, 'Edit'));
      }
      const menuBtn = h('button', { class: 'icon-btn ed-user', type: 'button', 'aria-haspopup': 'true', 'aria-expanded': 'false',
        'data-action': 'account', title: `Signed in as ${session.name}` }, h('span', { class: 'ed-name' }, session.name));
      menuBtn.addEventListener('click', () => accountMenu(menuBtn));
      el.append(menuBtn);
    }
  }
  function accountMenu(btn) {
    const old = document.querySelector('.ed-menu');
    if (old) { old.remove(); btn.setAttribute('aria-expanded', 'false'); return; }
    const r = btn.getBoundingClientRect();
    const menu = h('div', { class: 'ed-menu', role: 'menu', style: { top: r.bottom + 4 + 'px', right: Math.max(8, innerWidth - r.right) + 'px' } },
      h('p', { class: 'ed-menu-who' }, `Signed in as ${session.name} (${session.role})`),
      h('button', { type: 'button', role: 'menuitem', 'data-action': 'sign-out', onclick: () => { menu.remove(); signOut(); } }, 'Sign out'));
    btn.setAttribute('aria-expanded', 'true');
    document.body.append(menu);
    menu.querySelector('button').focus();
    const away = (e) => { if (!menu.contains(e.target) && e.target !== btn) { menu.remove(); btn.setAttribute('aria-expanded', 'false'); document.removeEventListener('pointerdown', away, true); } };
    document.addEventListener('pointerdown', away, true);
  }

  // ---------------------------------------------------------------- sign in / out

  // A small modal: focus is kept inside, Esc cancels, the error is read out by screen readers.
  function modal(title, body, { onClose, cls = '' } = {}) {
    const prev = document.activeElement;
    const card = h('div', { class: 'help-card ed-dialog ' + cls, role: 'dialog', 'aria-modal': 'true', 'aria-label': title },
      h('h2', {}, title), ...body);
    const wrap = h('div', { class: 'help ed-modal' }, card);
    const close = () => { wrap.remove(); document.removeEventListener('keydown', onKey, true); if (prev && prev.focus) prev.focus(); onClose && onClose(); };
    const onKey = (e) => {
      if (e.key === 'Escape') { e.preventDefault(); e.stopPropagation(); close(); }
      else if (e.key !== 'Tab') e.stopPropagation(); // typing here never reaches the reader or the editor
    };
    document.addEventListener('keydown', onKey, true);
    document.body.append(wrap);
    const first = card.querySelector('input, select, textarea, button');
    if (first) first.focus();
    return { wrap, card, close };
  }

  function signInDialog() {
    const err = h('p', { class: 'ed-error', role: 'alert' });
    const name = h('input', { id: 'ed-name', name: 'username', autocomplete: 'username', required: true, autocapitalize: 'none', spellcheck: 'false' });
    const pass = h('input', { id: 'ed-pass', name: 'password', type: 'password', autocomplete: 'current-password', required: true });
    const submit = h('button', { class: 'help-ok', type: 'submit' }, 'Sign in');
    const form = h('form', { class: 'ed-form' },
      h('label', { for: 'ed-name' }, 'Name'), name, h('label', { for: 'ed-pass' }, 'Password'), pass, err,
      h('div', { class: 'ed-actions' }, h('button', { class: 'ed-btn', type: 'button', onclick: () => m.close() }, 'Cancel'), submit));
    const m = modal('Sign in to edit', [form], { cls: 'ed-signin-dialog' });
    form.addEventListener('submit', async (e) => {
      e.preventDefault();
      submit.disabled = true; err.textContent = '';
      const r = await call('POST', '/api/session', { body: { name: name.value.trim(), password: pass.value } });
      submit.disabled = false;
      if (r.status === 200 && r.data) { m.close(); setSession('signed', r.data); return; }
      if (r.status === 429) {
        const wait = Number(r.headers.get('Retry-After')) || 60;
        err.textContent = `Too many attempts. Try again in ${wait} seconds.`;
      } else err.textContent = message(r, 'Sign-in failed');
      pass.select();
    });
  }

  async function signOut() {
    if (Page.open) {
      if (!(await Page.open.leave())) return;
      Page.open.close();
    }
    await call('DELETE', '/api/session');
    setSession('anon');
  }

  // ---------------------------------------------------------------- helpers shared with the page editor

  const clone = (x) => JSON.parse(JSON.stringify(x));
  const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
  const baseLang = (l) => String(l || '').split('-')[0].toLowerCase();
  // How a language is typed in a box: Mongolian script always top to bottom; Chinese, Japanese and
  // Korean when the box is printed vertically; Arabic and Hebrew right to left.
  function writing(lang, box) {
    if (baseLang(lang) === 'mn' && !/-Cyrl/i.test(lang)) return 'vertical-lr';
    if (box.orientation === 'vertical' && CJK.has(baseLang(lang))) return 'vertical-rl';
    return '';
  }
  function describeBox(b) {
    if (!b) return 'deleted';
    const r = b.rect || {};
    const text = Object.entries(b.text || {}).map(([l, t]) => `${l}: ${t}`).join(' · ');
    return `${b.role || 'body'}${b.order != null ? ' #' + b.order : ''} at ${r.x},${r.y} ${r.width}×${r.height}${text ? ' — ' + text : ''}`;
  }

  // After a save the page's assets are remade in the background: poll until they are, then make the
  // reader underneath draw the page again from fresh data.
  async function awaitAssets(bookId, n, revision, onState) {
    const url = `/api/edit/books/${encodeURIComponent(bookId)}/pages/${n}/status`;
    // Remaking a cleared page can take minutes on a busy server; poll gently for up to half an hour.
    const deadline = Date.now() + 30 * 60e3;
    for (let wait = POLL_MS; Date.now() < deadline; wait = Math.min(wait * 1.5, 3000)) {
      const r = await call('GET', url);
      if (r.status !== 200 || !r.data) { onState('unknown'); return; }
      const s = r.data;
      const pending = s.clear === 'pending' || s.popout === 'pending';
      if (!pending) {
        onState(s.clear === 'failed' || s.popout === 'failed' ? 'failed' : 'ready');
        assetVersions[`${bookId}/${n}`] = s.revision || revision;
        await refreshReader(bookId);
        return;
      }
      onState('pending');
      await new Promise((res) => setTimeout(res, wait));
    }
    onState('timeout');
  }
  async function refreshReader(bookId) {
    const prefix = `/api/books/${encodeURIComponent(bookId)}`;
    for (const k of [...cache.keys()]) if (k === prefix || k.startsWith(prefix + '/') || k.startsWith(prefix + '?')) cache.delete(k);
    const r = current;
    if (!(r instanceof Reader) || r.id !== bookId) return;
    r.book = await api.book(bookId);
    r.hasText = r.book.pages.some((p) => p.textBoxes.some((b) => b.text && Object.keys(b.text).length));
    r.layout = null;
    await r.relayout(false);
  }

  // ---------------------------------------------------------------- entry points

  async function openEditor(reader) {
    await sessionKnown;
    if (session.state !== 'signed') return signInDialog();
    if (Page.open) return;
    new Page(reader.id, reader.page, reader).start();
  }

  const shared = { session, call, message, modal, clone, same, writing, describeBox, awaitAssets, ROLES, langLabel: (l) => `${langName(l)} (${l})` };

  // The page editor is defined in editor-page.js; it registers itself here.
  let Page = { open: null };
  return {
    shared, slot, signInDialog, signOut, refreshSession, sessionKnown,
    register(PageClass) { Page = PageClass; this.Page = PageClass; },
    // reader.js: the version to add to a page's image URLs (undefined when never edited here).
    assetVersion: (bookId, n) => assetVersions[`${bookId}/${n}`],
    // reader.js's router asks before leaving: false keeps the editor (it asks the user itself).
    allowRoute: () => !Page.open || Page.open.routeAway(),
    isOpen: () => !!Page.open,
    isDirty: () => !!Page.open && Page.open.dirty(),
  };
})();

// Leaving the site (reload, close, another address) with unsaved changes: the browser's own prompt.
window.addEventListener('beforeunload', (e) => {
  if (window.Editor.isDirty()) { e.preventDefault(); e.returnValue = ''; }
});
