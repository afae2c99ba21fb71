"""The atlas's error: one line a person reads."""

from __future__ import annotations

from ..errors import BakersError


class AtlasError(BakersError):
    """An atlas that cannot run or report as asked: bad options, a file that
    is not an atlas, verdicts that contradict monotonicity, a lost cluster."""
