/* Keyboard input: the notation typed key by key (a source, then a place),
 * arrows and Enter to move between piles and pick up and drop, shortcuts.
 * It emits commands through the handlers main.js passes in. */

/**
 * h: {ready(), paused(), placeOfKey(key), selection(), select(place, how),
 *     cancel(), resize(delta), drop(place), best(), move(dir), activate(),
 *     undo(), redo(), pause(), help(), runsMove()}
 */
export function attachKeyboard(h) {
  document.addEventListener("keydown", (e) => {
    if (e.defaultPrevented || document.querySelector("dialog[open]")) return;
    const t = e.target;
    if (t && (t.tagName === "INPUT" || t.tagName === "TEXTAREA" || t.tagName === "SELECT" || t.isContentEditable)) return;
    const key = e.key;
    if ((e.ctrlKey || e.metaKey) && !e.altKey) {
      const k = key.toLowerCase();
      if (k === "z" && !e.shiftKey) {
        e.preventDefault();
        h.undo();
      } else if (k === "y" || (k === "z" && e.shiftKey)) {
        e.preventDefault();
        h.redo();
      }
      return;
    }
    if (e.altKey || !h.ready()) return;
    if (key === "?") {
      e.preventDefault();
      h.help();
      return;
    }
    if (key === "p" || key === "P") {
      e.preventDefault();
      h.pause();
      return;
    }
    if (h.paused()) return;
    const sel = h.selection();
    if (key === "Escape") {
      if (sel) {
        e.preventDefault();
        h.cancel();
      }
      return;
    }
    if ((key === "ArrowUp" || key === "ArrowDown") && e.shiftKey && sel) {
      e.preventDefault();
      if (h.runsMove()) h.resize(key === "ArrowUp" ? 1 : -1);
      return;
    }
    if (key.startsWith("Arrow")) {
      e.preventDefault();
      h.move(key.slice(5).toLowerCase());
      return;
    }
    if (key === "Enter" || key === " ") {
      // "a source key then Enter plays the best place", wherever the focus
      // is: a typed move never presses the toolbar button that has the focus
      if (sel && sel.how === "typed") {
        e.preventDefault();
        h.best();
        return;
      }
      if (t && t.closest && t.closest("button, a")) return;
      e.preventDefault();
      h.activate();
      return;
    }
    const place = key.length === 1 ? h.placeOfKey(key) : null;
    if (!place) return;
    e.preventDefault();
    if (!sel) h.select(place, "typed");
    else if (sel.place === place) h.best();
    else h.drop(place);
  });
}
