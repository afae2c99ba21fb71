"""The solvability atlas: for every game, cell count and deal of a range, the
verdict — solved, or following by monotonicity from another cell count — and
for FreeCell and Baker's Game the fewest cells that win each deal; run on
local processes or a Dask cluster, kept in one SQLite file, reported as HTML
and Markdown, exported as CSV.

The pieces: :mod:`.plan` (which cell counts to solve), :mod:`.work` (what a
worker does), :mod:`.store` (the file), :mod:`.run` (chunks, tiers,
executors), :mod:`.report` (figures, comparisons, plots).
"""

from .errors import AtlasError
from .plan import parse_cells, parse_deals, parse_games
from .run import (
    DaskExecutor,
    InlineExecutor,
    Request,
    RunOptions,
    RunSummary,
    dask_executor,
    run_atlas,
)
from .store import AtlasStore, ResultRow, open_store

__all__ = [
    "AtlasError", "AtlasStore", "DaskExecutor", "InlineExecutor", "Request", "ResultRow",
    "RunOptions", "RunSummary", "dask_executor", "open_store", "parse_cells", "parse_deals",
    "parse_games", "run_atlas",
]
