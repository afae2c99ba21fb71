/* The card table of bakers.
 *
 * Rules live in Python: this page shows the position and the legal moves the
 * server sends (docs/api.md), sends the move the player chose, and shows the
 * server's reason when it refuses one. It never decides legality itself; the
 * only card logic here is mechanical (which cards a move carries, for the
 * animation) and presentational.
 */
(() => {
  "use strict";

  const $ = (sel, root = document) => root.querySelector(sel);
  const $$ = (sel, root = document) => Array.from(root.querySelectorAll(sel));

  const COLUMN_KEYS = "123456789tjqk";
  const CELL_KEYS = "abcdefgi";
  const FOUNDATION_ORDER = ["H", "C", "D", "S"];
  const SUIT_NAME = { C: "clubs", D: "diamonds", H: "hearts", S: "spades" };
  const RANK_NAME = { A: "ace", T: "10", J: "jack", Q: "queen", K: "king" };
  const RANKS = "A23456789TJQK";
  const PREFS_KEY = "bakers.prefs";

  const app = $("#app");
  const frame = $("#frame");
  const board = $("#board");
  const cellsRow = $("#cells");
  const foundRow = $("#foundations");
  const tableau = $("#tableau");
  const statusLine = $("#status");
  const announcer = $("#announce");
  const fx = $("#fx");
  const reducedMotion = window.matchMedia("(prefers-reduced-motion: reduce)");

  const prefs = Object.assign(
    { clickmode: "best", fourcolour: false, sound: true },
    readJSON(localStorage.getItem(PREFS_KEY)) || {},
  );

  const state = {
    game: null,
    sel: null, // {place, count|null, cards: [codes], how: "key"|"click"}
    focus: 0, // index into piles() for the keyboard focus ring
    lastTap: null, // {card, t}
    clock: { base: 0, t0: 0, running: false },
    hintTimer: 0,
    celebrating: false,
    shape: "",
  };
  const cardCache = new Map();
  let queue = Promise.resolve();

  // ---------------------------------------------------------------- helpers

  function readJSON(text) {
    if (!text) return null;
    try {
      return JSON.parse(text);
    } catch (_e) {
      return null;
    }
  }

  function savePrefs() {
    try {
      localStorage.setItem(PREFS_KEY, JSON.stringify(prefs));
    } catch (_e) {
      /* private mode: preferences last for this page only */
    }
  }

  function cardName(code) {
    const r = code[0];
    return `${RANK_NAME[r] || r} of ${SUIT_NAME[code[1]]}`;
  }

  function placeName(place) {
    if (place === "h") return "the foundations";
    const ci = COLUMN_KEYS.indexOf(place);
    if (ci >= 0) return `column ${ci + 1}`;
    const fi = CELL_KEYS.indexOf(place);
    if (fi >= 0) return `free cell ${place}`;
    return place;
  }

  function parseMove(text) {
    const m = /^\s*(10|[0-9a-z])\s*(10|[0-9a-z])\s*(?:\/\s*(\d+))?\s*$/i.exec(text || "");
    if (!m) return null;
    const norm = (p) => (p === "10" ? "t" : p.toLowerCase());
    return { src: norm(m[1]), dst: norm(m[2]), count: m[3] ? Number(m[3]) : null };
  }

  /** Notation of a move; a known count from a column is always written, so
   * that one card dropped on an empty column does not take its run along. */
  function moveText(src, dst, count) {
    if (!count || !COLUMN_KEYS.includes(src) || (dst === "h" && count === 1)) return `${src}${dst}`;
    return `${src}${dst}/${count}`;
  }

  function fmtTime(seconds) {
    const s = Math.max(0, Math.floor(seconds));
    const h = Math.floor(s / 3600);
    const m = Math.floor((s % 3600) / 60);
    const ss = String(s % 60).padStart(2, "0");
    return h ? `${h}:${String(m).padStart(2, "0")}:${ss}` : `${m}:${ss}`;
  }

  function levelName(level) {
    if (level === "daily") return "Daily";
    if (level === "custom") return "Custom";
    return level ? level[0].toUpperCase() + level.slice(1) : "";
  }

  function motionOK() {
    return !reducedMotion.matches;
  }

  // ------------------------------------------------------------------- API

  async function api(method, path, body) {
    const opts = { method, headers: { Accept: "application/json" }, credentials: "same-origin" };
    if (body !== undefined) {
      opts.headers["Content-Type"] = "application/json";
      opts.body = JSON.stringify(body);
    }
    let res;
    try {
      res = await fetch(path, opts);
    } catch (_e) {
      return { ok: false, status: 0, error: "The server cannot be reached. Is bakers serve still running?" };
    }
    let data = null;
    try {
      data = await res.json();
    } catch (_e) {
      data = null;
    }
    if (!res.ok) {
      const error = (data && (data.error || data.detail)) || `The server answered ${res.status}.`;
      return { ok: false, status: res.status, error: typeof error === "string" ? error : String(error) };
    }
    return { ok: true, status: res.status, data };
  }

  /** Actions run one after another: each move starts from the previous answer. */
  function enqueue(fn) {
    queue = queue.then(fn).catch((err) => {
      showStatus(`Something went wrong on this page: ${err && err.message ? err.message : err}`, "error");
    });
    return queue;
  }

  function gamePath(suffix) {
    return `/api/games/${encodeURIComponent(state.game.id)}${suffix}`;
  }

  // ------------------------------------------------------------ status line

  function showStatus(text, kind) {
    statusLine.textContent = text || "";
    statusLine.classList.toggle("error", kind === "error");
    statusLine.classList.toggle("good", kind === "good");
  }

  function announce(text) {
    // Re-setting the same text would not be read again: clear first.
    announcer.textContent = "";
    window.setTimeout(() => {
      announcer.textContent = text;
    }, 30);
  }

  // ------------------------------------------------------------------ sound

  let audio = null;
  function sound(kind) {
    if (!prefs.sound) return;
    const ua = navigator.userActivation;
    if (ua && !ua.hasBeenActive) return;
    try {
      if (!audio) audio = new (window.AudioContext || window.webkitAudioContext)();
      if (audio.state === "suspended") audio.resume();
      const notes = { move: [520], home: [880], refuse: [180], win: [523, 659, 784, 1047] }[kind] || [520];
      notes.forEach((freq, i) => {
        const t = audio.currentTime + i * 0.11;
        const osc = audio.createOscillator();
        const gain = audio.createGain();
        osc.type = kind === "refuse" ? "square" : "triangle";
        osc.frequency.value = freq;
        gain.gain.setValueAtTime(0.0001, t);
        gain.gain.exponentialRampToValueAtTime(kind === "refuse" ? 0.05 : 0.12, t + 0.005);
        gain.gain.exponentialRampToValueAtTime(0.0001, t + (kind === "win" ? 0.25 : 0.07));
        osc.connect(gain).connect(audio.destination);
        osc.start(t);
        osc.stop(t + 0.3);
      });
    } catch (_e) {
      /* no audio here: play silently */
    }
  }

  // ------------------------------------------------------------------ cards

  function suitSvg(suit, cls) {
    return `<svg class="${cls}" viewBox="0 0 100 100" aria-hidden="true" focusable="false"><use href="#suit-${suit}"/></svg>`;
  }

  function cardEl(code) {
    let el = cardCache.get(code);
    if (el) return el;
    const r = code[0];
    const s = code[1];
    const shown = r === "T" ? "10" : r;
    el = document.createElement("div");
    el.className = `card suit-${s} ${s === "H" || s === "D" ? "red" : "black"}${r === "T" ? " ten" : ""}`;
    el.dataset.card = code;
    el.setAttribute("role", "img");
    el.setAttribute("aria-label", cardName(code));
    let centre;
    if ("JQK".includes(r)) {
      centre = `<span class="face"><b>${r}</b>${suitSvg(s, "face-pip")}</span>`;
    } else {
      centre = `<span class="pip${r === "A" ? " ace" : ""}">${suitSvg(s, "big")}</span>`;
    }
    el.innerHTML =
      `<span class="corner tl"><b>${shown}</b>${suitSvg(s, "small")}</span>` +
      `${suitSvg(s, "corner-suit")}${centre}` +
      `<span class="corner br"><b>${shown}</b>${suitSvg(s, "small")}</span>`;
    cardCache.set(code, el);
    return el;
  }

  // ------------------------------------------------------------------ piles

  function pileEl(kind, place, extra) {
    const el = document.createElement("div");
    el.className = `pile pile-${kind}`;
    el.dataset.place = place;
    el.tabIndex = -1;
    el.setAttribute("role", "group");
    const key = document.createElement("span");
    key.className = "key";
    key.setAttribute("aria-hidden", "true");
    key.textContent = place;
    el.appendChild(key);
    if (extra) extra(el);
    return el;
  }

  function buildPiles(g) {
    const shape = `${g.game}/${g.cells}/${g.columns_count}`;
    if (shape === state.shape) return;
    state.shape = shape;
    cellsRow.replaceChildren();
    foundRow.replaceChildren();
    tableau.replaceChildren();
    for (let i = 0; i < g.cells; i++) cellsRow.appendChild(pileEl("cell", CELL_KEYS[i]));
    for (const suit of FOUNDATION_ORDER) {
      foundRow.appendChild(
        pileEl("foundation", "h", (el) => {
          el.dataset.suit = suit;
          el.insertAdjacentHTML("beforeend", suitSvg(suit, "ghost"));
        }),
      );
    }
    for (let i = 0; i < g.columns_count; i++) tableau.appendChild(pileEl("column", COLUMN_KEYS[i]));
    board.dataset.game = g.game;
    board.classList.toggle("no-cells", g.cells === 0);
    state.focus = Math.min(state.focus, piles().length - 1);
    rovingTabindex();
  }

  function piles() {
    return [...$$(".pile", cellsRow), ...$$(".pile", foundRow), ...$$(".pile", tableau)];
  }

  function pileFor(place, suit) {
    if (place === "h") return suit ? $(`.pile-foundation[data-suit="${suit}"]`, foundRow) : $(".pile-foundation", foundRow);
    return $(`.pile[data-place="${place}"]:not(.pile-foundation)`, board);
  }

  function fillCards(g) {
    const live = new Set();
    const place = (pile, codes) => {
      const els = codes.map(cardEl);
      const now = $$(".card", pile);
      const same = now.length === els.length && now.every((el, i) => el === els[i]);
      els.forEach((el, i) => {
        el.style.zIndex = String(i + 1);
        el.dataset.index = String(i);
        if (!same) pile.appendChild(el);
        live.add(el.dataset.card);
      });
      if (!same) for (const el of now) if (!els.includes(el) && el.parentNode === pile) el.remove();
    };
    $$(".pile-column", tableau).forEach((pile, ci) => {
      const col = g.columns[ci] || [];
      place(pile, col);
      const n = col.length;
      pile.setAttribute(
        "aria-label",
        `Column ${ci + 1}` + (n ? `, ${n} card${n > 1 ? "s" : ""}, top card ${cardName(col[n - 1])}` : ", empty"),
      );
      pile.classList.toggle("empty", n === 0);
    });
    $$(".pile-cell", cellsRow).forEach((pile, i) => {
      const code = g.freecells[i];
      place(pile, code ? [code] : []);
      pile.setAttribute("aria-label", `Free cell ${CELL_KEYS[i]}` + (code ? `, ${cardName(code)}` : ", empty"));
      pile.classList.toggle("empty", !code);
    });
    $$(".pile-foundation", foundRow).forEach((pile) => {
      const suit = pile.dataset.suit;
      const top = g.foundations[suit] || 0;
      const codes = [];
      for (let r = 1; r <= top; r++) codes.push(RANKS[r - 1] + suit);
      place(pile, codes);
      pile.setAttribute(
        "aria-label",
        `${SUIT_NAME[suit][0].toUpperCase()}${SUIT_NAME[suit].slice(1)} foundation` +
          (top ? `, up to ${cardName(RANKS[top - 1] + suit)}` : ", empty"),
      );
      pile.classList.toggle("empty", top === 0);
    });
    for (const [code, el] of cardCache) {
      if (!live.has(code) && el.parentNode) el.remove();
    }
  }

  // ----------------------------------------------------------------- layout

  function layout() {
    const g = state.game;
    if (!g) return;
    const ncols = g.columns_count;
    const ncells = g.cells;
    const slots = Math.max(ncols, ncells + 4);
    const frameW = frame.clientWidth;
    const viewH = window.innerHeight;
    const frameTop = Math.max(0, frame.getBoundingClientRect().top + window.scrollY);
    const availH = Math.max(320, viewH - frameTop - 10);
    const gap = Math.max(4, Math.min(14, Math.round((frameW / slots) * 0.11)));
    let cw = (frameW - (slots + 1) * gap) / slots;
    // Keep the top row and the longest column (at least a dozen cards, each
    // showing its corner) inside the window: long columns make cards smaller.
    const longest = Math.max(12, ...g.columns.map((c) => c.length));
    const stripOf = (w) => Math.round(Math.max(14, Math.round(w * 0.21)) * 1.12 + w * 0.05 + 2);
    const need = (w) => 2.8 * w + 2 * gap + 34 + (longest - 1) * stripOf(w);
    cw = Math.floor(Math.min(cw, 124));
    while (cw > 40 && need(cw) > availH) cw -= 1;
    cw = Math.max(cw, 40);
    const ch = Math.round(cw * 1.4);
    const rf = Math.max(14, Math.round(cw * 0.21)); // corner rank font
    const strip = stripOf(cw); // the smallest legible overlap
    const fan = Math.max(strip, Math.round(cw * (cw < 62 ? 0.56 : 0.3)));
    const st = board.style;
    st.setProperty("--cw", `${cw}px`);
    st.setProperty("--ch", `${ch}px`);
    st.setProperty("--gap", `${gap}px`);
    st.setProperty("--rf", `${rf}px`);
    board.classList.toggle("small-cards", cw < 62);
    const boardW = Math.ceil(slots * cw + (slots + 1) * gap);
    st.minWidth = `${boardW}px`;
    st.width = frameW >= boardW ? "100%" : `${boardW}px`;
    const topH = ch + gap * 2 + 14;
    const colRoom = Math.max(ch, availH - topH - gap);
    let tallest = ch;
    $$(".pile-column", tableau).forEach((pile) => {
      const n = $$(".card", pile).length;
      let off = fan;
      if (n > 1) off = Math.max(strip, Math.min(fan, (colRoom - ch) / (n - 1)));
      $$(".card", pile).forEach((el, i) => {
        el.style.top = `${Math.round(i * off)}px`;
      });
      const h = ch + Math.max(0, n - 1) * off;
      pile.style.height = `${Math.ceil(h)}px`;
      tallest = Math.max(tallest, h);
    });
    $$(".pile-cell .card, .pile-foundation .card", board).forEach((el) => {
      el.style.top = "0px";
    });
    tableau.style.minHeight = `${Math.ceil(tallest + gap)}px`;
    edgeButtons();
  }

  /** On a narrow screen a wide board scrolls inside its frame: show arrows
   * at the edges while there is more to see on that side. */
  function edgeButtons() {
    const max = frame.scrollWidth - frame.clientWidth;
    const top = `${Math.round(tableau.getBoundingClientRect().top + window.scrollY + 8)}px`;
    for (const [id, show] of [["#scroll-left", frame.scrollLeft > 2], ["#scroll-right", frame.scrollLeft < max - 2]]) {
      const b = $(id);
      b.hidden = !(max > 2 && show);
      b.style.top = top;
    }
  }

  // -------------------------------------------------------------- animation

  function snapshot() {
    const rects = new Map();
    for (const el of $$(".card", board)) rects.set(el.dataset.card, el.getBoundingClientRect());
    return rects;
  }

  /** Slide every card from where it was drawn before (FLIP). */
  function animateFrom(before, delays, duration) {
    if (!before || !motionOK()) return 0;
    let longest = 0;
    for (const el of $$(".card", board)) {
      const a = before.get(el.dataset.card);
      if (!a) continue;
      const b = el.getBoundingClientRect();
      const dx = a.left - b.left;
      const dy = a.top - b.top;
      if (Math.abs(dx) < 1 && Math.abs(dy) < 1) continue;
      const delay = (delays && delays.get(el.dataset.card)) || 0;
      const dist = Math.hypot(dx, dy);
      const dur = duration || Math.min(320, 140 + dist / 6);
      el.classList.add("flying");
      el.style.setProperty("--lift", String(100 + Math.round(delay / 10)));
      const anim = el.animate(
        [{ transform: `translate(${dx}px, ${dy}px)` }, { transform: "translate(0, 0)" }],
        { duration: dur, delay, easing: "cubic-bezier(.25,.8,.3,1)", fill: "backwards" },
      );
      anim.onfinish = anim.oncancel = () => el.classList.remove("flying");
      longest = Math.max(longest, delay + dur);
    }
    return longest;
  }

  /** Cards a bare ``36`` carried from position ``g``: the server's legal moves
   * say it (one length builds on an occupied column; the longest goes to an
   * empty one), so the page reads it from them rather than deciding it. */
  function impliedCount(g, mv) {
    let n = 1;
    for (const text of g.legal_moves || []) {
      const lm = parseMove(text);
      if (lm && lm.src === mv.src && lm.dst === mv.dst) n = Math.max(n, lm.count || 1);
    }
    return n;
  }

  /** Which cards each move of ``moves`` carries, played mechanically from ``g``. */
  function cardsOfMoves(g, moves) {
    const cols = g.columns.map((c) => c.slice());
    const cells = g.freecells.slice();
    const steps = [];
    for (const text of moves) {
      const mv = parseMove(text);
      if (!mv) return null;
      let cards;
      const sc = COLUMN_KEYS.indexOf(mv.src);
      const sf = CELL_KEYS.indexOf(mv.src);
      if (sc >= 0 && sc < cols.length) {
        const col = cols[sc];
        const n = Math.min(mv.count || (steps.length === 0 ? impliedCount(g, mv) : 1), col.length);
        cards = col.splice(col.length - n, n);
      } else if (sf >= 0 && sf < cells.length && cells[sf]) {
        cards = [cells[sf]];
        cells[sf] = null;
      } else {
        return null;
      }
      const dc = COLUMN_KEYS.indexOf(mv.dst);
      const df = CELL_KEYS.indexOf(mv.dst);
      if (mv.dst !== "h") {
        if (dc >= 0 && dc < cols.length) cols[dc].push(...cards);
        else if (df >= 0 && df < cells.length) cells[df] = cards[0];
      }
      steps.push({ move: text, cards, src: mv.src, dst: mv.dst });
    }
    return steps;
  }

  /** The moves played between two answers, when the second extends the first. */
  function newMoves(prev, g) {
    if (!prev || !g || prev.id !== g.id) return null;
    const a = prev.moves || [];
    const b = g.moves || [];
    if (b.length <= a.length) return null;
    for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return null;
    return b.slice(a.length);
  }

  // ----------------------------------------------------------------- render

  function render(opts = {}) {
    const g = state.game;
    if (!g) return 0;
    const before = opts.before || (opts.animate === false ? null : snapshot());
    $$(".card.dragging", board).forEach((el) => {
      el.classList.remove("dragging");
      el.style.transform = "";
    });
    buildPiles(g);
    fillCards(g);
    layout();
    markSelection();
    updateChrome();
    return animateFrom(before, opts.delays, opts.duration);
  }

  function updateChrome() {
    const g = state.game;
    $("#title").textContent = g.title || g.game;
    const bits = [];
    if (g.daily) bits.push(`Daily deal ${g.daily}`);
    else if (g.deal !== null && g.deal !== undefined) bits.push(`Deal ${g.deal}`);
    else bits.push("Own position");
    if (g.practice) bits.push("Practice");
    else if (g.level && !g.daily) bits.push(levelName(g.level));
    if (g.game !== "bakers_dozen") bits.push(`${g.cells} cell${g.cells === 1 ? "" : "s"}`);
    $("#subtitle").textContent = bits.join(" · ");
    document.title = `${g.title} ${g.daily ? "daily deal" : g.deal ? "#" + g.deal : ""} · bakers`.replace(/\s+/g, " ");
    const sc = g.score || {};
    $("#s-moves").textContent = String(sc.moves ?? (g.moves || []).length);
    $("#s-score").textContent = String(Math.round(sc.score ?? 0));
    const home = sc.home ?? Object.values(g.foundations || {}).reduce((a, b) => a + b, 0);
    $("#s-home").textContent = String(home);
    const playing = g.status === "playing";
    $("#btn-undo").disabled = !g.can_undo;
    $("#btn-redo").disabled = !g.can_redo;
    $("#btn-hint").disabled = !playing || g.paused;
    $("#btn-restart").disabled = !(g.moves && g.moves.length) || !(playing || g.status === "blocked");
    $("#btn-pause").disabled = !playing;
    $("#btn-pause").setAttribute("aria-pressed", g.paused ? "true" : "false");
    $("#btn-pause .lbl").textContent = g.paused ? "Resume" : "Pause";
    frame.classList.toggle("is-paused", !!g.paused);
    $("#paused").hidden = !g.paused;
    board.setAttribute("aria-hidden", g.paused ? "true" : "false");
    const blocked = $("#blocked");
    blocked.hidden = g.status !== "blocked";
    if (g.status === "blocked") {
      $("#blocked-text").textContent = g.message || "No legal move remains: undo, restart or start a new deal.";
      $('#blocked [data-act="undo"]').disabled = !g.can_undo;
      $('#blocked [data-act="restart"]').disabled = !(g.moves && g.moves.length);
    }
    app.dataset.status = g.status;
    setClock(g);
  }

  // ------------------------------------------------------------------ clock

  function setClock(g) {
    const secs = (g.score && g.score.seconds) || 0;
    const started = (g.moves || []).length > 0 || ((g.score && g.score.moves) || 0) > 0;
    state.clock = { base: secs, t0: performance.now(), running: g.status === "playing" && !g.paused && started };
    tick();
  }

  function tick() {
    const c = state.clock;
    const s = c.base + (c.running ? Math.min(600, (performance.now() - c.t0) / 1000) : 0);
    const text = fmtTime(s);
    const el = $("#s-time");
    if (el.textContent !== text) el.textContent = text;
  }

  // ------------------------------------------------------- applying answers

  function applyGame(g, opts = {}) {
    const prev = opts.prev !== undefined ? opts.prev : state.game;
    state.game = g;
    if (state.sel) {
      // A source chosen while this answer was on its way stays chosen.
      state.sel.cards = cardsAt(state.sel.place, state.sel.count || 1);
      if (!state.sel.cards.length && state.sel.place !== "h") state.sel = null;
    }
    const played = newMoves(prev, g);
    let delays = null;
    let steps = null;
    if (played && prev) {
      steps = cardsOfMoves(prev, played);
      if (steps && steps.length > 1) {
        delays = new Map();
        const step = Math.max(45, Math.min(150, 2400 / steps.length));
        steps.forEach((st, k) => st.cards.forEach((c) => delays.set(c, k * step)));
      }
    }
    const busyFor = render({ before: opts.before, delays, animate: opts.animate });
    if (opts.announce !== false && steps && steps.length) {
      const first = steps[0];
      const what = first.cards.length > 1 ? `${first.cards.length} cards from ${cardName(first.cards[0])}` : cardName(first.cards[0]);
      let text = `${what} to ${placeName(first.dst)}.`;
      const auto = steps.length - 1;
      if (auto > 0) text += ` ${auto} more card${auto > 1 ? "s" : ""} played automatically.`;
      announce(text);
      sound(first.dst === "h" || auto > 0 ? "home" : "move");
    }
    if (g.status === "playing") {
      showStatus(g.message || "");
    } else if (g.status === "blocked") {
      showStatus(""); // the banner says it, with its buttons
      if (prev && prev.status === "playing") announce(g.message || "No legal move remains.");
    } else if (g.status === "won") {
      showStatus(g.message || "All 52 cards are home: you won!", "good");
      if (prev && prev.id === g.id && prev.status === "playing") {
        window.setTimeout(celebrate, busyFor + 120);
      } else if (opts.initial) {
        showResults();
      }
    } else if (g.status === "abandoned") {
      showStatus(g.message || "This deal was abandoned: start a new deal.", "error");
    }
    return busyFor;
  }

  // ------------------------------------------------------------------ moves

  function refuse(message, cards) {
    showStatus(message, "error");
    announce(message);
    sound("refuse");
    clearSelection(false);
    // The cards slide back to where the server says they are.
    render({ duration: 220 });
    if (motionOK() && cards) {
      for (const code of cards) {
        const el = cardCache.get(code);
        if (el) el.animate(
          [{ translate: "0 0" }, { translate: "-5px 0" }, { translate: "5px 0" }, { translate: "-3px 0" }, { translate: "0 0" }],
          { duration: 260, delay: 200 },
        );
      }
    }
  }

  function sendMove(body, cards) {
    return enqueue(async () => {
      const g = state.game;
      if (!g) return;
      clearHint();
      if (g.paused) {
        refuse("The game is paused: resume it to move.", cards);
        return;
      }
      const before = snapshot();
      const r = await api("POST", gamePath("/moves"), body);
      if (!r.ok) {
        refuse(r.error, cards);
        return;
      }
      applyGame(r.data, { prev: g, before });
    });
  }

  function playNotation(src, dst, count, cards) {
    sendMove({ move: moveText(src, dst, count) }, cards);
  }

  function playBest(place, count, cards) {
    sendMove({ from: place, count: count || 1 }, cards);
  }

  function cardsAt(place, count) {
    const g = state.game;
    if (!g) return [];
    const ci = COLUMN_KEYS.indexOf(place);
    if (ci >= 0 && ci < g.columns.length) {
      const col = g.columns[ci];
      return col.slice(Math.max(0, col.length - (count || 1)));
    }
    const fi = CELL_KEYS.indexOf(place);
    if (fi >= 0 && g.freecells[fi]) return [g.freecells[fi]];
    return [];
  }

  /** Where a card is now: {place, count} with count = cards from it to the top. */
  function locate(code) {
    const g = state.game;
    if (!g) return null;
    for (let i = 0; i < g.columns.length; i++) {
      const k = g.columns[i].indexOf(code);
      if (k >= 0) return { place: COLUMN_KEYS[i], count: g.columns[i].length - k };
    }
    const f = g.freecells.indexOf(code);
    if (f >= 0) return { place: CELL_KEYS[f], count: 1 };
    return { place: "h", count: 1 };
  }

  // -------------------------------------------------------------- selection

  function select(place, count, how) {
    const cards = count ? cardsAt(place, count) : cardsAt(place, 1);
    state.sel = { place, count, cards, how };
    markSelection();
    const what = cards.length ? (cards.length > 1 ? `: ${cards.length} cards from ${cardName(cards[0])}` : `: ${cardName(cards[0])}`) : "";
    const msg = `From ${placeName(place)}${what}. Now choose where it goes${how === "key" ? " (type a place, Enter for its best place, Escape to cancel)" : ""}.`;
    showStatus(msg);
    announce(msg);
  }

  function clearSelection(say) {
    if (state.sel && say) {
      showStatus("");
      announce("Cancelled.");
    }
    state.sel = null;
    markSelection();
  }

  function markSelection() {
    $$(".card.selected", board).forEach((el) => el.classList.remove("selected"));
    $$(".pile.source", board).forEach((el) => el.classList.remove("source"));
    const s = state.sel;
    if (!s) return;
    for (const code of s.cards) {
      const el = cardCache.get(code);
      if (el) el.classList.add("selected");
    }
    const pile = pileFor(s.place);
    if (pile) pile.classList.add("source");
  }

  /** Shift+Up / Shift+Down: take one card more or less of the selected column. */
  function resizeSelection(delta) {
    const s = state.sel;
    const ci = COLUMN_KEYS.indexOf(s.place);
    const col = state.game && ci >= 0 ? state.game.columns[ci] : null;
    if (!col || !col.length) return;
    const count = Math.max(1, Math.min(col.length, s.count === null ? (delta > 0 ? 2 : 1) : s.count + delta));
    s.count = count;
    s.cards = cardsAt(s.place, count);
    markSelection();
    const msg = count > 1 ? `${count} cards from ${cardName(s.cards[0])}.` : `${cardName(s.cards[0])} alone.`;
    showStatus(`From ${placeName(s.place)}: ${msg} Now choose where it goes.`);
    announce(msg);
  }

  function dropSelectionOn(place) {
    const s = state.sel;
    state.sel = null;
    markSelection();
    if (s.place === place && place !== "h") {
      playBest(s.place, s.count || 1, s.cards);
      return;
    }
    playNotation(s.place, place, s.count, s.cards);
  }

  // ------------------------------------------------------------- tap/click

  function tapCard(code) {
    const now = performance.now();
    const last = state.lastTap;
    if (last && last.card === code && now - last.t < 450) {
      state.lastTap = null;
      doubleTap(code);
      return;
    }
    state.lastTap = { card: code, t: now };
    const where = locate(code);
    if (!where) return;
    if (state.sel) {
      if (state.sel.cards.includes(code) && state.sel.place === where.place) {
        clearSelection(true);
        return;
      }
      dropSelectionOn(where.place);
      return;
    }
    if (where.place === "h") return;
    if (prefs.clickmode === "select") {
      select(where.place, where.count, "click");
    } else {
      playBest(where.place, where.count, cardsAt(where.place, where.count));
    }
  }

  function doubleTap(code) {
    // Runs after the first tap's answer: the card may have moved already.
    enqueue(async () => {
      clearSelection(false);
      const where = locate(code);
      if (!where || where.place === "h") return;
      if (where.count !== 1) return; // covered by now: nothing to send home
      playNotation(where.place, "h", null, [code]);
    });
  }

  function tapPile(place) {
    if (state.sel) dropSelectionOn(place);
  }

  // ------------------------------------------------------------ drag & drop

  let drag = null;

  function onPointerDown(e) {
    const cardElx = e.target.closest(".card");
    if (!cardElx || !board.contains(cardElx) || state.celebrating) return;
    if (e.button !== 0 && e.pointerType === "mouse") return;
    const code = cardElx.dataset.card;
    const where = locate(code);
    if (!where) return;
    const els = where.place === "h" ? [cardElx] : cardsAt(where.place, where.count).map((c) => cardCache.get(c));
    drag = {
      id: e.pointerId,
      code,
      where,
      els,
      x0: e.clientX,
      y0: e.clientY,
      started: false,
      target: null,
      captured: cardElx,
    };
    try {
      cardElx.setPointerCapture(e.pointerId);
    } catch (_e) {
      /* pointer already gone */
    }
    if (e.pointerType !== "mouse") e.preventDefault();
  }

  function onPointerMove(e) {
    if (!drag || e.pointerId !== drag.id) return;
    const dx = e.clientX - drag.x0;
    const dy = e.clientY - drag.y0;
    if (!drag.started) {
      if (Math.hypot(dx, dy) < 6 || drag.where.place === "h") return;
      drag.started = true;
      clearHint();
      if (state.sel) clearSelection(false);
      drag.els.forEach((el) => el.classList.add("dragging"));
    }
    for (const el of drag.els) el.style.transform = `translate(${dx}px, ${dy}px)`;
    const t = dropTarget(e.clientX, e.clientY);
    if (t !== drag.target) {
      if (drag.target) drag.target.classList.remove("drop-over");
      drag.target = t;
      if (t) t.classList.add("drop-over");
    }
    e.preventDefault();
  }

  function onPointerUp(e) {
    if (!drag || e.pointerId !== drag.id) return;
    const d = drag;
    drag = null;
    if (d.target) d.target.classList.remove("drop-over");
    if (!d.started) {
      tapCard(d.code);
      return;
    }
    const target = d.target;
    const cards = d.els.map((el) => el.dataset.card);
    if (!target || target.dataset.place === d.where.place) {
      render({ duration: 200 }); // slide back
      return;
    }
    playNotation(d.where.place, target.dataset.place, d.where.count, cards);
  }

  function onPointerCancel(e) {
    if (!drag || e.pointerId !== drag.id) return;
    if (drag.target) drag.target.classList.remove("drop-over");
    drag = null;
    render({ duration: 200 });
  }

  /** The pile the dragged cards overlap most, else the pile under the pointer. */
  function dropTarget(x, y) {
    const lead = drag.els[0].getBoundingClientRect();
    let best = null;
    let bestArea = 0;
    for (const pile of piles()) {
      const r = pileRect(pile);
      const w = Math.min(lead.right, r.right) - Math.max(lead.left, r.left);
      const h = Math.min(lead.bottom, r.bottom) - Math.max(lead.top, r.top);
      if (w > 0 && h > 0 && w * h > bestArea) {
        bestArea = w * h;
        best = pile;
      }
    }
    if (best) return best;
    for (const pile of piles()) {
      const r = pileRect(pile);
      if (x >= r.left && x <= r.right && y >= r.top && y <= r.bottom) return pile;
    }
    return null;
  }

  function pileRect(pile) {
    // A column's landing zone is its last card (or its empty slot), reaching down.
    const r = pile.getBoundingClientRect();
    if (!pile.classList.contains("pile-column")) return r;
    const cards = $$(".card:not(.dragging)", pile);
    const last = cards.length ? cards[cards.length - 1].getBoundingClientRect() : r;
    return { left: r.left, right: r.right, top: cards.length ? last.top : r.top, bottom: Math.max(r.bottom, last.bottom) + 40 };
  }

  // --------------------------------------------------------------- keyboard

  function keyToPlace(key) {
    const k = key.toLowerCase();
    if (k === "0") return "t";
    if (k === "h") return "h";
    if (COLUMN_KEYS.includes(k) || CELL_KEYS.includes(k)) return k;
    return null;
  }

  function focusPile(i) {
    const list = piles();
    if (!list.length) return;
    state.focus = (i + list.length) % list.length;
    rovingTabindex();
    list[state.focus].focus({ preventScroll: false });
  }

  function rovingTabindex() {
    piles().forEach((p, i) => {
      p.tabIndex = i === state.focus ? 0 : -1;
    });
  }

  function moveFocus(dir) {
    const list = piles();
    const cur = list[state.focus];
    if (!cur) return focusPile(0);
    const top = list.filter((p) => !p.classList.contains("pile-column"));
    const cols = list.filter((p) => p.classList.contains("pile-column"));
    const row = cur.classList.contains("pile-column") ? cols : top;
    const idx = row.indexOf(cur);
    if (dir === "left" || dir === "right") {
      const next = row[(idx + (dir === "left" ? -1 : 1) + row.length) % row.length];
      return focusPile(list.indexOf(next));
    }
    const other = row === cols ? top : cols;
    if (!other.length) return undefined;
    const cx = cur.getBoundingClientRect().left + cur.getBoundingClientRect().width / 2;
    let best = other[0];
    let bd = Infinity;
    for (const p of other) {
      const r = p.getBoundingClientRect();
      const d = Math.abs(r.left + r.width / 2 - cx);
      if (d < bd) {
        bd = d;
        best = p;
      }
    }
    return focusPile(list.indexOf(best));
  }

  function activateFocused() {
    const pile = piles()[state.focus];
    if (!pile) return;
    const place = pile.dataset.place;
    if (state.sel) {
      if (state.sel.place === place && place !== "h") {
        const s = state.sel;
        clearSelection(false);
        playBest(s.place, s.count || 1, s.cards);
      } else {
        dropSelectionOn(place);
      }
      return;
    }
    select(place, null, "key");
  }

  function onKeyDown(e) {
    if (e.defaultPrevented) return;
    if ($("dialog[open]")) return;
    const t = e.target;
    if (t && (t.tagName === "INPUT" || t.tagName === "TEXTAREA" || t.tagName === "SELECT" || t.isContentEditable)) return;
    const mod = e.ctrlKey || e.metaKey;
    const key = e.key;
    if (mod && !e.altKey) {
      const k = key.toLowerCase();
      if (k === "z" && !e.shiftKey) {
        e.preventDefault();
        doUndo();
      } else if (k === "y" || (k === "z" && e.shiftKey)) {
        e.preventDefault();
        doRedo();
      }
      return;
    }
    if (e.altKey) return;
    if (state.celebrating) return;
    const g = state.game;
    if (!g) return;
    if (key === "?") {
      e.preventDefault();
      openHelp();
      return;
    }
    if (key === "p" || key === "P") {
      e.preventDefault();
      togglePause();
      return;
    }
    if (g.paused) return;
    if (key === "Escape") {
      if (state.sel) {
        e.preventDefault();
        clearSelection(true);
      }
      return;
    }
    if ((key === "ArrowUp" || key === "ArrowDown") && e.shiftKey && state.sel) {
      e.preventDefault();
      resizeSelection(key === "ArrowUp" ? 1 : -1);
      return;
    }
    if (key.startsWith("Arrow")) {
      e.preventDefault();
      moveFocus(key.slice(5).toLowerCase());
      return;
    }
    if (key === "Enter" || key === " ") {
      const onButton = t && t.closest && t.closest("button, a");
      if (onButton) return;
      e.preventDefault();
      if (state.sel && state.sel.how === "key" && !(t && t.closest && t.closest(".pile"))) {
        const s = state.sel;
        clearSelection(false);
        playBest(s.place, s.count || 1, s.cards);
        return;
      }
      activateFocused();
      return;
    }
    const place = key.length === 1 ? keyToPlace(key) : null;
    if (!place) return;
    e.preventDefault();
    if (!state.sel) {
      select(place, null, "key");
      return;
    }
    const s = state.sel;
    clearSelection(false);
    if (s.place === place && place !== "h") playBest(s.place, s.count || 1, s.cards);
    else playNotation(s.place, place, s.count, s.cards);
  }

  // ---------------------------------------------------------------- actions

  function simpleAction(suffix, opts = {}) {
    return enqueue(async () => {
      if (!state.game) return;
      // Checked here, in turn: an earlier action may still have been on its way.
      if (opts.unless && opts.unless(state.game)) {
        showStatus(opts.unlessText);
        return;
      }
      clearHint();
      clearSelection(false);
      const before = snapshot();
      const r = await api("POST", gamePath(suffix), opts.body);
      if (!r.ok) {
        showStatus(r.error, "error");
        announce(r.error);
        return;
      }
      applyGame(r.data, { before, announce: false });
      if (opts.say) announce(opts.say);
    });
  }

  function doUndo() {
    simpleAction("/undo", {
      say: "Move taken back.",
      unless: (g) => !g.can_undo,
      unlessText: "Nothing to undo: this is the deal.",
    });
  }

  function doRedo() {
    simpleAction("/redo", { say: "Move played again.", unless: (g) => !g.can_redo, unlessText: "Nothing to redo." });
  }

  function doRestart() {
    simpleAction("/restart", { say: "Back to the deal." });
  }

  function togglePause() {
    const g = state.game;
    if (!g) return;
    if (!g.paused && g.status !== "playing") return;
    simpleAction(g.paused ? "/resume" : "/pause", { say: g.paused ? "Resumed." : "Paused. The clock is stopped." }).then(() => {
      if (!state.game.paused) focusPile(state.focus);
      else $("#btn-resume").focus();
    });
  }

  function clearHint() {
    window.clearTimeout(state.hintTimer);
    $$(".hint", board).forEach((el) => el.classList.remove("hint"));
  }

  function doHint() {
    enqueue(async () => {
      const g = state.game;
      if (!g || g.status !== "playing") return;
      clearHint();
      showStatus("Looking for a winning line…");
      const r = await api("GET", gamePath("/hint"));
      if (!r.ok) {
        showStatus(r.error, "error");
        return;
      }
      const h = r.data;
      if (h.move) {
        const mv = parseMove(h.move);
        const text = h.message || `Hint: ${h.move}`;
        if (mv) {
          const cards = cardsAt(mv.src, mv.count || 1);
          cards.forEach((c) => cardCache.get(c) && cardCache.get(c).classList.add("hint"));
          const src = pileFor(mv.src);
          if (!cards.length && src) src.classList.add("hint");
          let dst;
          if (mv.dst === "h" && cards.length) dst = pileFor("h", cards[0][1]);
          else dst = pileFor(mv.dst);
          if (dst) dst.classList.add("hint");
          const what = cards.length > 1 ? `${cards.length} cards from ${cardName(cards[0])}` : cards[0] ? cardName(cards[0]) : placeName(mv.src);
          const said = `Hint: ${what} to ${placeName(mv.dst)} (${h.move}).`;
          showStatus(h.message && h.message !== h.move ? `Hint: ${h.message}` : said, "good");
          announce(said);
        } else {
          showStatus(text, "good");
        }
        state.hintTimer = window.setTimeout(clearHint, 6000);
      } else {
        const msg = h.message || (h.verdict === "impossible" ? "no winning line from here" : "The solver found no answer in time.");
        showStatus(msg[0].toUpperCase() + msg.slice(1), h.verdict === "impossible" ? "error" : "");
        announce(msg);
      }
    });
  }

  const LEVELS = ["easy", "normal", "hard"];

  /** The body of POST /api/games for the next deal like this one. */
  function newGameBody(extra) {
    const g = state.game;
    let body = readJSON(app.dataset.newGame);
    if (!body || body.game !== g.game) {
      body = { game: g.game };
      if (LEVELS.includes(g.level)) body.level = g.level;
      if (g.game !== "bakers_dozen" && g.level !== "daily") body.cells = g.cells;
      if (g.level === "easy") body.winnable = true;
    }
    for (const k of Object.keys(body)) if (body[k] === null) delete body[k];
    if (body.daily === false) delete body.daily;
    if (body.winnable === false) delete body.winnable;
    return Object.assign(body, extra || {});
  }

  /** The body that deals this same deal again. */
  function replayBody() {
    const g = state.game;
    if (g.daily) return { game: g.game, daily: true };
    const body = { game: g.game };
    if (g.deal !== null && g.deal !== undefined) body.deal = g.deal;
    else body.position = (state.firstPosition && state.firstPosition[g.id]) || g.position;
    if (g.game !== "bakers_dozen") body.cells = g.cells;
    if (LEVELS.includes(g.level)) body.level = g.level;
    if (g.practice) body.practice = true;
    return body;
  }

  function startGame(body) {
    return enqueue(async () => {
      clearHint();
      clearSelection(false);
      const r = await api("POST", "/api/games", body);
      if (!r.ok) {
        showStatus(r.error, "error");
        announce(r.error);
        return;
      }
      closeDialog("#dlg-results");
      state.celebrating = false;
      fx.replaceChildren();
      board.classList.remove("celebrated");
      applyGame(r.data, { prev: null, animate: false });
      rememberGame(r.data, true);
      dealAnimation();
      const g = r.data;
      announce(`New deal: ${g.title}${g.deal ? ` number ${g.deal}` : ""}.`);
    });
  }

  function doNew() {
    const g = state.game;
    // Only a deal with at least one move made is worth the question (and
    // counts as a loss when replaced); an untouched one is simply put away.
    if (g && g.status === "playing" && g.played !== false) {
      const dlg = $("#dlg-new");
      $("#dlg-new-text").textContent = g.practice
        ? "This practice position is not finished. Starting a new deal leaves it (practice games are not counted)."
        : "This deal is not finished. Starting a new deal abandons it, and it counts as a lost game.";
      dlg.returnValue = "";
      dlg.showModal();
      dlg.addEventListener(
        "close",
        () => {
          if (dlg.returnValue === "replace") startGame(newGameBody({ replace: g.id }));
        },
        { once: true },
      );
      return;
    }
    // A blocked deal is lost already: it is replaced (and counted) without
    // asking; a deal without a move is replaced too, and the server counts nothing.
    const unfinished = g && (g.status === "blocked" || g.status === "playing");
    startGame(newGameBody(unfinished ? { replace: g.id } : {}));
  }

  function doReplay() {
    startGame(replayBody());
  }

  function dealAnimation() {
    if (!motionOK()) return;
    const origin = board.getBoundingClientRect();
    const before = new Map();
    for (const el of $$(".card", tableau)) {
      before.set(el.dataset.card, { left: origin.left + origin.width / 2 - 30, top: origin.top - 40 });
    }
    const delays = new Map();
    $$(".pile-column", tableau).forEach((pile, ci) => {
      $$(".card", pile).forEach((el, i) => delays.set(el.dataset.card, (i * $$(".pile-column", tableau).length + ci) * 9));
    });
    animateFrom(before, delays, 260);
  }

  // ---------------------------------------------------------------- dialogs

  function closeDialog(sel) {
    const d = $(sel);
    if (d && d.open) d.close();
  }

  function openHelp() {
    const g = state.game;
    $$("#dlg-help [data-help]").forEach((s) => {
      s.hidden = !!g && s.dataset.help !== g.game;
    });
    if (g) $("#help-rules").href = `/rules/${g.game}`;
    const d = $("#dlg-help");
    if (!d.open) d.showModal();
  }

  function openSettings() {
    const f = $("#settings-form");
    const g = state.game;
    const st = (g && g.settings) || {};
    for (const el of f.elements) {
      if (el.name === "autoplay") el.checked = el.value === (st.autoplay || "safe");
      if (el.name === "order") el.checked = el.value === (st.order || "cell_first");
      if (el.name === "clickmode") el.checked = el.value === prefs.clickmode;
      if (el.name === "fourcolour") el.checked = !!prefs.fourcolour;
      if (el.name === "sound") el.checked = !!prefs.sound;
    }
    const orderSet = $$('input[name="order"]', f);
    orderSet.forEach((el) => {
      el.disabled = !!g && g.game === "bakers_dozen";
    });
    $("#dlg-settings").showModal();
  }

  function onSettingChange(e) {
    const el = e.target;
    if (el.name === "clickmode") {
      prefs.clickmode = el.value;
      clearSelection(false);
    } else if (el.name === "fourcolour") {
      prefs.fourcolour = el.checked;
    } else if (el.name === "sound") {
      prefs.sound = el.checked;
      if (el.checked) sound("move");
    } else if (el.name === "autoplay" || el.name === "order") {
      const body = { [el.name]: el.value };
      enqueue(async () => {
        const before = snapshot();
        const r = await api("POST", gamePath("/settings"), body);
        if (!r.ok) {
          showStatus(r.error, "error");
          return;
        }
        applyGame(r.data, { before, announce: false });
        showStatus(el.name === "autoplay" ? `Autoplay ${el.value === "off" ? "off" : "on: safe moves go home by themselves"}.` : "Best-place order saved.");
      });
      return;
    }
    savePrefs();
    applyPrefs();
  }

  function applyPrefs() {
    document.body.classList.toggle("four-colour", !!prefs.fourcolour);
    document.body.dataset.clickmode = prefs.clickmode;
  }

  // ------------------------------------------------------------ celebration

  function celebrate() {
    const g = state.game;
    if (!g || g.status !== "won" || state.celebrating) return;
    sound("win");
    if (!motionOK()) {
      showResults();
      return;
    }
    state.celebrating = true;
    for (const v of ["--cw", "--ch", "--rf"]) fx.style.setProperty(v, board.style.getPropertyValue(v));
    fx.classList.toggle("small-cards", board.classList.contains("small-cards"));
    const found = $$(".pile-foundation", foundRow);
    const H = window.innerHeight;
    let last = 0;
    let k = 0;
    for (let rank = 13; rank >= 1; rank--) {
      for (const pile of found) {
        const el = $(`.card[data-card="${RANKS[rank - 1]}${pile.dataset.suit}"]`, pile);
        if (!el) continue;
        const r = el.getBoundingClientRect();
        const ghost = el.cloneNode(true);
        ghost.removeAttribute("data-card");
        ghost.removeAttribute("aria-label");
        ghost.className = `${el.className.replace(/\bflying\b/, "")} ghost-card`;
        ghost.style.left = `${r.left}px`;
        ghost.style.top = `${r.top}px`;
        ghost.style.width = `${r.width}px`;
        ghost.style.height = `${r.height}px`;
        ghost.style.zIndex = String(200 - k); // the first one launched flies on top
        fx.appendChild(ghost);
        const vx = (Math.random() < 0.5 ? -1 : 1) * (2 + Math.random() * 5);
        const frames = [];
        let x = 0;
        let y = 0;
        let vy = -Math.random() * 6;
        const floor = H - r.top - r.height;
        for (let f = 0; f < 70; f++) {
          x += vx;
          vy += 0.9;
          y += vy;
          if (y > floor) {
            y = floor;
            vy = -vy * 0.72;
          }
          frames.push({ transform: `translate(${x.toFixed(1)}px, ${y.toFixed(1)}px)`, opacity: 1 });
        }
        frames.push({ transform: `translate(${(x + vx * 10).toFixed(1)}px, ${y.toFixed(1)}px)`, opacity: 0 });
        const delay = k * 45;
        ghost.animate(frames, { duration: 1500, delay, easing: "linear", fill: "both" });
        last = Math.max(last, delay + 1500);
        k++;
      }
    }
    board.classList.add("celebrated");
    const finish = () => {
      if (!state.celebrating) return;
      state.celebrating = false;
      fx.replaceChildren();
      board.classList.remove("celebrated");
      showResults();
    };
    window.setTimeout(finish, Math.min(last, 3200));
    fx.addEventListener("pointerdown", finish, { once: true });
    document.addEventListener("keydown", finish, { once: true });
  }

  async function showResults() {
    const g = state.game;
    if (!g) return;
    const d = $("#dlg-results");
    const sc = g.score || {};
    $("#r-moves").textContent = String(sc.moves ?? (g.moves || []).length);
    $("#r-time").textContent = fmtTime(sc.seconds || 0);
    $("#r-score").textContent = String(Math.round(sc.score ?? 0));
    $("#dlg-results-h").textContent = g.status === "won" ? "You won!" : "Game over";
    $("#r-stats-h").textContent = `Your record: ${g.title}, ${levelName(g.level)}`;
    const list = $("#r-stats");
    list.replaceChildren();
    if (!d.open) d.showModal();
    if (g.practice) {
      $("#r-stats-h").textContent = "Practice";
      list.insertAdjacentHTML("beforeend", "<div><dt>Statistics</dt><dd>practice games are not counted</dd></div>");
      return;
    }
    const r = await api("GET", `/api/stats?game=${encodeURIComponent(g.game)}&level=${encodeURIComponent(g.level || "")}`);
    const row = r.ok && r.data && (r.data.stats || []).find((s) => s.game === g.game && (!g.level || s.level === g.level));
    if (!row) {
      list.insertAdjacentHTML("beforeend", "<div><dt>Statistics</dt><dd>not available</dd></div>");
      return;
    }
    const items = [
      ["Played", row.played],
      ["Won", row.won],
      ["Lost", row.lost],
      ["Win rate", row.win_rate === null || row.win_rate === undefined ? "–" : `${Math.round(row.win_rate * (row.win_rate <= 1 ? 100 : 1))}%`],
      ["Current streak", row.current_streak],
      ["Best streak", row.best_streak],
      ["Best time", row.best_time === null || row.best_time === undefined ? "–" : fmtTime(row.best_time)],
      ["Fewest moves", row.fewest_moves ?? "–"],
      ["Best score", row.best_score === null || row.best_score === undefined ? "–" : Math.round(row.best_score)],
    ];
    for (const [k, v] of items) {
      const div = document.createElement("div");
      const dt = document.createElement("dt");
      const dd = document.createElement("dd");
      dt.textContent = k;
      dd.textContent = String(v ?? "–");
      div.append(dt, dd);
      list.appendChild(div);
    }
  }

  function onResultsClose() {
    const v = $("#dlg-results").returnValue;
    if (v === "new") startGame(newGameBody());
    else if (v === "replay") doReplay();
    else if (v === "home") window.location.href = "/";
  }

  // ------------------------------------------------------------ URL & boot

  function rememberGame(g, replaceUrl) {
    state.firstPosition = state.firstPosition || {};
    if (!(g.moves || []).length) state.firstPosition[g.id] = g.position;
    const url = replaceUrl ? `/game/${encodeURIComponent(g.id)}` : window.location.pathname + window.location.search;
    try {
      window.history.replaceState({ gameId: g.id }, "", url);
    } catch (_e) {
      /* file:// or sandboxed: the URL stays */
    }
  }

  async function boot() {
    applyPrefs();
    let g = null;
    const hash = /(?:^#|&)game=([^&]+)/.exec(window.location.hash || "");
    if (hash) {
      const r = await api("GET", `/api/games/${encodeURIComponent(decodeURIComponent(hash[1]))}`);
      if (r.ok) g = r.data;
    }
    if (!g && app.dataset.game) g = readJSON(app.dataset.game);
    let fresh = false;
    if (!g && app.dataset.newGame && !app.dataset.game) {
      const body = readJSON(app.dataset.newGame) || {};
      const r = await api("POST", "/api/games", body);
      if (!r.ok) {
        $("#title").textContent = "This deal cannot be dealt";
        showStatus(r.error, "error");
        return;
      }
      g = r.data;
      fresh = true;
    }
    if (!g) {
      $("#title").textContent = "No game here";
      showStatus("This page has no game: go back to the home page to deal one.", "error");
      return;
    }
    applyGame(g, { prev: null, animate: false, initial: true, announce: false });
    rememberGame(g, !!hash || fresh);
    if (fresh) dealAnimation();
    board.dataset.ready = "true";
    app.dataset.ready = "true";
  }

  // ---------------------------------------------------------------- wiring

  board.addEventListener("pointerdown", onPointerDown);
  board.addEventListener("pointermove", onPointerMove);
  board.addEventListener("pointerup", onPointerUp);
  board.addEventListener("pointercancel", onPointerCancel);
  board.addEventListener("lostpointercapture", (e) => {
    if (drag && drag.started && e.pointerId === drag.id) onPointerCancel(e);
  });
  board.addEventListener("click", (e) => {
    if (e.target.closest(".card")) return;
    const pile = e.target.closest(".pile");
    if (pile) {
      state.focus = piles().indexOf(pile);
      rovingTabindex();
      tapPile(pile.dataset.place);
    }
  });
  board.addEventListener("dragstart", (e) => e.preventDefault());
  board.addEventListener("focusin", (e) => {
    const pile = e.target.closest && e.target.closest(".pile");
    if (pile) {
      const i = piles().indexOf(pile);
      if (i >= 0 && i !== state.focus) {
        state.focus = i;
        rovingTabindex();
      }
    }
  });
  document.addEventListener("keydown", onKeyDown);

  $("#btn-undo").addEventListener("click", doUndo);
  $("#btn-redo").addEventListener("click", doRedo);
  $("#btn-restart").addEventListener("click", doRestart);
  $("#btn-new").addEventListener("click", doNew);
  $("#btn-hint").addEventListener("click", doHint);
  $("#btn-pause").addEventListener("click", togglePause);
  $("#btn-resume").addEventListener("click", togglePause);
  $("#btn-settings").addEventListener("click", openSettings);
  $("#btn-help").addEventListener("click", openHelp);
  $("#settings-form").addEventListener("change", onSettingChange);
  $("#dlg-results").addEventListener("close", onResultsClose);
  $("#blocked").addEventListener("click", (e) => {
    const b = e.target.closest("button");
    if (!b) return;
    if (b.dataset.act === "undo") doUndo();
    else if (b.dataset.act === "restart") doRestart();
    else if (b.dataset.act === "new") doNew();
  });
  $$("dialog").forEach((d) =>
    d.addEventListener("click", (e) => {
      // A click on the backdrop closes the dialog (except the results).
      if (e.target === d && d.id !== "dlg-results") d.close("cancel");
    }),
  );

  frame.addEventListener("scroll", edgeButtons, { passive: true });
  for (const [id, dir] of [["#scroll-left", -1], ["#scroll-right", 1]]) {
    $(id).addEventListener("click", () =>
      frame.scrollBy({ left: dir * frame.clientWidth * 0.7, behavior: motionOK() ? "smooth" : "auto" }),
    );
  }

  let resizeFrame = 0;
  window.addEventListener("resize", () => {
    cancelAnimationFrame(resizeFrame);
    resizeFrame = requestAnimationFrame(() => layout());
  });
  window.setInterval(tick, 250);

  boot();
})();
