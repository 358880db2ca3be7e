// Notes board page: plain DOM, no framework. All user text goes through textContent.
'use strict';

(function () {
  const $ = (id) => document.getElementById(id);
  const el = {
    boardForm: $('board-form'), boardName: $('board-name'), boards: $('boards'), boardsEmpty: $('boards-empty'),
    noteForm: $('note-form'), noteText: $('note-text'), addNote: $('add-note'),
    notes: $('notes'), notesEmpty: $('notes-empty'),
    boardTitle: $('board-title'), boardMeta: $('board-meta'), status: $('status'), error: $('error'),
    traceRequest: $('trace-request'), trace: $('hop-trace'), metricsState: $('metrics-state'),
    transport: $('transport'), queueDepth: $('queue-depth'), wakeups: $('wakeups-per-dispatch'),
    fsyncs: $('fsyncs-per-change'), changes: $('journal-changes'),
    cluster: $('cluster'), clusterReplica: $('cluster-replica'), clusterBrokers: $('cluster-brokers'),
    clusterLag: $('cluster-lag'), clusterSnapshots: $('cluster-snapshots'), clusterPartitions: $('cluster-partitions'),
  };

  const CHANGE_TYPES = ['note-added', 'note-edited', 'note-deleted'];

  const state = {
    face: 'java',         // 'java' -> /api, 'kt' -> /api/kt
    boards: [],           // last GET /boards result
    boardId: null,        // open board
    board: null,          // {id, name} of the open board once known
    revision: null,       // revision of the open board, null until a snapshot arrived
    notes: new Map(),     // noteId -> {note, li, editor}
    stream: null,         // EventSource of the open board
    listStream: null,     // EventSource of the board list
    streamGen: 0,         // bumped on every (re)connect; stale callbacks compare against it
    retryDelay: 0,
    retryTimer: 0,
    adding: false,        // a note's POST is on its way: Enter again adds nothing
    creating: false,      // the same for a board's
    deleting: new Set(),  // ids of the notes this page is deleting (their removal is no surprise)
  };

  const base = () => (state.face === 'kt' ? '/api/kt' : '/api');
  const boardPath = (id) => base() + '/boards/' + encodeURIComponent(id);

  // ---------- HTTP ----------

  class ApiError extends Error {
    constructor(status, title, detail) {
      super(detail ? title + ': ' + detail : title);
      this.status = status;
    }
  }

  // fetch + problem JSON; write requests (anything but GET) record their Hop-Trace header.
  async function api(method, path, body) {
    const opts = { method, headers: { Accept: 'application/json, application/problem+json' } };
    if (body !== undefined) {
      opts.headers['Content-Type'] = 'application/json';
      opts.body = JSON.stringify(body);
    }
    let res;
    try {
      res = await fetch(path, opts);
    } catch (e) {
      throw new ApiError(0, 'Network error', 'the service could not be reached');
    }
    if (method !== 'GET') showTrace(method, path, res.status, res.headers.get('Hop-Trace'), res.headers.get('Trace-Id'));
    const text = await res.text();
    let data = null;
    if (text) {
      try { data = JSON.parse(text); } catch (e) { data = null; }
    }
    if (!res.ok) {
      const title = (data && data.title) || ('HTTP ' + res.status + (res.statusText ? ' ' + res.statusText : ''));
      throw new ApiError(res.status, title, data && data.detail);
    }
    return data;
  }

  function showError(err) {
    const msg = err instanceof ApiError ? err.message : String(err && err.message || err);
    el.error.textContent = msg;
    el.error.hidden = false;
  }

  // The note form works only while the board is live: offline, a new note could not be confirmed.
  function updateNoteForm() {
    const can = !!state.boardId && el.status.dataset.state === 'live';
    el.noteText.disabled = !can;
    el.addNote.disabled = !can || state.adding;
  }

  function clearError() {
    el.error.textContent = '';
    el.error.hidden = true;
  }

  // ---------- hop trace ----------

  function hopKind(context) {
    if (context.startsWith('http')) return 'http';
    if (context.includes('pump')) return 'pump';
    if (context.includes('ring')) return 'ring';
    if (context.includes('cpu') || context.includes('dispatcher') || context.startsWith('Dispatchers.')) return 'cpu';
    return 'other';
  }

  function showTrace(method, path, status, header, traceId) {
    // The trace id is the one in the service's log lines for this request, from the HTTP thread to
    // the journal's fsync and back (logging.level.dev.corobridge.demo=DEBUG).
    el.traceRequest.textContent = method + ' ' + path + ' → ' + status + (traceId ? ' · trace ' + traceId : '');
    el.trace.replaceChildren();
    if (!header) {
      el.trace.append(make('li', 'hop hop-none', 'no Hop-Trace header on this response'));
      return;
    }
    header.split(' > ').forEach((raw) => {
      const step = raw.trim();
      if (!step) return;
      // context@thread[:note]
      const at = step.indexOf('@');
      const context = at >= 0 ? step.slice(0, at) : step;
      const rest = at >= 0 ? step.slice(at + 1) : '';
      const colon = rest.indexOf(':');
      const thread = colon >= 0 ? rest.slice(0, colon) : rest;
      const note = colon >= 0 ? rest.slice(colon + 1) : '';
      const li = make('li', 'hop');
      li.dataset.kind = hopKind(context);
      li.title = step;
      li.append(make('span', 'hop-note', note || '(step)'));
      const where = make('span', 'hop-where');
      where.append(make('span', 'hop-context', context));
      if (thread && thread !== context) {
        where.append(document.createTextNode(' on '), make('span', 'hop-thread', thread));
      }
      li.append(where);
      el.trace.append(li);
    });
  }

  // ---------- small DOM helpers ----------

  function make(tag, className, text) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function button(text, className, label) {
    const b = make('button', className, text);
    b.type = 'button';
    if (label) b.setAttribute('aria-label', label);
    return b;
  }

  function setStatus(s) {
    el.status.textContent = s;
    el.status.dataset.state = s;
    updateNoteForm();
  }

  // ---------- boards ----------

  // The list arrives over SSE: a 'boards' event with the whole list, then a 'board' event with a
  // board's line whenever one is created or changes. EventSource reconnects by itself (and the
  // server then sends the whole list again); if it gives up, try again a little later.
  function connectList() {
    if (state.listStream) state.listStream.close();
    const es = new EventSource(base() + '/boards/events');
    state.listStream = es;
    es.addEventListener('boards', (ev) => {
      if (es !== state.listStream) return;
      let boards;
      try { boards = JSON.parse(ev.data); } catch (e) { return; }
      if (!Array.isArray(boards)) return;
      state.boards = boards;
      renderBoards();
    });
    es.addEventListener('board', (ev) => {
      if (es !== state.listStream) return;
      let board;
      try { board = JSON.parse(ev.data); } catch (e) { return; }
      if (!board || !board.id) return;
      const i = state.boards.findIndex((b) => b.id === board.id);
      if (i >= 0) state.boards[i] = board;
      else state.boards.push(board);
      renderBoards();
    });
    es.onerror = () => {
      if (es !== state.listStream || es.readyState !== EventSource.CLOSED) return;
      setTimeout(() => { if (es === state.listStream) connectList(); }, 2000);
    };
  }

  // The list sends each board's note count as a number; the open board counts what it shows.
  function noteCount(b) {
    if (state.board && b.id === state.board.id) return state.notes.size;
    return typeof b.notes === 'number' ? b.notes : 0;
  }

  function renderBoards() {
    const key = (b) => b.id + '\u0000' + b.name + '\u0000' + noteCount(b) + '\u0000' + (b.id === state.boardId);
    const sig = state.boards.map(key).join('\u0001');
    if (el.boards.dataset.sig === sig) return;
    el.boards.dataset.sig = sig;
    const focused = document.activeElement && el.boards.contains(document.activeElement)
      ? document.activeElement.closest('[data-board-id]').dataset.boardId : null;
    el.boards.replaceChildren();
    for (const b of state.boards) {
      const count = noteCount(b);
      const li = make('li', 'board');
      li.dataset.boardId = b.id;
      const btn = button('', 'board-open');
      btn.append(make('span', 'board-name', b.name), make('span', 'board-count', String(count)));
      btn.setAttribute('aria-label', b.name + ', ' + count + (count === 1 ? ' note' : ' notes'));
      if (b.id === state.boardId) {
        li.classList.add('current');
        btn.setAttribute('aria-current', 'true');
      }
      li.append(btn);
      el.boards.append(li);
      if (focused === b.id) btn.focus();
    }
    el.boardsEmpty.hidden = state.boards.length > 0;
  }

  el.boards.addEventListener('click', (ev) => {
    const li = ev.target.closest('[data-board-id]');
    if (!li || !el.boards.contains(li)) return;
    goToBoard(li.dataset.boardId);
  });

  el.boardForm.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    if (state.creating) return; // Enter twice: one board
    state.creating = true;
    try {
      const board = await api('POST', base() + '/boards', { name: el.boardName.value });
      clearError();
      el.boardName.value = '';
      if (board && board.id) {
        // The list's event may still be on its way: show the new board at once.
        if (!state.boards.some((b) => b.id === board.id)) {
          state.boards.push({ id: board.id, name: board.name, notes: 0, revision: board.revision });
        }
        goToBoard(board.id);
      }
    } catch (e) {
      showError(e);
    } finally {
      state.creating = false;
    }
  });

  function goToBoard(id) {
    if (location.hash === '#' + id) openBoard(id); // same hash: no hashchange event
    else location.hash = id;
  }

  // ---------- open board + SSE ----------

  // `id`: a board id, null for none, or {invalid: raw} for a hash that is no valid escape.
  function openBoard(id) {
    let invalid = null;
    if (id && typeof id === 'object') {
      invalid = id.invalid;
      id = null;
    }
    clearError();
    closeStream();
    state.boardId = id || null;
    state.board = null;
    state.revision = null;
    state.notes.clear();
    el.notes.replaceChildren();
    const enabled = !!state.boardId;
    el.boardTitle.textContent = enabled ? 'Board ' + id : 'No board open';
    el.boardMeta.textContent = '';
    updateEmpty();
    renderBoards();
    if (!enabled) {
      setStatus('offline');
      if (invalid !== null) showError(new ApiError(400, 'Bad Request', "'" + invalid + "' is not a board id"));
      return;
    }
    connect();
  }

  function closeStream() {
    state.streamGen++;
    clearTimeout(state.retryTimer);
    if (state.stream) state.stream.close();
    state.stream = null;
  }

  function connect() {
    closeStream();
    if (!state.boardId) return;
    const gen = state.streamGen;
    setStatus('reconnecting');
    const es = new EventSource(boardPath(state.boardId) + '/events');
    state.stream = es;
    es.addEventListener('snapshot', (ev) => {
      if (gen !== state.streamGen) return;
      let snap;
      try { snap = JSON.parse(ev.data); } catch (e) { return reconnectSoon(gen, true); }
      applySnapshot(snap);
      state.retryDelay = 0;
      // Live again: an error from before (a failed write, the outage) no longer describes the board.
      if (el.status.dataset.state !== 'live') clearError();
      setStatus('live');
    });
    for (const type of CHANGE_TYPES) {
      es.addEventListener(type, (ev) => onChange(gen, type, ev));
    }
    es.onerror = () => reconnectSoon(gen, false);
  }

  // Drops the stream and reconnects (a fresh snapshot follows). `now`: on a gap, no back-off.
  function reconnectSoon(gen, now) {
    if (gen !== state.streamGen) return;
    closeStream();
    setStatus('reconnecting');
    const myGen = state.streamGen;
    const delay = now ? 0 : state.retryDelay;
    state.retryDelay = Math.min(5000, Math.max(250, state.retryDelay * 2));
    state.retryTimer = setTimeout(async () => {
      if (myGen !== state.streamGen) return;
      if (!now) {
        // An EventSource error says nothing; ask whether the board still exists before retrying.
        try {
          await api('GET', boardPath(state.boardId));
        } catch (e) {
          if (myGen !== state.streamGen) return;
          if (e.status === 404 || e.status === 400) { // no such board, or no board id at all: asking again will not help
            setStatus('offline');
            showError(e);
            return;
          }
          reconnectSoon(myGen, false);
          if (e.status === 0) setStatus('offline'); // the service itself is unreachable
          return;
        }
        if (myGen !== state.streamGen) return;
      }
      connect();
    }, delay);
  }

  function onChange(gen, type, ev) {
    if (gen !== state.streamGen || state.revision === null) return;
    let data;
    try { data = JSON.parse(ev.data); } catch (e) { return reconnectSoon(gen, true); }
    const rev = typeof data.revision === 'number' ? data.revision : Number(ev.lastEventId);
    if (!(rev > state.revision)) return;                    // old or duplicate
    if (rev !== state.revision + 1) return reconnectSoon(gen, true); // gap: take a fresh snapshot
    const note = data.note;
    const kind = data.type || type;
    if (note && note.id) {
      if (kind === 'note-deleted') {
        const entry = state.notes.get(note.id);
        if (entry && entry.editor && !state.deleting.has(note.id)) {
          // Deleted elsewhere while edited here: say so, with the draft, rather than let it vanish.
          const draft = entry.editor.input.value;
          const hadFocus = entry.li.contains(document.activeElement);
          showError(new ApiError(409, 'Conflict', 'the note was deleted by someone else; your text was: “' + draft + '”'));
          removeNote(note.id);
          if (hadFocus) el.noteText.focus();
        } else {
          removeNote(note.id);
        }
      } else {
        upsertNote(note, true);
      }
    }
    state.revision = rev;
    updateMeta();
    updateEmpty();
    renderBoards();
  }

  function applySnapshot(snap) {
    if (!snap || snap.id !== state.boardId) return;
    state.board = { id: snap.id, name: snap.name };
    state.revision = snap.revision;
    el.boardTitle.textContent = snap.name;
    const seen = new Set();
    for (const note of snap.notes || []) {
      seen.add(note.id);
      upsertNote(note, false);
      el.notes.append(state.notes.get(note.id).li); // snapshot order
    }
    for (const id of [...state.notes.keys()]) if (!seen.has(id)) removeNote(id);
    updateMeta();
    updateEmpty();
    renderBoards();
  }

  function updateMeta() {
    if (!state.board) return;
    el.boardMeta.textContent = state.board.id + ' · revision ' + state.revision;
  }

  function updateEmpty() {
    if (!state.boardId) {
      el.notesEmpty.textContent = 'Pick a board on the left, or create one.';
      el.notesEmpty.hidden = false;
    } else {
      el.notesEmpty.textContent = 'No notes yet.';
      el.notesEmpty.hidden = state.notes.size > 0 || state.revision === null;
    }
  }

  // ---------- notes ----------

  function upsertNote(note, append) {
    let entry = state.notes.get(note.id);
    if (!entry) {
      entry = { note, li: buildNote(note), editor: null };
      state.notes.set(note.id, entry);
      if (append) el.notes.append(entry.li);
    }
    entry.note = note;
    const li = entry.li;
    li.querySelector('.note-text').textContent = note.text;
    li.querySelector('.note-version').textContent = 'v' + note.version;
    li.querySelector('.note-edit').setAttribute('aria-label', 'Edit note: ' + note.text);
    li.querySelector('.note-delete').setAttribute('aria-label', 'Delete note: ' + note.text);
    if (entry.editor && note.version !== entry.editor.baseVersion) {
      setHint(entry, 'Changed elsewhere meanwhile (now v' + note.version + '); saving will report a conflict.');
    }
  }

  function removeNote(id) {
    const entry = state.notes.get(id);
    if (!entry) return;
    state.notes.delete(id);
    entry.li.remove();
  }

  function buildNote(note) {
    const li = make('li', 'note');
    li.dataset.noteId = note.id;
    const view = make('div', 'note-view');
    const text = make('span', 'note-text', note.text);
    const version = make('span', 'note-version muted small', 'v' + note.version);
    const actions = make('span', 'note-actions');
    const edit = button('Edit', 'note-edit');
    const del = button('Delete', 'note-delete danger');
    actions.append(edit, del);
    view.append(text, version, actions);
    const hint = make('p', 'note-hint small');
    hint.hidden = true;
    li.append(view, hint);
    edit.addEventListener('click', () => startEdit(note.id));
    del.addEventListener('click', () => deleteNote(note.id));
    return li;
  }

  function setHint(entry, msg) {
    const hint = entry.li.querySelector('.note-hint');
    hint.textContent = msg || '';
    hint.hidden = !msg;
  }

  function startEdit(id) {
    const entry = state.notes.get(id);
    if (!entry || entry.editor) return;
    const li = entry.li;
    const form = make('form', 'note-editor row');
    form.autocomplete = 'off';
    const inputId = 'edit-' + id;
    const label = make('label', 'sr-only', 'Edit note text');
    label.htmlFor = inputId;
    // A textarea: a note may hold line breaks, which a text input would drop. Enter saves,
    // Shift+Enter starts a new line.
    const input = make('textarea', 'note-input');
    input.rows = Math.min(6, Math.max(1, entry.note.text.split('\n').length));
    input.id = inputId;
    input.maxLength = 2000;
    input.value = entry.note.text;
    const save = make('button', 'note-save', 'Save');
    save.type = 'submit';
    const cancel = button('Cancel', 'note-cancel');
    form.append(label, input, save, cancel);
    entry.editor = { form, input, baseVersion: entry.note.version };
    li.classList.add('editing');
    li.querySelector('.note-view').after(form);
    input.focus();
    input.select();
    form.addEventListener('submit', (ev) => { ev.preventDefault(); saveEdit(id); });
    cancel.addEventListener('click', () => stopEdit(id));
    input.addEventListener('keydown', (ev) => {
      if (ev.key === 'Escape') stopEdit(id);
      else if (ev.key === 'Enter' && !ev.shiftKey && !ev.isComposing) {
        ev.preventDefault();
        saveEdit(id);
      }
    });
  }

  function stopEdit(id) {
    const entry = state.notes.get(id);
    if (!entry || !entry.editor) return;
    entry.editor.form.remove();
    entry.editor = null;
    entry.li.classList.remove('editing');
    setHint(entry, '');
    clearError(); // the error was about this edit, which is abandoned
    entry.li.querySelector('.note-edit').focus();
  }

  async function saveEdit(id) {
    const entry = state.notes.get(id);
    if (!entry || !entry.editor) return;
    const boardId = state.boardId;
    const ed = entry.editor;
    try {
      const note = await api('PUT', boardPath(boardId) + '/notes/' + encodeURIComponent(id),
        { text: ed.input.value, expectedVersion: ed.baseVersion });
      clearError();
      const cur = state.notes.get(id);
      if (cur && cur.editor === ed) {
        stopEdit(id);
        // The SSE event will follow; show the result at once if it is newer than what we have.
        if (note && note.version > cur.note.version) upsertNote(note, false);
      }
    } catch (e) {
      showError(e);
      if (e.status === 409) reloadNote(boardId, id, ed);
    }
  }

  // After a 409: fetch the current note, show it, keep the user's draft against the new version.
  async function reloadNote(boardId, id, ed) {
    let snap;
    try {
      snap = await api('GET', boardPath(boardId));
    } catch (e) {
      showError(e);
      return;
    }
    if (boardId !== state.boardId) return;
    const entry = state.notes.get(id);
    const fresh = snap && (snap.notes || []).find((n) => n.id === id);
    if (!fresh) {
      if (entry) removeNote(id);
      showError(new ApiError(409, 'Conflict', 'the note was deleted by someone else'));
      updateEmpty();
      return;
    }
    if (!entry) return;
    if (fresh.version >= entry.note.version) upsertNote(fresh, false);
    if (ed && entry.editor === ed) {
      ed.baseVersion = entry.note.version;
      setHint(entry, 'Conflict: this note now reads “' + entry.note.text + '” (v' + entry.note.version +
        '). Save again to overwrite it with your text, or Cancel.');
      ed.input.focus();
    } else {
      setHint(entry, 'Conflict: the note was reloaded (v' + entry.note.version + ').');
    }
  }

  async function deleteNote(id) {
    const entry = state.notes.get(id);
    if (!entry || state.deleting.has(id)) return;
    const boardId = state.boardId;
    state.deleting.add(id);
    try {
      await api('DELETE', boardPath(boardId) + '/notes/' + encodeURIComponent(id) +
        '?expectedVersion=' + encodeURIComponent(entry.note.version));
      clearError();
      // Keep the keyboard where it was: on the next note (or the one before), else the note box.
      if (entry.li.contains(document.activeElement) || document.activeElement === document.body) {
        const near = entry.li.nextElementSibling || entry.li.previousElementSibling;
        const target = near && near !== entry.li ? near.querySelector('.note-delete') : null;
        (target || el.noteText).focus();
      }
    } catch (e) {
      showError(e);
      if (e.status === 409) reloadNote(boardId, id, null);
    } finally {
      state.deleting.delete(id);
    }
  }

  el.noteForm.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    if (!state.boardId || state.adding) return; // Enter twice while the first is on its way: one note
    state.adding = true;
    updateNoteForm();
    try {
      await api('POST', boardPath(state.boardId) + '/notes', { text: el.noteText.value });
      clearError();
      el.noteText.value = '';
    } catch (e) {
      showError(e);
    } finally {
      state.adding = false;
      updateNoteForm();
    }
    el.noteText.focus();
  });

  // ---------- live metrics ----------

  const fmt = (v, digits) => (typeof v === 'number' && isFinite(v) ? (digits === undefined ? String(v) : v.toFixed(digits)) : '–');

  // Cluster mode only: which replica answered, whether it reaches the brokers, and per partition
  // the offset this replica applied up to, the log's end and the lag between them.
  function showCluster(cluster, servedBy) {
    el.cluster.hidden = !cluster;
    if (!cluster) return;
    el.clusterReplica.textContent = servedBy || cluster.replicaId || '–';
    el.clusterBrokers.textContent = cluster.connected ? 'connected' : 'unreachable' + (cluster.problem ? ' (' + cluster.problem + ')' : '');
    el.clusterBrokers.classList.toggle('danger-text', !cluster.connected);
    el.clusterLag.textContent = fmt(cluster.lag);
    el.clusterSnapshots.textContent = fmt(cluster.snapshots);
    const applied = new Map((cluster.applied || []).map(p => [p.partition, p.offset]));
    el.clusterPartitions.replaceChildren(...(cluster.partitions || []).map(p => {
      const row = document.createElement('tr');
      for (const v of [p.partition, applied.has(p.partition) ? applied.get(p.partition) : p.delivered, p.end, p.lag]) {
        const td = document.createElement('td');
        td.textContent = fmt(v);
        row.append(td);
      }
      return row;
    }));
  }

  async function pollLive() {
    try {
      const res = await fetch('/api/live', { headers: { Accept: 'application/json' } });
      if (!res.ok) throw new Error('HTTP ' + res.status);
      const live = await res.json();
      const pump = live.pump || {};
      const journal = live.journal || {};
      el.transport.textContent = (live.transport || '–') +
        (live.fallbackReason ? ' (fallback: ' + live.fallbackReason + ')' : '');
      el.queueDepth.textContent = fmt(pump.queueDepth);
      el.wakeups.textContent = fmt(pump.wakeupsPerDispatch, 2);
      el.fsyncs.textContent = fmt(journal.fsyncsPerChange, 2);
      // Every change in the journal, over every run (not only since this start).
      el.changes.textContent = fmt(typeof journal.total === 'number' ? journal.total : journal.changes);
      showCluster(live.cluster, res.headers.get('Served-By'));
      el.metricsState.textContent = '';
      document.getElementById('metrics').classList.remove('stale');
    } catch (e) {
      el.metricsState.textContent = '(unavailable)';
      document.getElementById('metrics').classList.add('stale');
    }
    setTimeout(pollLive, 1000);
  }

  // ---------- face toggle ----------

  function setFace(face) {
    state.face = face === 'kt' ? 'kt' : 'java';
    try { localStorage.setItem('corobridge.face', state.face); } catch (e) { /* private mode */ }
    for (const r of document.querySelectorAll('input[name="face"]')) r.checked = r.value === state.face;
  }

  for (const r of document.querySelectorAll('input[name="face"]')) {
    r.addEventListener('change', () => {
      if (!r.checked) return;
      setFace(r.value);
      connectList();
      if (state.boardId) connect(); // same board, through the other face
    });
  }

  // ---------- start ----------

  // The board in the URL's hash: null for none, {invalid: raw} for a malformed escape (`#%`).
  function boardFromHash() {
    const raw = location.hash.replace(/^#/, '');
    if (!raw) return null;
    try {
      return decodeURIComponent(raw);
    } catch (e) {
      return { invalid: raw };
    }
  }

  window.addEventListener('hashchange', () => openBoard(boardFromHash()));

  // A page left for another one may stay in the browser's back-forward cache with its event
  // streams open: two connections each, of the six a browser opens to one host. Give them back,
  // and take the streams up again (a fresh snapshot first) if the page is shown again.
  window.addEventListener('pagehide', () => {
    closeStream();
    const list = state.listStream;
    state.listStream = null;
    if (list) list.close();
  });
  window.addEventListener('pageshow', (ev) => {
    if (!ev.persisted) return;
    connectList();
    if (state.boardId) connect();
  });

  let stored = null;
  try { stored = localStorage.getItem('corobridge.face'); } catch (e) { /* ignore */ }
  setFace(stored || 'java');
  openBoard(boardFromHash());
  connectList();
  pollLive();
})();
