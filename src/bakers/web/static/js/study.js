/* Studying at the table: the "still winnable?" indicator, the deal's
 * rating, which move lost the game (on the results screen), and the
 * solution played back. Every verdict comes from the server's solver; the
 * page only shows it. */
import { api, gamePath } from "./api.js";
import { animateFrom, delaysFor, snapshot } from "./animate.js";
import { cardName, placeName, state } from "./model.js";
import { $, announce, render, showStatus } from "./render.js";

const SUIT = { C: "♣", D: "♦", H: "♥", S: "♠" };
const shown = (code) => `${code[0] === "T" ? "10" : code[0]}${SUIT[code[1]]}`;

// ------------------------------------------------------------ the indicator

let asked = null; // {id, moves, controller, at}
let askedAgain = null; // "id/moves" of the position last asked about again

/** After every answer the page draws: ask for the verdict on the new
 * position (never holding up the move), dropping any older question. */
export function afterAnswer(g) {
  const box = $("#indicator");
  if (!box) return;
  if (asked && (asked.id !== g.id || asked.moves !== g.moves.length)) {
    asked.controller.abort();
    asked = null;
  }
  const on = !!(g.study && g.study.indicator) && !state.playback;
  box.hidden = !on || g.status === "won";
  if (!on || g.status === "won") return;
  if (asked) return; // the same position is being decided already
  if (box.dataset.moves === String(g.moves.length) && box.dataset.id === g.id && box.dataset.verdict !== "pending") return;
  const controller = new AbortController();
  asked = { id: g.id, moves: g.moves.length, controller, at: performance.now() };
  const mine = asked;
  box.dataset.verdict = "pending";
  box.dataset.id = g.id;
  box.dataset.moves = String(g.moves.length);
  box.className = "indicator pending";
  box.textContent = "Still winnable? Checking…";
  fetch(gamePath(g.id, `/verdict?moves=${g.moves.length}`), { headers: { Accept: "application/json" }, credentials: "same-origin", signal: controller.signal })
    .then((res) => (res.ok ? res.json() : null))
    .then((v) => {
      if (asked !== mine) return; // a later move took over
      asked = null;
      const now = state.game;
      if (!v || !now || now.id !== g.id || now.moves.length !== mine.moves) return;
      if (v.stale || v.moves !== mine.moves) {
        // another question took this one's place and was then dropped: ask
        // again, once for a position (two pages of one game would take turns)
        const key = `${g.id}/${mine.moves}`;
        if (askedAgain !== key) {
          askedAgain = key;
          afterAnswer(now);
        }
        return;
      }
      showVerdict(box, v, performance.now() - mine.at);
    })
    .catch(() => {
      if (asked === mine) asked = null;
    });
}

/** A move of the record (from 1) numbered as the player counts moves: the
 * server numbers them (autoplayed cards share their move's number). */
function playerMove(index) {
  const n = state.game && state.game.move_numbers ? state.game.move_numbers[index - 1] : null;
  return n || index;
}

function showVerdict(box, v, ms) {
  const before = box.dataset.said;
  let text;
  let kind;
  if (v.verdict === "winnable") {
    text = "Still winnable";
    kind = "good";
  } else if (v.verdict === "impossible") {
    text = v.lost_at ? `No longer winnable: since move ${playerMove(v.lost_at)} (${v.lost_move})` : "No longer winnable";
    kind = "lost";
  } else {
    text = "Still winnable? Not proven within the time allowed";
    kind = "unknown";
  }
  box.dataset.verdict = v.verdict || "off";
  box.dataset.lostAt = v.lost_at ? String(v.lost_at) : "";
  box.dataset.latency = String(Math.round(ms));
  box.className = `indicator ${kind}`;
  box.textContent = text;
  box.dataset.said = text;
  if (before && before !== text && v.verdict === "impossible") announce(text + ".");
}

export async function setIndicator(on) {
  const g = state.game;
  if (!g) return null;
  return api("POST", gamePath(g.id, "/indicator"), { on });
}

// ------------------------------------------------------------- the rating

const ratings = new Map();

export async function ratingText(g) {
  if (g.deal === null || g.deal === undefined) return "";
  const key = `${g.game}/${g.cells}/${g.deal}`;
  if (!ratings.has(key)) {
    const r = await api("GET", gamePath(g.id, "/rating"));
    if (!r.ok || !r.data || !r.data.rating) return "";
    ratings.set(key, r.data);
  }
  const x = ratings.get(key);
  if (x.verdict !== "winnable") return `Rating: ${x.rating}`;
  const bits = [];
  if (x.fewest_cells !== null && x.fewest_cells !== undefined) bits.push(`wins with ${x.fewest_cells} cell${x.fewest_cells === 1 ? "" : "s"}`);
  bits.push(`${x.player_moves} player moves`);
  return `Rating: ${x.rating} (${bits.join(", ")})`;
}

export async function showRating(g) {
  const chip = $("#rating");
  if (!chip) return;
  const text = await ratingText(g);
  if (state.game && state.game.id === g.id) {
    chip.textContent = text;
    // a rating says whether the deal can be won: shown in play only when the
    // player asks (a setting); the results screen always shows it
    chip.hidden = !text || document.body.dataset.showrating !== "true";
  }
}

// ------------------------------------------------- which move lost it

function miniBoard(pos, played, alive) {
  const box = document.createElement("div");
  box.className = "mini-board";
  const mark = (code) => {
    if (played && played.cards.includes(code)) return " mini-lost";
    if (alive && alive.cards.includes(code)) return " mini-alive";
    return "";
  };
  const card = (code) => {
    const s = document.createElement("span");
    s.className = `mini-card ${code[1] === "H" || code[1] === "D" ? "red" : "black"}${mark(code)}`;
    s.textContent = shown(code);
    s.title = cardName(code);
    return s;
  };
  const top = document.createElement("div");
  top.className = "mini-top";
  const cellsLabel = document.createElement("span");
  cellsLabel.className = "mini-label";
  cellsLabel.textContent = "Cells";
  top.append(cellsLabel);
  pos.freecells.forEach((c) => {
    if (c) top.append(card(c));
    else {
      const e = document.createElement("span");
      e.className = "mini-card empty";
      e.textContent = "·";
      top.append(e);
    }
  });
  const home = document.createElement("span");
  home.className = "mini-label";
  home.textContent = "Home";
  top.append(home);
  for (const [suit, rank] of Object.entries(pos.foundations)) {
    const e = document.createElement("span");
    e.className = `mini-card ${suit === "H" || suit === "D" ? "red" : "black"}`;
    e.textContent = rank ? shown(`${"A23456789TJQK"[rank - 1]}${suit}`) : `–${SUIT[suit]}`;
    top.append(e);
  }
  box.append(top);
  const cols = document.createElement("div");
  cols.className = "mini-columns";
  pos.columns.forEach((col, i) => {
    const c = document.createElement("div");
    c.className = "mini-column";
    const n = document.createElement("span");
    n.className = "mini-label";
    n.textContent = String(state.game.rules.places.columns[i]);
    c.append(n);
    col.forEach((code) => c.append(card(code)));
    cols.append(c);
  });
  box.append(cols);
  return box;
}

function moveWords(m) {
  if (!m) return "";
  const what = m.cards.length > 1 ? `${m.cards.length} cards from ${cardName(m.cards[0])}` : cardName(m.cards[0]);
  return `${what} to ${placeName(m.to)}`;
}

/** On the results screen of a lost, blocked or abandoned game: the move
 * after which it could no longer be won, on a small board. */
export async function showAnalysis(g) {
  const box = $("#r-analysis");
  if (!box) return;
  box.replaceChildren();
  box.hidden = g.status === "won" || !g.score.moves; // not the deal's own moves alone
  if (box.hidden) return;
  const h = document.createElement("h3");
  h.textContent = "Which move lost it?";
  const p = document.createElement("p");
  p.id = "r-analysis-text";
  p.textContent = "The solver is looking for the move after which the game could no longer be won…";
  box.append(h, p);
  const r = await api("GET", gamePath(g.id, "/analysis"));
  if (!r.ok) {
    p.textContent = r.error;
    return;
  }
  const a = r.data;
  box.dataset.index = a.first_losing_move ? String(a.first_losing_move.index) : "";
  if (!a.first_losing_move) {
    p.textContent = a.message + (a.unknown.length ? ` Undecided: ${a.unknown.map((i) => (i ? `after move ${i}` : "the deal")).join(", ")}.` : "");
    return;
  }
  const f = a.first_losing_move;
  p.textContent = `Move ${playerMove(f.index)}, ${f.move} (${moveWords(a.played)}), lost the game: before it the game could still be won.`;
  box.append(miniBoard(a.board, a.played, a.kept_alive));
  const legend = document.createElement("p");
  legend.className = "mini-legend";
  legend.id = "r-analysis-alive";
  legend.textContent = f.alternative
    ? `Marked: the cards you moved (red outline), and the move that kept the game alive instead: ${f.alternative}, ${moveWords(a.kept_alive)} (green outline).`
    : "Marked: the cards you moved.";
  box.append(legend);
}

// -------------------------------------------------------- the solution

const SPEEDS = { slow: 1400, normal: 800, fast: 350 };

function frameGame(pb, i) {
  const pos = i === 0 ? pb.start : pb.steps[i - 1].position;
  return { ...pb.real, ...pos, legal_moves: [], can_undo: false, can_redo: false, action: { kind: "playback", movements: [] } };
}

function draw(pb, i, movement) {
  const before = snapshot();
  pb.index = i;
  state.game = frameGame(pb, i);
  render();
  animateFrom(before, delaysFor(movement ? [movement] : []));
  $("#pb-step").textContent = `Step ${i} of ${pb.steps.length}`;
  $("#pb-back").disabled = i === 0;
  $("#pb-fwd").disabled = i === pb.steps.length;
  $("#pb-take").disabled = i === 0;
  $("#playback").dataset.step = String(i);
}

function say(pb) {
  const i = pb.index;
  if (i === 0) announce(`Step 0 of ${pb.steps.length}: the position where the playback began.`);
  else announce(`Step ${i} of ${pb.steps.length}: ${pb.steps[i - 1].say} (${pb.steps[i - 1].move}).`);
}

export function stepForward() {
  const pb = state.playback;
  if (!pb || pb.index >= pb.steps.length) return stop();
  draw(pb, pb.index + 1, pb.steps[pb.index].movement);
  say(pb);
  if (pb.index >= pb.steps.length) stop();
  return undefined;
}

export function stepBack() {
  const pb = state.playback;
  if (!pb || pb.index === 0) return;
  const m = pb.steps[pb.index - 1].movement;
  draw(pb, pb.index - 1, { cards: m.cards, from: m.to, to: m.from });
  say(pb);
}

function stop() {
  const pb = state.playback;
  if (!pb) return;
  window.clearInterval(pb.timer);
  pb.timer = 0;
  $("#pb-play").setAttribute("aria-pressed", "false");
  $("#pb-play .lbl").textContent = "Play";
}

export function togglePlay() {
  const pb = state.playback;
  if (!pb) return;
  if (pb.timer) {
    stop();
    announce("Playback paused.");
    return;
  }
  if (pb.index >= pb.steps.length) draw(pb, 0);
  $("#pb-play").setAttribute("aria-pressed", "true");
  $("#pb-play .lbl").textContent = "Pause";
  announce("Playing the solution.");
  pb.timer = window.setInterval(stepForward, SPEEDS[$("#pb-speed").value] || SPEEDS.normal);
}

function setSpeed() {
  const pb = state.playback;
  if (pb && pb.timer) {
    window.clearInterval(pb.timer);
    pb.timer = window.setInterval(stepForward, SPEEDS[$("#pb-speed").value] || SPEEDS.normal);
  }
}

/** Ask first (a solution counts as help), then fetch the line and show the
 * playback bar at step 0. `done(g)` draws a game object the server sent. */
export function offerSolution(done) {
  const g = state.game;
  if (!g || g.status !== "playing" || state.playback) return;
  const dlg = $("#dlg-solution");
  dlg.returnValue = "";
  dlg.showModal();
  dlg.addEventListener("close", () => dlg.returnValue === "show" && begin(done), { once: true });
}

async function begin(done) {
  const g = state.game;
  showStatus("Looking for a winning line…");
  const r = await api("POST", gamePath(g.id, "/solution"));
  if (!r.ok) {
    showStatus(r.error, "error");
    return announce(r.error);
  }
  const line = r.data;
  showStatus(line.message, line.verdict === "winnable" ? "good" : line.verdict === "impossible" ? "error" : "");
  if (line.verdict !== "winnable") return announce(line.message);
  const real = { ...g, study: { ...g.study, help: { ...g.study.help, solution: true }, helped: true } };
  state.playback = { real, start: line.start, steps: line.steps, at: line.at, index: 0, timer: 0, done };
  $("#indicator").hidden = true;
  document.body.classList.add("in-playback");
  $("#playback").hidden = false;
  draw(state.playback, 0);
  $("#pb-fwd").focus();
  announce(`${line.message} Playback: step forward or press Play. Leave to return to your position, or take over at any step.`);
  return undefined;
}

function close() {
  const pb = state.playback;
  stop();
  state.playback = null;
  $("#playback").hidden = true;
  document.body.classList.remove("in-playback");
  return pb;
}

/** Leave playback: back to the position where it began. */
export function leave() {
  const pb = close();
  if (!pb) return;
  const before = snapshot();
  state.game = pb.real;
  render();
  animateFrom(before, null, 260);
  showStatus("Back to your position.");
  announce("Playback closed: back to the position where it began.");
  afterAnswer(pb.real);
  $("#btn-solution").focus();
}

/** Keep the position reached: its moves are played on the server. */
export async function takeOver() {
  const pb = state.playback;
  if (!pb || pb.index === 0) return;
  const moves = pb.steps.slice(0, pb.index).map((s) => s.move);
  stop();
  const r = await api("POST", gamePath(pb.real.id, "/solution/take"), { at: pb.at, moves });
  if (!r.ok) {
    showStatus(r.error, "error");
    return announce(r.error);
  }
  close();
  pb.done(r.data);
  showStatus(`You took over after step ${moves.length}.`, "good");
  announce(`You took over after step ${moves.length}: the position is yours to play.`);
  $("#btn-solution").focus();
  return undefined;
}

/** Keys while the playback bar is shown: arrows step, Escape leaves. */
export function playbackKey(e) {
  if (!state.playback) return false;
  const onControl = e.target && e.target.closest && e.target.closest("button, select, input");
  if (e.key === "ArrowRight") stepForward();
  else if (e.key === "ArrowLeft") stepBack();
  else if (e.key === "Escape" && !document.querySelector("dialog[open]")) leave();
  else if (e.key === " " && !onControl) togglePlay();
  else return !onControl && !e.ctrlKey && !e.metaKey && !e.altKey && e.key.length === 1;
  e.preventDefault();
  return true;
}

export function attachPlayback() {
  $("#pb-fwd").addEventListener("click", stepForward);
  $("#pb-back").addEventListener("click", stepBack);
  $("#pb-play").addEventListener("click", togglePlay);
  $("#pb-speed").addEventListener("change", setSpeed);
  $("#pb-take").addEventListener("click", takeOver);
  $("#pb-exit").addEventListener("click", leave);
}
