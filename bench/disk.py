#!/usr/bin/env python3
"""Proofs of loss: bakers' exhaustive search in memory and on disk, and Freecell Solver.

    python bench/disk.py                                  # FreeCell 1706, 2143, 10113 with 1 cell
    python bench/disk.py --deals 1568 --memory-mb 1000    # a larger proof

For each deal, one after the other, in one run:

* bakers' exhaustive search in memory (``native.exhaust``, no memory limit);
* bakers' search on disk from an empty folder (``native.exhaust_disk`` in
  ``--memory-mb``, so that its runs are sorted and merged many times): its
  most bytes on disk, as the core counts them while it writes, and bytes a
  position;
* ``fc-solve -l cn`` with as many free cells (an atomic-moves preset, so its
  "could not solve" is a proof too), on a board made before the clock starts.

CPU seconds are the process's own (bakers in process, fc-solve as a child);
positions are bakers' expanded positions and fc-solve's states checked.
Prints a table and the same as Markdown for docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Sequence

from bakers import Board
from bakers.games import find_game
from bakers.solver import native

FCS = "fc-solve"
BOARD_MAKER = "make-microsoft-freecell-board"


def cpu_self() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def fcs_proof(deal: int, cells: int, timeout: float) -> tuple[str, int, float, float, int]:
    """fc-solve's verdict, states checked, wall and CPU seconds, and its
    largest resident memory in bytes."""
    board = subprocess.run([BOARD_MAKER, "-t", str(deal)], check=True, capture_output=True,
                           text=True).stdout
    with tempfile.TemporaryFile("w+") as out:
        start = time.perf_counter()
        proc = subprocess.Popen([FCS, "--freecells-num", str(cells), "-l", "cn"],
                                stdin=subprocess.PIPE, stdout=out, stderr=subprocess.DEVNULL,
                                text=True)
        assert proc.stdin is not None
        proc.stdin.write(board)
        proc.stdin.close()
        timer = threading.Timer(timeout, proc.kill)
        timer.start()
        _, status, usage = os.wait4(proc.pid, 0)
        timer.cancel()
        proc.returncode = os.waitstatus_to_exitcode(status)
        wall = time.perf_counter() - start
        out.seek(0)
        text = out.read()
    cpu, rss = usage.ru_utime + usage.ru_stime, usage.ru_maxrss * 1024
    if proc.returncode < 0:
        verdict = ("timeout" if wall >= timeout
                   else f"killed by signal {-proc.returncode}")
    else:
        verdict = ("impossible" if "could not solve" in text
                   else "winnable" if "This game is solveable" in text else "unknown")
    checked = 0
    for line in text.splitlines():
        if line.startswith("Total number of states checked is"):
            checked = int(line.rsplit(" ", 1)[1].rstrip("."))
    return verdict, checked, wall, cpu, rss


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--deals", default="1706,2143,10113")
    ap.add_argument("--cells", type=int, default=1)
    ap.add_argument("--memory-mb", type=int, default=64,
                    help="the disk search's memory (half of it sorts)")
    ap.add_argument("--skip-fcs", action="store_true")
    ap.add_argument("--fcs-timeout", type=float, default=1800.0)
    args = ap.parse_args(argv)
    if not native.AVAILABLE:
        ap.error("the native core is not built")
    fcs = not args.skip_fcs and shutil.which(FCS) and shutil.which(BOARD_MAKER)
    game = find_game("freecell").with_cells(args.cells)
    rows = []
    for deal in (int(d) for d in args.deals.split(",")):
        board = Board.deal(game, deal)
        c0 = cpu_self()
        mem = native.exhaust(board, timeout=None, max_states=None, max_memory_mb=None)
        c_mem = cpu_self() - c0
        with tempfile.TemporaryDirectory(prefix="bakers-bench-disk-") as folder:
            c0 = cpu_self()
            done = native.exhaust_disk(board, folder, timeout=None, max_states=None,
                                       max_memory_mb=args.memory_mb, max_disk_bytes=None)
            c_disk = cpu_self() - c0
        disk = done.outcome
        if (disk.verdict, disk.states) != (mem.verdict, mem.states):
            print(f"deal {deal}: the disk search found {disk.verdict} in {disk.states:,} "
                  f"positions, the memory search {mem.verdict} in {mem.states:,}",
                  file=sys.stderr)
            return 1
        f = fcs_proof(deal, args.cells, args.fcs_timeout) if fcs else None
        rows.append((deal, mem.verdict, mem.states, c_mem, mem.peak_bytes, c_disk,
                     done.disk_peak, f))
        peer = (f"; fc-solve {f[0]}, {f[1]:,} states, {f[3]:.2f} s CPU ({f[2]:.2f} s wall), "
                f"{f[4] / 2**20:,.0f} MB" if f else "")
        print(f"deal {deal}: {mem.verdict}, {mem.states:,} positions; memory {c_mem:.2f} s "
              f"CPU, {mem.peak_bytes / 2**20:,.0f} MB; disk {c_disk:.2f} s CPU, "
              f"{done.disk_peak / 2**20:,.1f} MB ({done.disk_peak / mem.states:.2f} bytes a "
              f"position){peer}", flush=True)
    print()
    print(f"| FreeCell, {args.cells} cell{'s' if args.cells != 1 else ''} | verdict | positions "
          f"| in memory: CPU | memory | on disk ({args.memory_mb} MB): CPU | disk "
          f"| bytes a position | fc-solve -l cn: CPU | its memory | states checked "
          f"| fc-solve / bakers in memory (CPU) |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for deal, verdict, states, c_mem, peak, c_disk, disk_peak, f in rows:
        tail = (f"{f[3]:.2f} s ({f[0]}) | {f[4] / 2**20:,.0f} MB | {f[1]:,} | "
                f"{f[3] / c_mem:.1f}" if f else "– | – | – | –")
        print(f"| {deal} | {verdict} | {states:,} | {c_mem:.2f} s | {peak / 2**20:,.0f} MB "
              f"| {c_disk:.2f} s | {disk_peak / 2**20:,.1f} MB | {disk_peak / states:.2f} "
              f"| {tail} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
