"""A packed atlas (``*.csv.gz``), the form kept in the repository: every
atlas command takes one, a run adds to it, and the same atlas always packs
to the same bytes."""

from __future__ import annotations

import gzip
from pathlib import Path

from helpers import bakers

from bakers.atlas import open_store

RUN = ["--games", "freecell,bakers_game", "--cells", "4", "--workers", "1", "--no-progress"]


def export(path: Path) -> list[str]:
    out = bakers("atlas", "export", str(path))
    assert out.returncode == 0, out.stderr
    return out.stdout.splitlines()


def without_seconds(rows: list[str]) -> list[str]:
    return [row.rsplit(",", 1)[0] for row in rows]


def test_a_packed_atlas_holds_what_a_plain_one_holds(tmp_path: Path) -> None:
    plain, packed = tmp_path / "atlas.sqlite", tmp_path / "atlas.csv.gz"
    for out in (plain, packed):
        done = bakers("atlas", "run", "--out", str(out), "--deals", "1-300", *RUN)
        assert done.returncode == 0, done.stderr
    assert without_seconds(export(plain)) == without_seconds(export(packed))
    assert packed.read_bytes()[:2] == b"\x1f\x8b"  # gzip
    with gzip.open(packed, "rt") as fh:
        assert fh.readline().strip() == "bakers atlas,1"
    # a run on the packed file starts from it and adds to it
    more = bakers("atlas", "run", "--out", str(packed), "--deals", "1-400", *RUN)
    assert more.returncode == 0, more.stderr
    rows = export(packed)
    assert len(rows) == 1 + 2 * 400
    assert without_seconds(rows[1:301]) == without_seconds(export(plain)[1:301])
    report = bakers("atlas", "report", str(packed))
    assert report.returncode == 0 and "Solvability atlas" in report.stdout


def test_the_same_atlas_packs_to_the_same_bytes(tmp_path: Path) -> None:
    packed = tmp_path / "atlas.csv.gz"
    assert bakers("atlas", "run", "--out", str(packed), "--deals", "1-50", *RUN).returncode == 0
    before = packed.read_bytes()
    with open_store(packed) as store:
        store.changed = True  # written back unchanged
    assert packed.read_bytes() == before
    with open_store(packed, create=False):
        pass  # read only: not written at all
    assert packed.read_bytes() == before


def test_a_file_that_is_not_a_packed_atlas_is_refused_in_one_line(tmp_path: Path) -> None:
    bad = tmp_path / "atlas.csv.gz"
    with gzip.open(bad, "wt") as fh:
        fh.write("game,cells\n")
    out = bakers("atlas", "export", str(bad))
    assert out.returncode == 2
    assert "not a packed atlas" in out.stderr and "Traceback" not in out.stderr
    bad.write_bytes(b"not gzip at all")
    out = bakers("atlas", "report", str(bad))
    assert out.returncode == 2 and "not a packed atlas" in out.stderr
