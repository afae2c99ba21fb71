"""The atlas report: the winnable share of every game × cell count with its
95 % interval, the distribution of fewest cells, the hardest deals, the cost
of each table cell, and every published figure side by side with ours, as
Markdown and as one self-contained HTML page with SVG plots (matplotlib).

How a published figure is compared depends on its sample:

* **random deals** (another sample of the same population of shuffles): the
  difference in units of ``sqrt(se_ours² + se_published²)``;
* **Microsoft deals** (the same deals, where our range overlaps theirs): our
  share on the overlap against theirs, with the standard error of a sample of
  ``n`` drawn from their ``N`` deals (finite-population corrected), so that
  on the whole of their range any difference at all is a disagreement.

>>> round(z_score(0.75, 1000, 0.75053, 0.00028 / Z95), 3)  # 75 % of 1,000 against 75.053 ± 0.028 %
-0.039
"""

from __future__ import annotations

import dataclasses
import html
import io
import math
import sqlite3
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any

from ..games import GAMES
from ..survey import Z95, wilson_interval
from .errors import AtlasError
from .plan import IMPOSSIBLE, NEVER, UNKNOWN, WINNABLE, fewest_cells
from .store import AtlasStore
from .work import budget_parts, search_of

FEW = 30  # impossible deals listed by name for a table cell with at most this many

# --- published figures ---------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Published:
    """A published share: of random deals (``se`` known), or of Microsoft
    deals ``first``–``last`` (a whole population of ``last - first + 1``)."""

    label: str
    game: str
    cells: int
    share: float
    measure: str = "winnable"        # or "fewest=k" (the fewest cells are exactly k)
    se: float | None = None          # random deals
    first: int | None = None         # Microsoft deals
    last: int | None = None
    impossible_list: tuple[int, ...] | None = None
    note: str = ""

    @property
    def population(self) -> int | None:
        return None if self.first is None or self.last is None else self.last - self.first + 1


def cells_text(k: int) -> str:
    return f"{k} cell" if k == 1 else f"{k} cells"


def _random(label: str, game: str, cells: int, pct: float, *, half95: float | None = None,
            n: int | None = None, note: str = "") -> Published:
    p = pct / 100
    if half95 is not None:
        se = half95 / 100 / Z95
    else:
        assert n is not None
        se = math.sqrt(p * (1 - p) / n)
    return Published(label, game, cells, p, se=se, note=note)


BG_BY_CELLS = (0.001, 0.18, 4.25, 28.9, 75.0, 97.9, 99.98, 100.0)
FC_BY_CELLS = ((0.2137, 0.0031), (19.348, 0.093), (79.544, 0.091), (99.3583, 0.0162),
               (99.998881, 0.000207))
FC_FEWEST_32000 = (69, 6220, 19092, 6420, 198, 1)
FC_IMPOSSIBLE_4_1M = (11982, 146692, 186216, 455889, 495505, 512118, 517776, 781948)

PUBLISHED: tuple[Published, ...] = (
    _random("Baker's Game, 4 cells, random deals", "bakers_game", 4, 75.053, half95=0.028,
            note="95 % interval ± 0.028"),
    Published("Baker's Game, 4 cells, deals 1–32,000 (bakers survey)", "bakers_game", 4,
              24_040 / 32_000, first=1, last=32_000, note="24,040 winnable, 7,960 impossible"),
    *(_random(f"Baker's Game, {cells_text(k)}, 1,000,000 random deals", "bakers_game", k, pct,
              n=1_000_000) for k, pct in enumerate(BG_BY_CELLS)),
    *(_random(f"FreeCell, {cells_text(k)}, random deals", "freecell", k, pct, half95=h,
              note=f"± {h} read as a 95 % interval") for k, (pct, h) in enumerate(FC_BY_CELLS)),
    *(Published(f"FreeCell deals 1–32,000 needing exactly {cells_text(k)}", "freecell", k,
                count / 32_000, measure=f"fewest={k}", first=1, last=32_000,
                note=f"{count:,} deal{'s' if count != 1 else ''}")
      for k, count in enumerate(FC_FEWEST_32000)),
    Published("FreeCell deals 1–32,000, 2 cells: 6,619 impossible (Freecell Solver's "
              "two-cell report)", "freecell", 2, 1 - 6_619 / 32_000, first=1, last=32_000,
              note="6,619 impossible"),
    Published("FreeCell deals 1–1,000,000, 4 cells: 8 impossible", "freecell", 4,
              1 - 8 / 1_000_000, first=1, last=1_000_000,
              impossible_list=FC_IMPOSSIBLE_4_1M, note=", ".join(map(str, FC_IMPOSSIBLE_4_1M))),
    Published("FreeCell deals 1–1,000,000, 3 cells: 6,398 impossible", "freecell", 3,
              1 - 6_398 / 999_999, first=1, last=1_000_000,
              note="one deal left unresolved by the counting tool"),
    Published("FreeCell deals 1–1,000,000, 0 cells: 2,174 winnable", "freecell", 0,
              2_174 / 1_000_000, first=1, last=1_000_000),
)


def z_score(share: float, n: int, published: float, published_se: float = 0.0,
            population: int | None = None) -> float | None:
    """The difference ``share - published`` in standard errors (``None``
    when both standard errors are zero and the shares agree exactly; ±inf
    when they are zero and the shares differ)."""
    if population is not None:  # our n deals are drawn from their population
        fpc = (population - n) / (population - 1) if population > 1 else 0.0
        se2 = published * (1 - published) / n * max(fpc, 0.0)
    else:
        # a share of exactly 0 or 1 still has sampling error: use the published share's
        p = share if 0 < share < 1 else published
        se2 = p * (1 - p) / n + published_se ** 2
    diff = share - published
    if se2 <= 0:
        return None if abs(diff) < 1e-12 else math.copysign(math.inf, diff)
    return diff / math.sqrt(se2)


# --- the figures -----------------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class CellFigures:
    """One table cell: one game with one cell count."""

    game: str
    cells: int
    first: int
    last: int
    deals: int
    winnable: int
    impossible: int
    unknown: int
    solved: int
    inferred: int
    attempts: int
    solve_seconds: float
    states: int

    @property
    def resolved(self) -> int:
        return self.winnable + self.impossible

    @property
    def share(self) -> float | None:
        return self.winnable / self.resolved if self.resolved else None

    @property
    def ci95(self) -> tuple[float, float] | None:
        return wilson_interval(self.winnable, self.resolved) if self.resolved else None


@dataclasses.dataclass(frozen=True)
class Hard:
    game: str
    deal: int
    cells: int
    verdict: str
    attempts: int
    states: int
    seconds: float


@dataclasses.dataclass(frozen=True)
class Proof:
    """One exhaustive search the atlas ran (the proof pass)."""

    game: str
    deal: int
    cells: int
    verdict: str
    states: int
    disk_bytes: int
    seconds: float


@dataclasses.dataclass(frozen=True)
class Comparison:
    figure: Published
    ours: float | None
    n: int
    z: float | None
    detail: str = ""


@dataclasses.dataclass(frozen=True)
class AtlasFigures:
    cells: list[CellFigures]
    fewest: dict[str, Counter[int | None]]
    hardest: list[Hard]
    comparisons: list[Comparison]
    engines: list[str]
    budgets: list[str]
    impossible: dict[tuple[str, int], list[int]]
    proofs: list[Proof] = dataclasses.field(default_factory=list)
    # (game, budget, verdict, how) -> table rows: which search decided each row
    decided: dict[tuple[str, str, str, str], int] = dataclasses.field(default_factory=dict)

    def cell(self, game: str, cells: int) -> CellFigures | None:
        return next((c for c in self.cells if (c.game, c.cells) == (game, cells)), None)


def gather(store: AtlasStore, hardest: int = 20) -> AtlasFigures:
    """Read every figure of the report from the atlas file."""
    db = store.db
    attempts = {(g, k): (n, s, st) for g, k, n, s, st in db.execute(
        "SELECT game, cells, COUNT(*), SUM(seconds), SUM(states) FROM attempts "
        "GROUP BY game, cells")}
    cells: list[CellFigures] = []
    for g, k, lo, hi, n, w, i, u, solved in db.execute(
            "SELECT game, cells, MIN(deal), MAX(deal), COUNT(*), "
            "SUM(verdict = 'winnable'), SUM(verdict = 'impossible'), "
            "SUM(verdict = 'unknown'), SUM(how = 'solved') "
            "FROM results GROUP BY game, cells ORDER BY game, cells"):
        na, secs, states = attempts.get((g, k), (0, 0.0, 0))
        cells.append(CellFigures(g, k, lo, hi, n, w, i, u, solved, n - solved, na,
                                 secs or 0.0, states or 0))
    order = {name: j for j, name in enumerate(GAMES)}
    cells.sort(key=lambda c: (order.get(c.game, 99), c.cells))

    fewest: dict[str, Counter[int | None]] = {}
    current: tuple[str, int] | None = None
    verdicts: dict[int, str] = {}

    def flush() -> None:
        if current is not None and GAMES[current[0]].max_cells:
            counter = fewest.setdefault(current[0], Counter())
            try:
                counter[fewest_cells(verdicts)] += 1
            except AtlasError:
                counter[None] += 1
    for g, deal, k, verdict in db.execute(
            "SELECT game, deal, cells, verdict FROM results "
            "WHERE verdict != 'unknown' ORDER BY game, deal"):
        if (g, deal) != current:
            flush()
            current, verdicts = (g, deal), {}
        verdicts[k] = verdict
    flush()

    hard = [Hard(*row) for row in db.execute(
        "SELECT a.game, a.deal, a.cells, r.verdict, COUNT(*), SUM(a.states), "
        "SUM(a.seconds) AS secs FROM attempts a JOIN results r "
        "ON r.game = a.game AND r.cells = a.cells AND r.deal = a.deal "
        "GROUP BY a.game, a.deal, a.cells ORDER BY secs DESC, a.game, a.deal LIMIT ?",
        (hardest,))]
    impossible: dict[tuple[str, int], list[int]] = {}
    for c in cells:
        if 0 < c.impossible <= FEW:
            impossible[c.game, c.cells] = [d for (d,) in db.execute(
                "SELECT deal FROM results WHERE game = ? AND cells = ? "
                "AND verdict = 'impossible' ORDER BY deal", (c.game, c.cells))]
    engines = [r[0] for r in db.execute("SELECT DISTINCT engine FROM attempts ORDER BY 1")]
    budgets = [r[0] for r in db.execute(
        "SELECT budget FROM attempts GROUP BY budget ORDER BY MIN(max_states IS NULL), "
        "MIN(max_states)")]
    comparisons = [c for c in (compare(store.db, f) for f in PUBLISHED) if c is not None]
    proofs = [Proof(*row) for row in db.execute(
        "SELECT game, deal, cells, verdict, states, disk_bytes, seconds FROM attempts "
        "WHERE budget LIKE '%search=exhaustive%' "
        "ORDER BY states DESC, game, deal, cells LIMIT ?", (hardest,))]
    decided = {(g, budget, verdict, how): n for g, budget, verdict, how, n in db.execute(
        "SELECT game, budget, verdict, how, COUNT(*) FROM results GROUP BY game, budget, "
        "verdict, how ORDER BY game, budget, verdict, how")}
    return AtlasFigures(cells, fewest, hard, comparisons, engines, budgets, impossible, proofs,
                        decided)


def compare(db: sqlite3.Connection, figure: Published) -> Comparison | None:
    """Our figure beside a published one, or ``None`` when the atlas has no
    deals for it."""
    where, args = "game = ? AND cells = ? AND verdict != 'unknown'", [figure.game, figure.cells]
    if figure.first is not None:
        where += " AND deal BETWEEN ? AND ?"
        args += [figure.first, figure.last]
    if figure.measure.startswith("fewest="):
        k = int(figure.measure.split("=")[1])
        return _compare_fewest(db, figure, k)
    row = db.execute(f"SELECT COUNT(*), SUM(verdict = 'winnable') FROM results WHERE {where}",
                     args).fetchone()
    n, wins = row[0], row[1] or 0
    if not n:
        return None
    share = wins / n
    z = z_score(share, n, figure.share, figure.se or 0.0, figure.population)
    detail = ""
    if figure.impossible_list is not None:
        lost = [d for (d,) in db.execute(
            f"SELECT deal FROM results WHERE {where} AND verdict = 'impossible' ORDER BY deal",
            args)]
        lo, hi = db.execute(f"SELECT MIN(deal), MAX(deal) FROM results WHERE {where}",
                            args).fetchone()
        theirs = [d for d in figure.impossible_list if lo <= d <= hi]
        detail = (f"impossible here: {', '.join(map(str, lost)) or 'none'}; "
                  f"theirs in {lo:,}–{hi:,}: {', '.join(map(str, theirs)) or 'none'}")
    return Comparison(figure, share, n, z, detail)


def _compare_fewest(db: sqlite3.Connection, figure: Published, k: int) -> Comparison | None:
    """Share of deals whose fewest cells are exactly ``k``, among the deals
    of the figure's range whose fewest cells the atlas pins down."""
    verdicts: dict[int, dict[int, str]] = {}
    for deal, cells, verdict in db.execute(
            "SELECT deal, cells, verdict FROM results WHERE game = ? AND deal BETWEEN ? AND ? "
            "AND verdict != 'unknown'", (figure.game, figure.first, figure.last)):
        verdicts.setdefault(deal, {})[cells] = verdict
    pinned = [f for f in (fewest_cells(v) for v in verdicts.values()) if f is not None]
    if not pinned:
        return None
    n = len(pinned)
    share = sum(1 for f in pinned if f == k) / n
    z = z_score(share, n, figure.share, 0.0, figure.population)
    return Comparison(figure, share, n, z, f"{sum(1 for f in pinned if f == k):,} of {n:,}")


# --- text ------------------------------------------------------------------------

def title(game: str) -> str:
    return GAMES[game].title if game in GAMES else game


def pct(x: float | None, digits: int = 2) -> str:
    return "–" if x is None else f"{100 * x:.{digits}f} %"


def fmt_z(z: float | None) -> str:
    if z is None:
        return "0 (exact)"
    if math.isinf(z):
        return "differs (exact)"
    return f"{z:+.2f}"


def fmt_seconds(s: float) -> str:
    return f"{s * 1000:.1f} ms" if s < 1 else f"{s:,.2f} s"


def fewest_label(k: int | None) -> str:
    return "not pinned" if k is None else ("none ≤ 8" if k == NEVER else str(k))


def tables(fig: AtlasFigures) -> list[tuple[str, list[str], list[list[str]]]]:
    """The report's tables as (heading, header, rows) of plain text."""
    out: list[tuple[str, list[str], list[list[str]]]] = []
    rows = []
    for c in fig.cells:
        ci = c.ci95
        rows.append([
            title(c.game), str(c.cells) if GAMES[c.game].max_cells else "–",
            f"{c.first:,}–{c.last:,}", f"{c.deals:,}", f"{c.winnable:,}", f"{c.impossible:,}",
            f"{c.unknown:,}", pct(c.share, 3),
            "–" if ci is None else f"{pct(ci[0], 3)} – {pct(ci[1], 3)}",
            f"{c.solved:,}", f"{c.inferred:,}", f"{c.attempts:,}",
            fmt_seconds(c.solve_seconds), fmt_seconds(c.solve_seconds / c.deals)])
    out.append(("Winnable share by game and cells", [
        "game", "cells", "range", "deals", "winnable", "impossible", "unknown", "winnable share",
        "95 % interval", "solved", "inferred", "solver calls", "solver time",
        "time per deal"], rows))

    games = [g for g in GAMES if fig.fewest.get(g)]
    if games:
        keys: list[int | None] = sorted({k for g in games for k in fig.fewest[g]},
                                        key=lambda k: (k is None, k or 0))
        rows = []
        for g in games:
            total = sum(fig.fewest[g].values())
            rows.append([title(g), f"{total:,}", *(
                f"{fig.fewest[g][k]:,} ({pct(fig.fewest[g][k] / total, 2)})" for k in keys)])
        out.append(("Fewest cells that win each deal", ["game", "deals",
                                                          *map(fewest_label, keys)], rows))

    rows = [[title(g), str(k) if GAMES[g].max_cells else "–", ", ".join(map(str, deals))]
            for (g, k), deals in fig.impossible.items()]
    out.append((f"Impossible deals (table cells with at most {FEW})",
                ["game", "cells", "deals"], rows))

    rows = [[title(h.game), str(h.deal), str(h.cells), h.verdict, str(h.attempts),
             f"{h.states:,}", fmt_seconds(h.seconds)] for h in fig.hardest]
    out.append(("Hardest deals (solver time over all attempts)",
                ["game", "deal", "cells", "verdict", "attempts", "positions", "time"], rows))

    if fig.decided:
        games_seen = [g for g in GAMES if any(k[0] == g for k in fig.decided)]
        rows = []
        for g in games_seen:
            budgets = sorted({k[1] for k in fig.decided if k[0] == g}, key=_budget_order)
            for b in budgets:
                n = {(v, h): fig.decided.get((g, b, v, h), 0)
                     for v in ("winnable", "impossible", "unknown") for h in ("solved", "inferred")}
                rows.append([title(g), _budget_text(b), f"{n['winnable', 'solved']:,}",
                             f"{n['impossible', 'solved']:,}", f"{n['unknown', 'solved']:,}",
                             f"{n['winnable', 'inferred'] + n['impossible', 'inferred']:,}"])
        out.append(("How each row was decided (the search whose verdict the row carries)",
                    ["game", "search", "won", "proven lost", "still unknown",
                     "inferred from another cell count"], rows))

    if fig.proofs:
        rows = [[title(p.game), str(p.deal), str(p.cells), p.verdict, f"{p.states:,}",
                 fmt_bytes(p.disk_bytes) if p.disk_bytes else "in memory",
                 fmt_seconds(p.seconds)] for p in fig.proofs]
        out.append(("Largest proofs (the exhaustive search of the proof pass)",
                    ["game", "deal", "cells", "verdict", "positions", "disk", "time"], rows))

    rows = []
    for cmp in fig.comparisons:
        f = cmp.figure
        sample = ("random deals" if f.first is None
                  else f"the same deals ({f.first:,}–{f.last:,})")
        rows.append([f.label, sample, pct(f.share, 4), pct(cmp.ours, 4), f"{cmp.n:,}",
                     "–" if cmp.ours is None else f"{100 * (cmp.ours - f.share):+.4f} pts",
                     fmt_z(cmp.z), "; ".join(x for x in (f.note, cmp.detail) if x)])
    out.append(("Published figures beside the atlas", [
        "published figure", "compared on", "published", "atlas", "atlas deals", "difference",
        "difference in SE", "notes"], rows))
    return out


def _budget_order(budget: str) -> tuple[bool, int, int, str]:
    """Budgets in the order a run's tiers use them: the portfolio by size,
    then the exhaustive search (by size, then memory)."""
    parts = budget_parts(budget)

    def number(key: str) -> int:
        value = parts.get(key, "0")
        return int(value) if value.isdigit() else 0
    return (search_of(budget) == "exhaustive", number("states"), number("memory"), budget)


def _budget_text(budget: str) -> str:
    """A budget as the report names it.

    >>> _budget_text("states=30000000 timeout=none memory=4096")
    'portfolio, 30,000,000 positions'
    >>> _budget_text("states=2000000000 timeout=none memory=9000 search=exhaustive disk=28")
    'exhaustive search (proof), on disk past 9,000 MB'
    >>> _budget_text("states=30000000 timeout=none memory=4096 search=restarts")
    'portfolio with restarts, 30,000,000 positions'
    >>> _budget_text("states=30000000 timeout=none memory=4096 search=restarts seed=7")
    'portfolio with restarts, 30,000,000 positions, seed 7'
    """
    parts = budget_parts(budget)
    if search_of(budget) == "exhaustive":
        where = f", on disk past {int(parts['memory']):,} MB" if "disk" in parts else ""
        return f"exhaustive search (proof){where}"
    kind = "portfolio with restarts" if search_of(budget) == "restarts" else "portfolio"
    seed = f", seed {parts['seed']}" if "seed" in parts else ""
    return f"{kind}, {int(parts.get('states', '0')):,} positions{seed}"


def fmt_bytes(n: int) -> str:
    """Bytes as a reader takes them in.

    >>> fmt_bytes(27_228_548), fmt_bytes(5 * 2**30)
    ('26 MB', '5.00 GB')
    """
    return f"{n / 2**20:,.0f} MB" if n < 2**30 else f"{n / 2**30:,.2f} GB"


def markdown(fig: AtlasFigures) -> str:
    """The report as Markdown."""
    lines = ["# Solvability atlas", "",
             f"Engines: {', '.join(fig.engines) or '–'}. "
             f"Budgets: {'; '.join(fig.budgets) or '–'}. "
             "Shares are of resolved deals (winnable or impossible) with a 95 % Wilson "
             "interval; *inferred* rows follow by monotonicity in the cell count.", ""]
    for heading, header, rows in tables(fig):
        lines += [f"## {heading}", ""]
        if not rows:
            lines += ["(none)", ""]
            continue
        lines.append("| " + " | ".join(header) + " |")
        lines.append("|" + "|".join("---" if j < 2 else "---:" for j in range(len(header)))
                     + "|")
        lines += ["| " + " | ".join(cell.replace("|", "\\|") for cell in row) + " |"
                  for row in rows]
        lines.append("")
    return "\n".join(lines)


# --- plots -----------------------------------------------------------------------

def _svg(fig: Any) -> str:
    buf = io.StringIO()
    fig.savefig(buf, format="svg", metadata={"Date": None})
    text = buf.getvalue()
    return text[text.index("<svg"):]


def plots(fig: AtlasFigures) -> list[tuple[str, str]]:
    """(caption, inline SVG) for each plot."""
    try:
        import matplotlib
        from matplotlib.figure import Figure
    except ImportError:
        raise AtlasError("the report's plots need matplotlib: pip install 'bakers[atlas]'"
                         ) from None
    out: list[tuple[str, str]] = []
    with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": "bakers-atlas",
                                "font.size": 9}):
        games = [g for g in GAMES if GAMES[g].max_cells
                 and any(c.game == g and c.share is not None for c in fig.cells)]
        if games:
            f = Figure(figsize=(7, 3.6))
            ax = f.subplots()
            for j, g in enumerate(games):
                cs = [c for c in fig.cells if c.game == g and c.ci95 is not None]
                xs = [c.cells + (j - 0.5) * 0.08 for c in cs]
                ys = [100 * (c.share or 0) for c in cs]
                err = [[100 * ((c.share or 0) - c.ci95[0]) for c in cs if c.ci95],
                       [100 * (c.ci95[1] - (c.share or 0)) for c in cs if c.ci95]]
                ax.errorbar(xs, ys, yerr=err, marker="o", capsize=3, label=f"{title(g)} (atlas)")
                pub = [(p.cells, 100 * p.share) for p in PUBLISHED
                       if p.game == g and p.first is None and p.measure == "winnable"]
                if pub:
                    ax.plot([x for x, _ in pub], [y for _, y in pub], linestyle="none",
                            marker="x", markersize=7, label=f"{title(g)} (published, random)")
            ax.set_xlabel("free cells")
            ax.set_ylabel("winnable deals, %")
            ax.set_ylim(-2, 102)
            ax.grid(alpha=0.3)
            ax.legend(loc="lower right", fontsize=8)
            f.tight_layout()
            out.append(("Winnable share by free cells, with 95 % intervals", _svg(f)))

        games = [g for g in GAMES if fig.fewest.get(g)]
        if games:
            f = Figure(figsize=(7, 3.2))
            ax = f.subplots()
            keys = list(range(NEVER + 1))
            width = 0.8 / len(games)
            for j, g in enumerate(games):
                total = sum(fig.fewest[g].values())
                ax.bar([k + (j - (len(games) - 1) / 2) * width for k in keys],
                       [100 * fig.fewest[g][k] / total for k in keys], width=width,
                       label=title(g))
            ax.set_xticks(keys, [fewest_label(k) for k in keys])
            ax.set_xlabel("fewest free cells that win the deal")
            ax.set_ylabel("deals, %")
            ax.grid(axis="y", alpha=0.3)
            ax.legend(fontsize=8)
            f.tight_layout()
            out.append(("Distribution of the fewest cells that win", _svg(f)))

        if fig.cells:
            f = Figure(figsize=(7, 3.2))
            ax = f.subplots()
            for g in GAMES:
                cs = [c for c in fig.cells if c.game == g and c.deals]
                if cs:
                    ax.plot([c.cells for c in cs], [1000 * c.solve_seconds / c.deals for c in cs],
                            marker="o", label=title(g))
            ax.set_yscale("log")
            ax.set_xlabel("free cells")
            ax.set_ylabel("solver time per deal, ms")
            ax.grid(alpha=0.3, which="both")
            ax.legend(fontsize=8)
            f.tight_layout()
            out.append(("Cost of each table cell (all attempts, per deal)", _svg(f)))
    return out


def html_page(fig: AtlasFigures) -> str:
    """The report as one self-contained HTML page."""
    parts = ["<!doctype html>", '<html lang="en"><head><meta charset="utf-8">',
             "<title>bakers: solvability atlas</title>", "<style>",
             "body{font:14px/1.45 system-ui,sans-serif;margin:2em auto;max-width:1100px;"
             "padding:0 1em;color:#222}",
             "table{border-collapse:collapse;margin:.5em 0 1.5em;font-size:13px}",
             "th,td{border:1px solid #ccc;padding:3px 7px;text-align:right}",
             "th:first-child,td:first-child{text-align:left}",
             "th{background:#f3f3f3}figure{margin:1em 0}figcaption{font-weight:600}",
             "</style></head><body>", "<h1>Solvability atlas</h1>",
             f"<p>Engines: {html.escape(', '.join(fig.engines) or '–')}. Budgets: "
             f"{html.escape('; '.join(fig.budgets) or '–')}. Shares are of resolved deals "
             "(winnable or impossible) with a 95&nbsp;% Wilson interval; <em>inferred</em> "
             "rows follow by monotonicity in the cell count.</p>"]
    for caption, svg in plots(fig):
        parts.append(f"<figure><figcaption>{html.escape(caption)}</figcaption>{svg}</figure>")
    for heading, header, rows in tables(fig):
        parts.append(f"<h2>{html.escape(heading)}</h2>")
        if not rows:
            parts.append("<p>(none)</p>")
            continue
        parts.append("<table><thead><tr>" + "".join(f"<th>{html.escape(h)}</th>" for h in header)
                     + "</tr></thead><tbody>")
        parts += ["<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in row) + "</tr>"
                  for row in rows]
        parts.append("</tbody></table>")
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"


# --- export ----------------------------------------------------------------------

EXPORT_FIELDS = ("game", "cells", "deal", "verdict", "how", "states", "seconds")


def export_rows(store: AtlasStore) -> Iterable[Sequence[str]]:
    """The CSV rows, header first: every table row, solved or inferred."""
    yield EXPORT_FIELDS
    for r in store.results():
        yield (r.game, str(r.cells), str(r.deal), r.verdict, r.how, str(r.states),
               f"{r.seconds:.6f}")


__all__ = ["EXPORT_FIELDS", "IMPOSSIBLE", "PUBLISHED", "UNKNOWN", "WINNABLE", "AtlasFigures",
           "export_rows", "gather", "html_page", "markdown", "plots", "z_score"]
