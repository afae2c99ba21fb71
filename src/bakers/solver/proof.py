"""Proofs larger than memory: the exhaustive search that spills to disk.

``solve(board, search="exhaustive", disk=DiskPlan(...))`` runs the core's
depth-first exhaustive search in the memory given; when its positions no
longer fit, it goes on with the core's breadth-first search by layers (the
cards home, which never go down) with its positions on disk, in a work
directory: sorted runs of each level's children merged against the layer's
level files so far (delayed duplicate detection), the children with more
cards home kept as sorted chunks of their layer's pending file. Both
searches expand the same positions under the same pruning rules, so a proof
of loss counts as many either way. Every finished level is a checkpoint: a search stopped by
a limit, a kill or a power cut goes on with ``resume`` (``bakers solve ...
--exhaustive --resume --work-dir DIR``), on another day or machine, and ends
with the same verdict and count as one never stopped. A win's line is found
back through the level files and replayed by the rules engine like any other.
"""

from __future__ import annotations

import dataclasses
import os
import shutil
import tempfile
import time

from ..board import Board
from ..errors import SolverError
from ..verdicts import limit_text
from .native import Outcome, Progress, exhaust, exhaust_disk

STATE_FILE = "state"  # the checkpoint in a work directory (csrc/disk.c)


@dataclasses.dataclass(frozen=True)
class DiskPlan:
    """How an exhaustive search may spill to disk: at most ``max_disk_gb``
    gigabytes in ``work_dir`` (``None``: a new folder in the user's cache
    directory, removed once the search decides), ``resume`` to go on from the
    checkpoint in ``work_dir`` (the in-memory attempt is skipped), a
    ``progress`` callable (positions, layer, level, disk bytes), and
    ``remove_dir``: ``work_dir`` goes too once the search decides."""

    max_disk_gb: float
    work_dir: str | None = None
    resume: bool = False
    progress: Progress | None = None
    remove_dir: bool = False

    def __post_init__(self) -> None:
        if not (self.max_disk_gb > 0 and self.max_disk_gb < float("inf")):
            raise SolverError(f"the disk limit must be a finite number of GB above 0, "
                              f"not {self.max_disk_gb}")
        if self.resume and self.work_dir is None:
            raise SolverError("--resume needs the --work-dir of the search to go on with")
        if self.resume and not os.path.isfile(os.path.join(self.work_dir or "", STATE_FILE)):
            raise SolverError(f"{self.work_dir} holds no search to resume")

    @property
    def max_disk_bytes(self) -> int:
        return int(self.max_disk_gb * 1024**3)


def _work_dir(plan: DiskPlan) -> tuple[str, bool]:
    """The work directory, and whether this search made it."""
    if plan.work_dir is not None:
        os.makedirs(plan.work_dir, exist_ok=True)
        return plan.work_dir, False
    import platformdirs

    base = os.path.join(platformdirs.user_cache_dir("bakers"), "proofs")
    os.makedirs(base, exist_ok=True)
    return tempfile.mkdtemp(prefix="proof-", dir=base), True


def _clear(folder: str, made: bool) -> None:
    """A decided search's files go (and the folder, if this search made it)."""
    if made:
        shutil.rmtree(folder, ignore_errors=True)
        return
    for name in os.listdir(folder):
        if name == STATE_FILE or name.endswith(".bin") or name in ("state.tmp", "vis.new"):
            os.remove(os.path.join(folder, name))


def spill(board: Board, plan: DiskPlan, *, timeout: float | None, max_states: int | None,
          max_memory_mb: int | None) -> Outcome:
    """The exhaustive search of ``board`` in ``max_memory_mb``, on disk once
    memory runs out (at once with ``plan.resume``). The outcome's ``states``
    are the deciding search's own; an unknown outcome's limit says where the
    proof so far is kept and how to go on."""
    start = time.perf_counter()
    if not plan.resume:
        found = exhaust(board, timeout=timeout, max_states=max_states,
                        max_memory_mb=max_memory_mb)
        if found.verdict != "unknown" or found.limit != "memory":
            return found
    folder, made = _work_dir(plan)
    left = None if timeout is None else max(timeout - (time.perf_counter() - start), 0.001)
    try:
        done = exhaust_disk(board, folder, timeout=left, max_states=max_states,
                            max_memory_mb=max_memory_mb, max_disk_bytes=plan.max_disk_bytes,
                            resume=plan.resume, progress=plan.progress)
    except ValueError as exc:
        raise SolverError(f"{folder}: {exc}") from None
    except OSError as exc:
        raise SolverError(f"{folder}: {exc}") from None
    found = done.outcome
    if found.verdict != "unknown":
        _clear(folder, made or plan.remove_dir)
        return found
    words = (f"disk limit {plan.max_disk_gb:g} GB" if found.limit == "disk"
             else limit_text(found.limit, left, max_states, max_memory_mb))
    kept = (f"{words}; the proof so far is kept in {folder} "
            f"(--resume --work-dir {folder} goes on)")
    return dataclasses.replace(found, limit=kept)
