/* Drawing: cards, piles, the layout that fits the window, the score line,
 * the status line and what a screen reader hears. Reads the model; sends
 * nothing. */
import { cardScale, motionOn, printScale } from "./taste.js";
import { fmtTime } from "./api.js";
import { RANKS, cardName, liveScore, placeName, state, suitName } from "./model.js";

export const $ = (sel, root = document) => root.querySelector(sel);
export const $$ = (sel, root = document) => Array.from(root.querySelectorAll(sel));

export const el = {
  app: $("#app"), frame: $("#frame"), board: $("#board"), cells: $("#cells"),
  found: $("#foundations"), tableau: $("#tableau"), status: $("#status"), announcer: $("#announce"),
};
export const cardCache = new Map();
let shape = "";

export const motionOK = () => motionOn(); // the player's animation speed (off by default for reduced motion)

export function showStatus(text, kind) {
  // the server's reasons are phrases ("this run has 4 cards; …"): shown as sentences
  const said = text || "";
  el.status.textContent = said && said[0].toUpperCase() + said.slice(1);
  el.status.classList.toggle("error", kind === "error");
  el.status.classList.toggle("good", kind === "good");
}

export function announce(text) {
  el.announcer.textContent = ""; // the same text again must be read again
  window.setTimeout(() => {
    el.announcer.textContent = text;
  }, 30);
}

const suitSvg = (suit, cls) =>
  `<svg class="${cls}" viewBox="0 0 100 100" aria-hidden="true" focusable="false"><use href="#suit-${suit}"/></svg>`;

/* Court cards: a framed panel with the rank's headdress (crown, coronet or
 * plumed cap), a serif monogram and the suit, drawn here in SVG. */
const HEADDRESS = {
  K: "M22 40 L22 22 L34 32 L50 14 L66 32 L78 22 L78 40 Z",
  Q: "M24 40 Q26 26 36 30 Q42 16 50 24 Q58 16 64 30 Q74 26 76 40 Z",
  J: "M26 40 Q30 22 50 22 Q70 22 74 40 Z M60 22 Q74 8 82 14 Q72 14 64 26 Z",
};

function courtSvg(rank, suit) {
  return (
    `<svg class="court" viewBox="0 0 100 140" aria-hidden="true" focusable="false">` +
    `<rect x="6" y="6" width="88" height="128" rx="8" class="court-frame"/>` +
    `<rect x="12" y="12" width="76" height="116" rx="5" class="court-inner"/>` +
    `<path d="${HEADDRESS[rank]}" class="court-crown"/>` +
    `<circle cx="50" cy="44" r="3" class="court-jewel"/>` +
    `<text x="50" y="96" text-anchor="middle" class="court-letter">${rank}</text>` +
    `<svg x="38" y="104" width="24" height="24" viewBox="0 0 100 100"><use href="#suit-${suit}"/></svg>` +
    `</svg>`
  );
}

export function cardEl(code) {
  let c = cardCache.get(code);
  if (c) return c;
  const [r, s] = code;
  const shown = r === "T" ? "10" : r;
  c = document.createElement("div");
  c.className = `card suit-${s} ${s === "H" || s === "D" ? "red" : "black"}${r === "T" ? " ten" : ""}`;
  c.dataset.card = code;
  c.setAttribute("role", "img");
  c.setAttribute("aria-label", cardName(code));
  const centre = "JQK".includes(r)
    ? `<span class="face">${courtSvg(r, s)}</span>`
    : `<span class="pip${r === "A" ? " ace" : ""}">${suitSvg(s, "big")}</span>`;
  c.innerHTML =
    `<span class="corner tl"><b>${shown}</b>${suitSvg(s, "small")}</span>` +
    `${suitSvg(s, "corner-suit")}${centre}` +
    `<span class="corner br"><b>${shown}</b>${suitSvg(s, "small")}</span>`;
  cardCache.set(code, c);
  return c;
}

function pileEl(kind, place, extra) {
  const p = document.createElement("div");
  p.className = `pile pile-${kind}`;
  p.dataset.place = place;
  p.tabIndex = -1;
  p.setAttribute("role", "group");
  const key = document.createElement("span");
  key.className = "key";
  key.setAttribute("aria-hidden", "true");
  key.textContent = place;
  p.appendChild(key);
  if (extra) extra(p);
  return p;
}

export function piles() {
  return [...$$(".pile", el.cells), ...$$(".pile", el.found), ...$$(".pile", el.tableau)];
}

export function pileFor(place, suit) {
  const r = state.game.rules.places;
  if (place === r.foundation) return $(`.pile-foundation${suit ? `[data-suit="${suit}"]` : ""}`, el.found);
  return $(`.pile[data-place="${place}"]:not(.pile-foundation)`, el.board);
}

export function rovingTabindex() {
  piles().forEach((p, i) => {
    p.tabIndex = i === state.focus ? 0 : -1;
  });
}

export function focusPile(i) {
  const list = piles();
  if (!list.length) return;
  state.focus = (i + list.length) % list.length;
  rovingTabindex();
  list[state.focus].focus();
}

/** Arrow keys: along the row, or to the nearest pile of the row drawn above
 * or below (the columns may take two rows). */
export function moveFocus(dir) {
  const list = piles();
  const cur = list[state.focus];
  if (!cur) return focusPile(0);
  const cols = list.filter((p) => p.classList.contains("pile-column"));
  const top = list.filter((p) => !p.classList.contains("pile-column"));
  const row = cols.includes(cur) ? cols : top;
  if (dir === "left" || dir === "right") {
    return focusPile(list.indexOf(row[(row.indexOf(cur) + (dir === "left" ? -1 : 1) + row.length) % row.length]));
  }
  const lines = [];
  for (const p of list) {
    const y = p.getBoundingClientRect().top;
    const line = lines.find((l) => Math.abs(l.y - y) < 2);
    if (line) line.piles.push(p);
    else lines.push({ y, piles: [p] });
  }
  lines.sort((a, b) => a.y - b.y);
  const at = lines.findIndex((l) => l.piles.includes(cur));
  const other = lines[(at + (dir === "up" ? -1 : 1) + lines.length) % lines.length].piles;
  if (!other.length || other.includes(cur)) return undefined;
  const centre = (p) => p.getBoundingClientRect().left + p.getBoundingClientRect().width / 2;
  const best = other.reduce((a, b) => (Math.abs(centre(b) - centre(cur)) < Math.abs(centre(a) - centre(cur)) ? b : a));
  return focusPile(list.indexOf(best));
}

function buildPiles(g) {
  const r = g.rules.places;
  const now = `${g.game}/${r.cells.length}/${r.columns.length}`;
  if (now === shape) return;
  shape = now;
  el.cells.replaceChildren(...r.cells.map((p) => pileEl("cell", p)));
  el.found.replaceChildren(
    ...r.foundation_suits.map((suit) =>
      pileEl("foundation", r.foundation, (p) => {
        p.dataset.suit = suit;
        p.insertAdjacentHTML("beforeend", suitSvg(suit, "ghost"));
      }),
    ),
  );
  el.tableau.replaceChildren(...r.columns.map((p) => pileEl("column", p)));
  el.board.dataset.game = g.game;
  el.board.dataset.columns = String(r.columns.length);
  el.board.classList.toggle("no-cells", r.cells.length === 0);
  state.focus = Math.min(state.focus, piles().length - 1);
  rovingTabindex();
}

function fillCards(g) {
  const live = new Set();
  const put = (pile, codes) => {
    const els = codes.map(cardEl);
    const now = $$(".card", pile);
    const same = now.length === els.length && now.every((c, i) => c === els[i]);
    els.forEach((c, i) => {
      c.style.zIndex = String(i + 1);
      c.dataset.index = String(i);
      if (!same) pile.appendChild(c);
      live.add(c.dataset.card);
    });
    if (!same) for (const c of now) if (!els.includes(c) && c.parentNode === pile) c.remove();
  };
  $$(".pile-column", el.tableau).forEach((pile, ci) => {
    const col = g.columns[ci] || [];
    put(pile, col);
    const n = col.length;
    const name = placeName(pile.dataset.place);
    pile.setAttribute("aria-label", `${name[0].toUpperCase()}${name.slice(1)}` + (n ? `, ${n} card${n > 1 ? "s" : ""}, top card ${cardName(col[n - 1])}` : ", empty"));
    pile.classList.toggle("empty", n === 0);
  });
  $$(".pile-cell", el.cells).forEach((pile, i) => {
    const code = g.freecells[i];
    put(pile, code ? [code] : []);
    pile.setAttribute("aria-label", `Free cell ${pile.dataset.place}` + (code ? `, ${cardName(code)}` : ", empty"));
    pile.classList.toggle("empty", !code);
  });
  $$(".pile-foundation", el.found).forEach((pile) => {
    const suit = pile.dataset.suit;
    const top = g.foundations[suit] || 0;
    const codes = [];
    for (let r = 1; r <= top; r++) codes.push(RANKS[r - 1] + suit);
    put(pile, codes);
    const s = suitName(suit);
    pile.setAttribute("aria-label", `${s[0].toUpperCase()}${s.slice(1)} foundation` + (top ? `, up to ${cardName(RANKS[top - 1] + suit)}` : ", empty"));
    pile.classList.toggle("empty", top === 0);
  });
  for (const [code, c] of cardCache) if (!live.has(code) && c.parentNode) c.remove();
}

/** Cards sized so the top row and the columns fit the window: narrower
 * cards when there are many columns, shorter overlaps when columns grow
 * long. Many columns on a narrow screen (Baker's Dozen's thirteen on a
 * phone) go in two rows when that gives bigger cards; fanned cards use the
 * height there is. */
export function layout() {
  const g = state.game;
  if (!g) return;
  const ncols = g.rules.places.columns.length;
  const ncells = g.rules.places.cells.length;
  const frameW = el.frame.clientWidth;
  const frameTop = Math.max(0, el.frame.getBoundingClientRect().top + window.scrollY);
  // a short window (a phone held sideways) fits what it can rather than scroll
  const availH = Math.max(Math.min(300, window.innerHeight * 0.6), window.innerHeight - frameTop - 8);
  const longest = Math.max(12, ...g.columns.map((c) => c.length));
  const stripOf = (w) => Math.round(Math.max(11, Math.round(w * 0.21)) * 1.12 + w * 0.05 + 2);
  const fit = (rows) => {
    const perRow = Math.ceil(ncols / rows);
    const slots = Math.max(perRow, ncells + 4);
    const gap = Math.max(3, Math.min(14, Math.round((frameW / slots) * 0.1)));
    const rowGap = gap + 14; // room for the next row's place letters
    const need = (w) => 1.4 * w * (rows + 1) + 2 * gap + 34 + (rows - 1) * rowGap + rows * (longest - 1) * stripOf(w);
    const wide = Math.floor((frameW - (slots + 1) * gap) / slots);
    let cw = Math.min(wide, 124);
    while (cw > 40 && need(cw) > availH) cw -= 1;
    return { rows, perRow, slots, gap, rowGap, cw: Math.max(cw, Math.min(40, wide)) };
  };
  let best = fit(1);
  if (ncols > 8) {
    const two = fit(2);
    if (two.cw > best.cw) best = two;
  }
  const { rows, perRow, slots, gap, rowGap } = best;
  const cw = Math.max(32, Math.round(best.cw * cardScale())); // the player's card size
  const ch = Math.round(cw * 1.4);
  const strip = stripOf(cw);
  // a portrait screen has height to spare under width-bound cards: fan them
  // wider apart there (more of each card shows, and bigger touch targets),
  // as far as the column room allows
  const portrait = availH > 1.3 * frameW;
  const fan = Math.max(strip, Math.round(portrait ? ch * 0.8 : cw < 62 ? ch * 0.42 : cw * 0.3));
  const st = el.board.style;
  st.setProperty("--cw", `${cw}px`);
  st.setProperty("--ch", `${ch}px`);
  st.setProperty("--gap", `${gap}px`);
  st.setProperty("--rf", `${Math.max(11, Math.round(cw * 0.21 * printScale()))}px`);
  st.setProperty("--per-row", String(perRow));
  el.board.classList.toggle("small-cards", cw < 62);
  el.board.classList.toggle("tiny-cards", cw < 34);
  el.board.classList.toggle("two-rows", rows === 2);
  const boardW = Math.ceil(slots * cw + (slots + 1) * gap);
  st.minWidth = `${boardW}px`;
  st.width = frameW >= boardW ? "100%" : `${boardW}px`;
  // the room under the top row, measured now that the sizes are set
  const above = el.tableau.getBoundingClientRect().top + window.scrollY - frameTop;
  const colRoom = Math.max(ch, (availH - above - (rows - 1) * rowGap) / rows);
  const tallest = new Array(rows).fill(ch);
  $$(".pile-column", el.tableau).forEach((pile, ci) => {
    const cards = $$(".card", pile);
    const n = cards.length;
    const off = n > 1 ? Math.max(strip, Math.min(fan, (colRoom - ch) / (n - 1))) : fan;
    cards.forEach((c, i) => {
      c.style.top = `${Math.round(i * off)}px`;
    });
    const h = ch + Math.max(0, n - 1) * off;
    pile.style.height = `${Math.ceil(h)}px`;
    const row = Math.floor(ci / perRow);
    tallest[row] = Math.max(tallest[row], h);
  });
  $$(".pile-cell .card, .pile-foundation .card", el.board).forEach((c) => {
    c.style.top = "0px";
  });
  const height = tallest.reduce((a, b) => a + b, 0) + (rows - 1) * rowGap;
  el.tableau.style.minHeight = `${Math.ceil(height + gap)}px`;
}

export function markSelection() {
  $$(".card.selected", el.board).forEach((c) => c.classList.remove("selected"));
  $$(".pile.source", el.board).forEach((p) => p.classList.remove("source"));
  const s = state.sel;
  if (!s) return;
  for (const code of s.cards) cardCache.get(code)?.classList.add("selected");
  pileFor(s.place)?.classList.add("source");
}

/** The score line, ticking between answers by the server's own rule. */
export function tick() {
  const g = state.game;
  if (!g) return;
  const { seconds, score } = liveScore();
  const t = fmtTime(seconds);
  if ($("#s-time").textContent !== t) $("#s-time").textContent = t;
  if ($("#s-score").textContent !== String(score)) $("#s-score").textContent = String(score);
}

export function updateChrome() {
  const g = state.game;
  const where = g.daily ? `Daily deal ${g.daily}` : g.deal !== null ? `Deal ${g.deal}` : "Own position";
  const bits = [g.lesson ? `Lesson ${g.lesson.number}: ${g.lesson.title}` : where];
  if (g.practice) bits.push("Practice");
  else if (!g.daily) bits.push(g.level_label);
  if (g.rules.max_cells > 0) bits.push(`${g.cells} cell${g.cells === 1 ? "" : "s"}`);
  $("#title").textContent = g.title;
  $("#subtitle").textContent = bits.join(" · ");
  const what = g.lesson ? `lesson ${g.lesson.number}` : g.daily ? "daily deal" : g.deal ? "#" + g.deal : "";
  document.title = `${g.title} ${what} · bakers`.replace(/\s+/g, " ");
  $("#s-moves").textContent = String(g.score.moves);
  $("#s-home").textContent = String(g.score.home);
  $("#s-score").closest("div").hidden = !!g.lesson; // a lesson keeps no score
  const playing = g.status === "playing";
  $("#btn-undo").disabled = !g.can_undo;
  $("#btn-redo").disabled = !g.can_redo;
  $("#btn-hint").disabled = !playing || g.paused;
  $("#btn-solution").disabled = !playing || g.paused; // nothing to show once the game is over
  $("#btn-restart").disabled = !g.can_undo || !(playing || g.status === "blocked"); // moves may be the deal's own
  $("#btn-finish").hidden = !g.can_finish || g.paused;
  $("#btn-pause").disabled = !playing;
  $("#btn-pause").setAttribute("aria-pressed", g.paused ? "true" : "false");
  $("#btn-pause .lbl").textContent = g.paused ? "Resume" : "Pause";
  el.frame.classList.toggle("is-paused", !!g.paused);
  $("#paused").hidden = !g.paused;
  el.board.setAttribute("aria-hidden", g.paused ? "true" : "false");
  const blocked = $("#blocked");
  blocked.hidden = g.status !== "blocked";
  if (g.status === "blocked") {
    $("#blocked-text").textContent = g.message;
    $('#blocked [data-act="undo"]').disabled = !g.can_undo;
    $('#blocked [data-act="restart"]').disabled = !g.can_undo; // moves may be the deal's own
  }
  const level = g.rules.levels.find((lv) => lv.name === g.level);
  const toggle = $("#winnable-only");
  toggle.disabled = !!(level && level.winnable) || !!g.daily;
  if (toggle.dataset.game !== g.id) {
    toggle.checked = !!g.winnable;
    toggle.dataset.game = g.id;
  }
  el.app.dataset.status = g.status;
  tick();
}

/** Draw the model. */
export function render() {
  const g = state.game;
  if (!g) return;
  $$(".card.dragging", el.board).forEach((c) => {
    c.classList.remove("dragging");
    c.style.transform = "";
  });
  buildPiles(g);
  fillCards(g);
  markSelection();
  updateChrome();
  layout(); // last: the chrome's texts set how much height is left
}

/* The bars above the table can change height after a render (a status or
 * a rating that wraps, the blocked banner): lay the table out again. */
const chrome = new ResizeObserver(() => layout());
for (const bar of [".topbar", ".infobar", "#blocked"]) {
  const node = $(bar);
  if (node) chrome.observe(node);
}
