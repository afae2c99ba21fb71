/* A lesson beside the board: its instruction, its goal with each step
 * ticked as the server reports it (the game object's `lesson`), and once
 * the goal is met the way on: the next lesson, or a full deal after the
 * last one; when this game can no longer meet it, the lesson afresh. The
 * page checks nothing itself. */
import { $, el } from "./render.js";

let shown = null; // the key of the lesson drawn, and whether its goal was met

/** Draw `g.lesson`, or hide the panel for any other game (call before
 * the table is laid out: the panel takes room beside the board). */
export function showLesson(g) {
  const panel = $("#lesson");
  const lesson = g && g.lesson;
  panel.hidden = !lesson;
  el.app.classList.toggle("has-lesson", !!lesson);
  if (!lesson) {
    shown = null;
    return;
  }
  $("#lesson-count").textContent = `Lesson ${lesson.number} of ${lesson.count}`;
  $("#lesson-h").textContent = lesson.title;
  $("#lesson-text").textContent = lesson.instruction;
  const steps = $("#lesson-steps");
  steps.replaceChildren(
    ...lesson.steps.map((step) => {
      const li = document.createElement("li");
      li.className = step.met ? "met" : "";
      const mark = document.createElement("span");
      mark.className = "sr-only";
      mark.textContent = step.met ? "Done: " : "To do: ";
      li.append(mark, step.text);
      return li;
    }),
  );
  $("#lesson-moves").textContent = lesson.moves ? `In ${lesson.moves === 1 ? "one move" : `${lesson.moves} moves`}.` : "";
  const state = $("#lesson-state");
  state.textContent = lesson.message || "Not met yet.";
  state.className = `lesson-state${lesson.met ? " good" : lesson.over ? " over" : ""}`;
  panel.dataset.met = lesson.met ? "true" : "false";
  panel.dataset.key = lesson.key;
  const next = $("#lesson-next");
  const full = $("#lesson-full");
  next.hidden = !(lesson.met && lesson.next);
  if (lesson.next) {
    next.href = lesson.next.address;
    next.textContent = `Next lesson: ${lesson.next.title}`;
  }
  full.hidden = !(lesson.met && !lesson.next);
  full.href = lesson.full_deal;
  const again = $("#lesson-again");
  again.hidden = !lesson.retry;
  again.href = lesson.address;
  $("#lesson-rules").href = lesson.rules;
  const key = `${lesson.key}:${lesson.met}`;
  const done = shown !== null && shown !== key && lesson.met;
  shown = key;
  if (done) window.setTimeout(() => (lesson.next ? next : full).focus(), 0);
}

/** After a lesson's last card went home: the way on has the focus (a
 * lesson has no results screen). */
export function lessonWon() {
  const next = $("#lesson-next");
  (next.hidden ? $("#lesson-full") : next).focus();
}
