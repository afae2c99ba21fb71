"""The words the solver, surveys and the atlas share: a verdict, and the
limits that bound a search (and the words for the limit that stopped one).

>>> Verdict("impossible") is Verdict.IMPOSSIBLE, VERDICTS
(True, ('winnable', 'impossible', 'unknown'))
>>> limit_text("states", None, 3_000_000, None), limit_text("timeout", 5.0, None, None)
('state limit 3,000,000', 'timeout 5 s')
"""

from __future__ import annotations

import dataclasses
import enum
import math

from .errors import SolverError


class Verdict(enum.StrEnum):
    """The solver's answer about a position."""

    WINNABLE = "winnable"
    IMPOSSIBLE = "impossible"
    UNKNOWN = "unknown"


VERDICTS = tuple(v.value for v in Verdict)
"""The verdicts as the words stored in CSV files and databases."""


def check_limits(timeout: float | None, max_states: int | None,
                 max_memory_mb: int | None) -> None:
    """Raise :class:`SolverError` unless every limit given is finite and positive."""
    if timeout is not None and not (math.isfinite(timeout) and timeout > 0):
        raise SolverError(f"the timeout must be a finite number of seconds above 0, not {timeout}")
    if max_states is not None and max_states < 1:
        raise SolverError(f"the state limit must be at least 1, not {max_states}")
    if max_memory_mb is not None and max_memory_mb < 1:
        raise SolverError(f"the memory limit must be at least 1 MB, not {max_memory_mb}")


def limit_text(kind: str | None, timeout: float | None, max_states: int | None,
               max_memory_mb: int | None) -> str | None:
    """The words for the limit of kind ``kind`` (``"states"``, ``"timeout"``,
    ``"memory"``) that stopped a search; any other kind is returned as it is."""
    if kind == "timeout":
        return f"timeout {timeout:g} s"
    if kind == "states":
        return f"state limit {max_states:,}"
    if kind == "memory":
        return f"memory limit {max_memory_mb or 0:,} MB"
    return kind


@dataclasses.dataclass(frozen=True)
class Limits:
    """The solver's limits for each deal (``None``: no limit), and how it
    runs: ``engine`` (``None``: native where built) and ``check``, what
    replays each winning line before it counts (``None``: the compiled
    core's line checker with the native engine, the rules engine with the
    Python one; see :func:`bakers.solver.solve`)."""

    timeout: float | None = None
    max_states: int | None = 3_000_000
    max_memory_mb: int | None = 4096
    engine: str | None = None
    check: str | None = None
    short_seconds: float | None = None  # the short-line search's time per deal
    search: str = "portfolio"  # or "exhaustive": see bakers.solver.solve
    max_disk_gb: float | None = None  # an exhaustive search may spill this much to disk
    seed: int | None = None  # the restarts' seed (None: the library's): see bakers.solver.solve

    @classmethod
    def asked(cls, *, timeout: float | None, max_states: int | None,
              max_memory_mb: int | None, engine: str, check: str | None,
              short_seconds: float | None) -> Limits:
        """Limits as a person asked for them on the command line, each checked:
        :class:`SolverError` names the option at fault.

        >>> Limits.asked(timeout=None, max_states=0, max_memory_mb=None, engine="python",
        ...              check=None, short_seconds=None)
        Traceback (most recent call last):
        bakers.errors.SolverError: --timeout/--max-states: the state limit must be at least 1, not 0
        """
        try:
            check_limits(timeout, max_states, None)
        except ValueError as exc:
            raise SolverError(f"--timeout/--max-states: {exc}") from None
        if max_memory_mb is not None and max_memory_mb < 16:
            raise SolverError("--max-memory must be at least 16 (MB)")
        if check == "core" and engine != "native":
            raise SolverError("--check core needs the native engine")
        if short_seconds is not None:
            try:
                check_limits(short_seconds, None, None)
            except ValueError as exc:
                raise SolverError(f"--short-seconds: {exc}") from None
        return cls(timeout=timeout, max_states=max_states, max_memory_mb=max_memory_mb,
                   engine=engine, check=check, short_seconds=short_seconds)
