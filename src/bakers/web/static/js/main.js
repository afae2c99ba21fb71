/* The card table, wired together: input emits intents, the server answers
 * with the game object (docs/api.md), the page draws it. No rule is decided
 * here: a refused move comes back from the server with its reason. */
import { action, api, gamePath, newGame, pauseOnLeave, sendIntent } from "./api.js";
import { animateFrom, celebrate, dealAnimation, delaysFor, shake, snapshot } from "./animate.js";
import * as dialogs from "./dialogs.js";
import { attachKeyboard } from "./keyboard.js";
import { lessonWon, showLesson } from "./lesson.js";
import { cardName, cardsAt, isColumn, locate, placeName, setGame, state } from "./model.js";
import { attachPointer } from "./pointer.js";
import { $, $$, announce, cardCache, el, focusPile, markSelection, moveFocus, pileFor, piles, render, rovingTabindex, showStatus, tick } from "./render.js";
import { sound } from "./sound.js";
import * as study from "./study.js";
import { attachTaste } from "./taste.js";

let queue = Promise.resolve();
const PLAYBACK_ON = "The solution is playing: take over or leave it first.";
let hintTimer = 0;

/** Actions run one after another: each starts from the previous answer. */
function enqueue(fn) {
  queue = queue.then(fn).catch((err) => showStatus(`Something went wrong on this page: ${err && err.message ? err.message : err}`, "error"));
  return queue;
}

/** Show an answer: draw it, play its card movements in order, say what happened. */
function apply(g, { before = null, animate = true, say = true } = {}) {
  const prev = state.game;
  setGame(g);
  showLesson(g); // before drawing: a lesson's panel takes room beside the board
  render();
  const moves = g.action.movements;
  const busy = animate ? animateFrom(before, delaysFor(moves)) : 0;
  if (say && moves.length && g.action.kind === "move") {
    const first = moves[0];
    const what = first.cards.length > 1 ? `${first.cards.length} cards from ${cardName(first.cards[0])}` : cardName(first.cards[0]);
    const more = moves.length - 1;
    const note = g.message && g.status === "playing" ? ` ${g.message}.` : ""; // e.g. part of a run moved
    announce(`${what} to ${placeName(first.to)}.` + (more ? ` ${more} more card${more > 1 ? "s" : ""} played automatically.` : "") + note);
    sound(first.to === g.rules.places.foundation || more ? "home" : "move");
  }
  const kind = { won: "good", abandoned: "error" }[g.status];
  showStatus(g.status === "blocked" ? "" : g.message || "", kind);
  if (g.status === "blocked" && prev && prev.status === "playing") announce(g.message);
  if (g.status === "won" && prev && prev.id === g.id && prev.status === "playing") {
    window.setTimeout(() => {
      sound("win");
      // a lesson shows no celebration meant for a game (it would fly over the panel)
      if (g.lesson) lessonWon();
      else celebrate(dialogs.showResults);
    }, busy + 120);
  }
  study.afterAnswer(g);
  return busy;
}

function refuse(message, cards) {
  showStatus(message, "error");
  announce(message);
  sound("refuse");
  clearSelection(false);
  const before = snapshot();
  render(); // the cards slide back to where they are
  animateFrom(before, null, 220);
  shake(cards);
}

function intent(it, cards) {
  enqueue(async () => {
    const g = state.game;
    if (!g) return;
    clearHint();
    if (state.playback) return refuse(PLAYBACK_ON, cards);
    if (g.paused) return refuse("The game is paused: resume it to move.", cards);
    const before = snapshot();
    const r = await sendIntent(g.id, it);
    if (!r.ok) return refuse(r.error, cards);
    if (r.data.refused) {
      setGame(r.data);
      return refuse(r.data.refused, cards);
    }
    apply(r.data, { before });
  });
}

// ----------------------------------------------------------------- selection

function select(place, count, how) {
  const cards = cardsAt(place, count || 1);
  state.sel = { place, count, cards, how };
  markSelection();
  const what = cards.length ? (cards.length > 1 ? `: ${cards.length} cards from ${cardName(cards[0])}` : `: ${cardName(cards[0])}`) : "";
  const msg = `From ${placeName(place)}${what}. Now choose where it goes${how === "click" ? "" : " (type a place, Enter for its best place, Escape to cancel)"}.`;
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

function takeSelection() {
  const s = state.sel;
  clearSelection(false);
  return s;
}

function playBest() {
  const s = takeSelection();
  if (s) intent({ from: s.place, count: s.count || 1 }, s.cards);
}

function dropOn(place) {
  const s = takeSelection();
  if (!s) return;
  if (s.place === place) intent({ from: s.place, count: s.count || 1 }, s.cards);
  else intent({ from: s.place, to: place, count: s.count }, s.cards);
}

function resizeSelection(delta) {
  const s = state.sel;
  const col = isColumn(s.place) ? state.game.columns[state.game.rules.places.columns.indexOf(s.place)] : null;
  if (!col || !col.length) return;
  s.count = Math.max(1, Math.min(col.length, s.count === null ? (delta > 0 ? 2 : 1) : s.count + delta));
  s.cards = cardsAt(s.place, s.count);
  markSelection();
  const msg = s.count > 1 ? `${s.count} cards from ${cardName(s.cards[0])}.` : `${cardName(s.cards[0])} alone.`;
  showStatus(`From ${placeName(s.place)}: ${msg} Now choose where it goes.`);
  announce(msg);
}

function activateFocused() {
  const pile = piles()[state.focus];
  if (!pile) return;
  const place = pile.dataset.place;
  if (!state.sel && place !== state.game.rules.places.foundation && !cardsAt(place, 1).length) {
    // an empty pile has nothing to pick up: say so rather than "select" it
    const msg = `${placeName(pile.dataset.place)} is empty: nothing to pick up.`;
    showStatus(msg[0].toUpperCase() + msg.slice(1));
    return announce(msg);
  }
  if (state.sel) dropOn(pile.dataset.place);
  else select(pile.dataset.place, null, "focus");
}

// ---------------------------------------------------------------- actions

function simple(name, { unless, unlessText, say } = {}) {
  return enqueue(async () => {
    const g = state.game;
    if (!g) return;
    if (state.playback) return showStatus(PLAYBACK_ON, "error");
    if (unless && unless(g)) return showStatus(unlessText);
    clearHint();
    clearSelection(false);
    const before = snapshot();
    const r = await action(g.id, name);
    if (!r.ok) {
      showStatus(r.error, "error");
      return announce(r.error);
    }
    apply(r.data, { before, say: false });
    if (say) announce(say);
  });
}

const undo = () => simple("undo", { say: "Move taken back.", unless: (g) => !g.can_undo, unlessText: "Nothing to undo: this is the deal." });
const redo = () => simple("redo", { say: "Move played again.", unless: (g) => !g.can_redo, unlessText: "Nothing to redo." });

/** Restart asks first when it would take moves back: it cannot be undone. */
function restart() {
  if (state.playback) return showStatus(PLAYBACK_ON, "error");
  const go = () => simple("restart", { say: "Back to the deal." });
  if (state.game && state.game.can_undo) return dialogs.confirmRestart(state.game, go);
  return go();
}

function togglePause() {
  const g = state.game;
  if (!g || (!g.paused && g.status !== "playing")) return;
  state.autoPaused = false;
  simple(g.paused ? "resume" : "pause", { say: g.paused ? "Resumed." : "Paused. The clock is stopped." }).then(() => {
    if (!state.game.paused) focusPile(state.focus);
    else $("#btn-resume").focus();
  });
}

function clearHint() {
  window.clearTimeout(hintTimer);
  $$(".hint", el.board).forEach((x) => x.classList.remove("hint"));
}

function hint() {
  enqueue(async () => {
    const g = state.game;
    if (!g || g.status !== "playing" || state.playback) return;
    clearHint();
    showStatus("Looking for a winning line…");
    const r = await api("GET", gamePath(g.id, "/hint"));
    if (!r.ok) return showStatus(r.error, "error");
    const h = r.data;
    if (!h.movement) {
      const msg = h.message || "The solver found no answer in time.";
      showStatus(msg[0].toUpperCase() + msg.slice(1), h.verdict === "impossible" ? "error" : "");
      return announce(msg);
    }
    const m = h.movement;
    m.cards.forEach((c) => cardCache.get(c)?.classList.add("hint"));
    pileFor(m.to, m.cards[0][1])?.classList.add("hint");
    const what = m.cards.length > 1 ? `${m.cards.length} cards from ${cardName(m.cards[0])}` : cardName(m.cards[0]);
    const said = `Hint: ${what} to ${placeName(m.to)} (${h.move}).`;
    showStatus(said, "good");
    announce(said);
    hintTimer = window.setTimeout(clearHint, 6000);
  });
}

/** The next deal like this one, as the server wrote it, with the table's
 * winnable-only toggle. */
function withToggle(body) {
  const out = { ...body };
  if ($("#winnable-only").checked && !$("#winnable-only").disabled) out.winnable = true;
  else if (!$("#winnable-only").disabled) delete out.winnable;
  return out;
}

function startGame(body) {
  return enqueue(async () => {
    clearHint();
    clearSelection(false);
    const r = await newGame(body);
    if (!r.ok) {
      showStatus(r.error, "error");
      return announce(r.error);
    }
    dialogs.closeDialog("#dlg-results");
    apply(r.data, { animate: false, say: false });
    remember(r.data);
    study.showRating(r.data);
    dealAnimation();
    announce(`New deal: ${r.data.title}${r.data.deal ? ` number ${r.data.deal}` : ""}.`);
  });
}

function newDeal() {
  if (state.playback) return showStatus(PLAYBACK_ON, "error");
  const g = state.game;
  const body = withToggle(g.next_deal);
  if (g.status === "playing" && g.played) return dialogs.confirmReplace(g, () => startGame({ ...body, replace: g.id }));
  // a blocked deal is lost already, an untouched one counts nothing: no question
  startGame(g.status === "blocked" || g.status === "playing" ? { ...body, replace: g.id } : body);
}

function remember(g) {
  try {
    window.history.replaceState({ gameId: g.id }, "", `/game/${encodeURIComponent(g.id)}`);
  } catch (_e) {
    /* sandboxed: the URL stays */
  }
}

// ------------------------------------------------ the clock: ping, hidden page

function ping() {
  const g = state.game;
  if (!g || document.hidden || !state.clock.running) return;
  enqueue(async () => {
    const r = await action(state.game.id, "ping");
    if (state.playback) {
      if (r.ok && r.data.id === state.playback.real.id) state.playback.real = { ...r.data, study: state.playback.real.study };
      return;
    }
    if (r.ok && r.data.id === state.game.id) {
      setGame(state.game.paused ? r.data : shownAgain(r.data));
      tick();
    }
  });
}

/** A game paused because its page was left (the clock stopped) shows its
 * cards again when the player comes back: the clock waits for the next move,
 * which the server takes as a resume, or for Resume. */
function shownAgain(g) {
  return g && g.paused && g.status === "playing" ? { ...g, paused: false } : g;
}

function onHidden() {
  const g = state.game;
  if (!g || g.status !== "playing" || g.paused) return;
  state.autoPaused = true;
  state.clock.running = false;
  pauseOnLeave(g.id);
}

function onShown() {
  if (!state.autoPaused) return;
  state.autoPaused = false;
  enqueue(async () => {
    const r = await action(state.game.id, "resume");
    if (r.ok) apply(r.data, { animate: false, say: false });
  });
}

// ---------------------------------------------------------------- wiring

attachPointer(el.board, {
  busy: () => state.celebrating,
  locate,
  foundation: "h",
  piles,
  elsOf: (where, card) => (where.place === "h" ? [card] : cardsAt(where.place, where.count).map((c) => cardCache.get(c))),
  tap(code) {
    const where = locate(code);
    if (state.sel) {
      if (state.sel.cards.includes(code) && state.sel.place === where.place) return clearSelection(true);
      return dropOn(where.place);
    }
    if (where.place === state.game.rules.places.foundation) return undefined;
    if (dialogs.prefs.clickmode === "select") return select(where.place, where.count, "click");
    return intent({ from: where.place, count: where.count }, cardsAt(where.place, where.count));
  },
  doubleTap(code) {
    // one intent with the first tap: the card goes home if the server lists
    // that move, otherwise nothing more happens than the first tap did
    enqueue(async () => {
      const g = state.game;
      const home = g.rules.places.foundation;
      const where = locate(code); // after the first tap's answer
      if (where.place === home || where.count !== 1 || !g.legal_moves.includes(`${where.place}${home}`)) return;
      clearSelection(false);
      intent({ from: where.place, to: home, count: 1 }, [code]);
    });
  },
  pileClick(pile) {
    state.focus = piles().indexOf(pile);
    rovingTabindex();
    if (state.sel) dropOn(pile.dataset.place);
  },
  intent,
  dragShow(els, dx, dy, over) {
    clearHint();
    if (state.sel) clearSelection(false);
    for (const c of els) {
      c.classList.add("dragging");
      c.style.transform = `translate(${dx}px, ${dy}px)`;
    }
    $$(".drop-over", el.board).forEach((p) => p !== over && p.classList.remove("drop-over"));
    over?.classList.add("drop-over");
  },
  dragEnd(slideBack) {
    $$(".drop-over", el.board).forEach((p) => p.classList.remove("drop-over"));
    if (!slideBack) return;
    const before = snapshot();
    render();
    animateFrom(before, null, 200);
  },
});

attachKeyboard({
  ready: () => !!state.game && !state.celebrating,
  paused: () => state.game.paused,
  placeOfKey(key) {
    const k = key.toLowerCase() === "0" ? "t" : key.toLowerCase();
    const p = state.game.rules.places;
    return p.columns.includes(k) || p.cells.includes(k) || k === p.foundation ? k : null;
  },
  selection: () => state.sel,
  select: (place, how) => select(place, null, how),
  cancel: () => clearSelection(true),
  resize: resizeSelection,
  drop: dropOn,
  best: playBest,
  move: moveFocus,
  activate: activateFocused,
  runsMove: () => state.game.rules.runs_move,
  undo,
  redo,
  pause: togglePause,
  help: dialogs.openHelp,
});

el.board.addEventListener("focusin", (e) => {
  const i = piles().indexOf(e.target.closest && e.target.closest(".pile"));
  if (i >= 0 && i !== state.focus) {
    state.focus = i;
    rovingTabindex();
  }
});

const buttons = {
  "#btn-undo": undo, "#btn-redo": redo, "#btn-restart": restart,
  "#btn-new": newDeal, "#btn-hint": hint, "#btn-finish": () => simple("finish", { say: "Every remaining card goes home." }), "#btn-pause": togglePause, "#btn-resume": togglePause,
  "#btn-settings": dialogs.openSettings, "#btn-help": dialogs.openHelp,
  "#btn-solution": () => study.offerSolution((g) => apply(g, { animate: false, say: false })),
};
for (const [sel, fn] of Object.entries(buttons)) $(sel).addEventListener("click", fn);
$("#paused").addEventListener("pointerdown", (e) => {
  if (!e.target.closest("button")) showStatus("The game is paused: Resume (or P) shows the cards again.");
});
$("#blocked").addEventListener("click", (e) => {
  const act = e.target.closest("button")?.dataset.act;
  if (act === "undo") undo();
  else if (act === "restart") buttons["#btn-restart"]();
  else if (act === "new") newDeal();
  else if (act === "analyse") dialogs.showResults();
});
study.attachPlayback();
attachTaste($("#settings-form"), () => render());
// while the solution plays, its keys come first and the table takes no move
document.addEventListener("keydown", (e) => {
  if (study.playbackKey(e)) e.stopImmediatePropagation();
}, true);
$("#r-winnable").addEventListener("change", (e) => {
  $("#winnable-only").checked = e.target.checked;
});
$("#dlg-results").addEventListener("close", () => {
  const v = $("#dlg-results").returnValue;
  if (v === "new") startGame(withToggle(state.game.next_deal));
  else if (v === "replay") startGame(withToggle(state.game.replay));
  else if (v === "home") window.location.href = "/";
});
dialogs.attachSettings({
  gameSetting(name, value) {
    enqueue(async () => {
      const r = await action(state.game.id, "settings", { [name]: value });
      if (!r.ok) return showStatus(r.error, "error");
      apply(r.data, { animate: false, say: false });
      return showStatus(name === "autoplay" ? `Autoplay ${value === "off" ? "off" : "on: safe moves go home by themselves"}.` : "Best-place order saved.");
    });
  },
  clickMode: () => clearSelection(false),
  indicator(on) {
    enqueue(async () => {
      const r = await study.setIndicator(on);
      if (!r || !r.ok) return showStatus(r ? r.error : "", "error");
      apply(r.data, { animate: false, say: false });
      return showStatus(on ? "The still-winnable indicator is on: it counts as help in your statistics." : "The still-winnable indicator is off.");
    });
  },
  soundOn: () => sound("move"),
  rating: () => study.showRating(state.game),
});
$$("dialog").forEach((d) =>
  d.addEventListener("click", (e) => {
    if (e.target === d && d.id !== "dlg-results") d.close("cancel"); // a click on the backdrop
  }),
);

document.addEventListener("visibilitychange", () => (document.hidden ? onHidden() : onShown()));
window.addEventListener("pagehide", onHidden);
window.addEventListener("pageshow", (e) => e.persisted && onShown());
let resizeFrame = 0;
window.addEventListener("resize", () => {
  cancelAnimationFrame(resizeFrame);
  resizeFrame = requestAnimationFrame(render);
});
window.setInterval(tick, 250);

function boot() {
  dialogs.applyPrefs();
  const text = el.app.dataset.game;
  const g = text ? JSON.parse(text) : null;
  if (!g) {
    $("#title").textContent = "No game here";
    return showStatus("This page has no game: go back to the home page to deal one.", "error");
  }
  apply(shownAgain(g), { animate: false, say: false });
  study.showRating(g);
  if (!g.lesson && (g.status === "won" || (g.status === "abandoned" && g.played))) dialogs.showResults();
  window.setInterval(ping, g.rules.ping_every * 1000);
  el.board.dataset.ready = "true";
  el.app.dataset.ready = "true";
  return undefined;
}

boot();
