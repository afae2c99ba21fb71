"""Lessons: small positions that each teach one rule at the table, with an
instruction and a goal the server checks.

A lesson is addressed ``/lessons/<game>/<n>`` (its key is ``<game>/<n>``,
``n`` from 1). Its goal is data stored with its position
(:data:`LESSON_DATA`): a list of *steps*, each a condition on a position,

* ``{"home": ["6H", "7H", …]}`` — these cards are on their foundations;
* ``{"on": "JH", "run": ["TH", "9H", …]}`` — this run (bottom card first)
  lies on that card in a column;
* ``{"empty": 1}`` — column 1 is empty;

met one after another along the game's current line — the positions after
each player action, undone actions left out — and, with ``moves``, the last
step met within that many player actions (a run moved "in one go").

>>> lesson = find_lesson("bakers_dozen", 2)
>>> lesson.key, [step.text() for step in lesson.steps]
('bakers_dozen/2', ['9♦ on 10♠'])
>>> board = lesson.board()
>>> lesson.progress(board, [["15"], ["16"], ["12"]]).met
True
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from .board import Board
from .cards import Card, Suit
from .errors import UnknownGameError
from .games import find_game
from .notation import Move


class UnknownLessonError(UnknownGameError):
    """No lesson has this number (HTTP 404, like an unknown game)."""


LESSON_DATA: dict[str, list[dict[str, Any]]] = {
    "bakers_dozen": [
        {"title": "Rank-only joins",
         "instruction": "6♥ is buried under 8♠. Move 8♠ onto 9♥: any suit will do. "
                        "Then send the hearts home.",
         "position": "Foundations: H-5 C-K D-K S-7\nKH QH JH TH\n6H 8S\n9H\n7H\n"
                     "KS QS JS TS 9S\n8H\n",
         "goal": [{"on": "9H", "run": ["8S"]},
                  {"home": ["6H", "7H", "8H", "9H", "TH", "JH", "QH", "KH"]}]},
        {"title": "Exposed singles only",
         "instruction": "Try dragging 9♦ with the two cards on it onto 10♠: refused. Move "
                        "them one at a time instead: 7♦ onto 8♦, 8♠ onto 9♠, then 9♦ onto "
                        "10♠.",
         "position": "Foundations: H-K C-K D-5 S-5\n6S 9D 8S 7D\nTS\nKD QD JD TD\n"
                     "KS QS JS 7S\n8D\n6D 9S\n",
         "goal": [{"on": "TS", "run": ["9D"]}]},
        {"title": "Closed empty columns",
         "instruction": "Play 9♠, 10♦, J♦, Q♦ and K♦ home; column 1 empties. Now Q♠ must "
                        "move to free 10♠: the empty column refuses it, K♠ takes it.",
         "position": "Foundations: H-K C-K D-9 S-8\nKD 9S\nTS QS TD\nJS\nKS QD JD\n",
         "goal": [{"empty": 1}, {"on": "KS", "run": ["QS"]}]},
        {"title": "Foundations follow suit",
         "instruction": "A♥ starts the hearts; 2♠ could never follow it. Uncover 3♥ by "
                        "moving 5♥ onto 6♥, then play the hearts up in order.",
         "position": "Foundations: C-K D-K H-0 S-J\n2H AH\nQS 4H\n3H 5H\nKS 6H\n"
                     "KH QH JH TH 9H 8H 7H\n",
         "goal": [{"on": "6H", "run": ["5H"]},
                  {"home": ["AH", "2H", "3H", "4H", "5H", "6H", "7H", "8H", "9H", "TH",
                            "JH", "QH", "KH"]}]},
    ],
    "bakers_game": [
        {"title": "Moving a run",
         "instruction": "One free cell and one empty column. First try moving the four "
                        "hearts 10♥…7♥ into the empty column: refused, only 2 may go there. "
                        "Then move all four onto J♥ in one go: (1 + 1) × 2¹ = 4.",
         "position": "Foundations: H-5 C-J D-J S-6\nFreecells: QS JS TS -\n6H TH 9H 8H 7H\n"
                     "KH QH JH\nKS 9S 8S 7S\nKC\nKD\nQC\nQD\n:\n",
         "goal": [{"on": "JH", "run": ["TH", "9H", "8H", "7H"]}], "moves": 1},
        {"title": "Cells carry a run",
         "instruction": "Two free cells and no empty column: 8♠ 7♠ 6♠ may move onto 9♠ "
                        "in one go, (2 + 1) × 2⁰ = 3 cards. It is shorthand for single "
                        "moves: 6♠ and 7♠ to the cells, 8♠ onto 9♠, then 7♠ and 6♠ back "
                        "onto it.",
         "position": "Foundations: H-7 C-6 D-7 S-5\nFreecells: KH KC - -\nQD JD 8S 7S 6S\n"
                     "KS 9S\nKD 8D\nQS JC 9D\nQH JH TH 9H 8H\nTS TD 7C\nJS QC 8C\n9C TC\n",
         "goal": [{"on": "9S", "run": ["8S", "7S", "6S"]}], "moves": 1},
    ],
    "freecell": [
        {"title": "Moving a run",
         "instruction": "One free cell and one empty column. First try moving 10♠ 9♥ 8♠ "
                        "7♥ into the empty column: refused, only 2 may go there. Then move "
                        "all four onto J♥ in one go: (1 + 1) × 2¹ = 4.",
         "position": "Foundations: H-5 C-J D-J S-6\nFreecells: KS JS TH -\n6H TS 9H 8S 7H\n"
                     "KH QS JH\nKD QC\nKC QD\nQH\n9S 8H\n7S\n:\n",
         "goal": [{"on": "JH", "run": ["TS", "9H", "8S", "7H"]}], "moves": 1},
        {"title": "Cells carry a run",
         "instruction": "Two free cells and no empty column: move 8♠ 7♥ 6♣ onto 9♦ in one "
                        "go, (2 + 1) × 2⁰ = 3 cards. It is shorthand for single moves: 6♣ "
                        "and 7♥ to the cells, 8♠ onto 9♦, then 7♥ and 6♣ back onto it.",
         "position": "Foundations: H-6 C-5 D-7 S-7\nFreecells: KH KC - -\nQC JD 8S 7H 6C\n"
                     "KS 9D\nKD 8D\nQD JC TH\nQS JH TC 9H\nQH JS TD 9C 8H\n9S 7C\nTS 8C\n",
         "goal": [{"on": "9D", "run": ["8S", "7H", "6C"]}], "moves": 1},
    ],
}
"""Every lesson as data: per game, in order, its title, instruction, start
position (board text), goal steps and optional move limit."""


@dataclasses.dataclass(frozen=True)
class Step:
    """One condition of a goal: ``home`` cards on their foundations, a
    ``run`` lying ``on`` a card, or column ``empty`` (from 1) empty."""

    home: tuple[Card, ...] = ()
    on: Card | None = None
    run: tuple[Card, ...] = ()
    empty: int | None = None

    @classmethod
    def from_data(cls, data: dict[str, Any]) -> Step:
        kinds = [k for k in ("home", "on", "empty") if k in data]
        if len(kinds) != 1 or set(data) - {"home", "on", "run", "empty"}:
            raise ValueError(f"a goal step is home, on (with run) or empty, not {data!r}")
        if "home" in data:
            return cls(home=tuple(Card.from_str(c) for c in data["home"]))
        if "on" in data:
            run = tuple(Card.from_str(c) for c in data.get("run", ()))
            if not run:
                raise ValueError("an 'on' step needs the run that lies on the card")
            return cls(on=Card.from_str(data["on"]), run=run)
        column = int(data["empty"])
        if column < 1:
            raise ValueError("columns count from 1")
        return cls(empty=column)

    def met(self, board: Board) -> bool:
        """Whether ``board``'s position meets this step."""
        if self.home:
            found = board.foundations
            return all(found[c.suit] >= c.rank for c in self.home)
        if self.on is not None:
            want = (self.on, *self.run)
            for col in board.columns:
                for i in range(len(col) - len(want) + 1):
                    if col[i:i + len(want)] == want:
                        return True
            return False
        assert self.empty is not None
        return self.empty <= len(board.columns) and not board.columns[self.empty - 1]

    def text(self) -> str:
        """What the step asks, as the table says it: ``9♦ on 10♠``."""
        if self.home:
            return _home_text(self.home) + " home"
        if self.on is not None:
            return " ".join(c.pretty() for c in self.run) + " on " + self.on.pretty()
        return f"column {self.empty} empty"


def _home_text(cards: Sequence[Card]) -> str:
    """``6♥ to K♥`` for a run of one suit, else the cards one by one."""
    suits = {c.suit for c in cards}
    ranks = sorted(c.rank for c in cards)
    if len(suits) == 1 and len(cards) > 2 and ranks == list(range(ranks[0], ranks[-1] + 1)):
        suit = Suit(next(iter(suits)))
        return f"{Card(ranks[0], suit).pretty()} to {Card(ranks[-1], suit).pretty()}"
    return ", ".join(c.pretty() for c in cards)


@dataclasses.dataclass(frozen=True)
class Progress:
    """How far a game of a lesson is: which steps are met (in order), the
    whole goal ``met``, and ``over`` when the move limit passed first."""

    steps: tuple[bool, ...]
    met: bool
    over: bool
    at: int | None  # player actions when the goal was met


@dataclasses.dataclass(frozen=True)
class Lesson:
    """One lesson: ``game`` and ``number`` (from 1), its title, instruction,
    start position, goal steps and move limit."""

    game: str
    number: int
    title: str
    instruction: str
    position: str
    steps: tuple[Step, ...]
    moves: int | None = None

    @property
    def key(self) -> str:
        return f"{self.game}/{self.number}"

    @property
    def address(self) -> str:
        return f"/lessons/{self.key}"

    def board(self) -> Board:
        """The lesson's start position."""
        return Board.from_text(self.position, game=self.game)

    def goal_text(self) -> str:
        """The whole goal in one sentence: ``10♥ 9♥ 8♥ 7♥ on J♥, in one move``."""
        text = ", then ".join(step.text() for step in self.steps)
        if self.moves is not None:
            text += f", in {'one move' if self.moves == 1 else f'{self.moves} moves'}"
        return text[0].upper() + text[1:]

    def progress(self, start: Board, groups: Sequence[Sequence[str]]) -> Progress:
        """The goal's steps met along the line ``groups`` (each player
        action's moves, as :attr:`bakers.session.Session.groups` keeps them:
        the player's move, then the game's own) played from ``start``: each
        step met at or after the position where the one before it was. Every
        position counts, also between the player's move and the cards the
        game then sends home by itself."""
        board = start.copy(stack=False)
        done = 0
        met_at: int | None = None

        def check() -> bool:
            nonlocal done
            while done < len(self.steps) and self.steps[done].met(board):
                done += 1
            return done == len(self.steps)

        if check():
            met_at = 0
        for i, group in enumerate(groups, 1):
            if met_at is not None:
                break
            for text in group:
                board.push(Move.from_str(text))
                if check():
                    met_at = i
                    break
        met = met_at is not None and (self.moves is None or met_at <= self.moves)
        over = (self.moves is not None and not met
                and (met_at is not None or len(groups) >= self.moves))
        return Progress(tuple(i < done for i in range(len(self.steps))), met, over, met_at)


def _build() -> dict[str, tuple[Lesson, ...]]:
    out: dict[str, tuple[Lesson, ...]] = {}
    for game, items in LESSON_DATA.items():
        out[game] = tuple(
            Lesson(game, n, d["title"], d["instruction"], d["position"],
                   tuple(Step.from_data(s) for s in d["goal"]), d.get("moves"))
            for n, d in enumerate(items, 1))
    return out


LESSONS = _build()
"""The lessons of each game, in order."""


def lessons_of(game: str) -> tuple[Lesson, ...]:
    """The lessons of ``game`` (any spelling :func:`bakers.games.find_game` takes)."""
    return LESSONS.get(find_game(game).name, ())


def find_lesson(game: str, number: int | str) -> Lesson:
    """Lesson ``number`` (from 1) of ``game``; raises :class:`UnknownLessonError`."""
    found = lessons_of(game)
    try:
        n = int(number)
    except (TypeError, ValueError):
        n = 0
    if not 1 <= n <= len(found):
        title = find_game(game).title
        raise UnknownLessonError(
            f"{title} has lessons 1 to {len(found)}, not {str(number)[:20]!r}"
            if found else f"{title} has no lessons")
    return found[n - 1]


def lesson_by_key(key: str) -> Lesson:
    """The lesson ``<game>/<n>``; raises :class:`UnknownLessonError`."""
    game, _, number = key.partition("/")
    if not game or not number:
        raise UnknownLessonError(f"a lesson is named game/number, like bakers_dozen/2, "
                                 f"not {key[:30]!r}")
    return find_lesson(game, number)


def next_lesson(lesson: Lesson) -> Lesson | None:
    """The lesson after ``lesson`` in its game, if any."""
    found = LESSONS[lesson.game]
    return found[lesson.number] if lesson.number < len(found) else None


__all__ = ["LESSONS", "LESSON_DATA", "Lesson", "Progress", "Step", "UnknownLessonError",
           "find_lesson", "lesson_by_key", "lessons_of", "next_lesson"]
