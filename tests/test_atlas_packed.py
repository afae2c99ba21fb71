"""A packed atlas (``*.csv.gz``), the form kept in the repository: every
atlas command takes one, a run adds to it, and the same atlas always packs
to the same bytes."""

from __future__ import annotations

import gzip
import subprocess
import sys
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
        assert fh.readline().strip() == "bakers atlas,2"
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


def test_an_atlas_of_the_first_format_is_read_and_carried_forward(tmp_path: Path) -> None:
    """Files written before attempts kept their proofs' disk (format 1):
    packed or SQLite, every command reads them, and a run writes them back
    in today's format with the same rows."""
    packed = tmp_path / "atlas.csv.gz"
    assert bakers("atlas", "run", "--out", str(packed), "--deals", "1-50", *RUN).returncode == 0
    rows = export(packed)
    with gzip.open(packed, "rt") as fh:
        lines = fh.read().splitlines()
    old = ["bakers atlas,1"] + [line.rsplit(",", 1)[0] if line.startswith("attempts,") else line
                               for line in lines[1:]]  # the disk column dropped
    with gzip.open(packed, "wt") as fh:
        fh.write("\n".join(old) + "\n")
    assert export(packed) == rows
    plain = tmp_path / "atlas.sqlite"
    assert bakers("atlas", "run", "--out", str(plain), "--deals", "1-50", *RUN).returncode == 0
    with open_store(plain) as store:
        store.db.execute("ALTER TABLE attempts DROP COLUMN disk_bytes")
        store.db.execute("UPDATE meta SET value = '1' WHERE key = 'schema'")
        store.db.commit()
    assert without_seconds(export(plain)) == without_seconds(rows)
    with open_store(plain) as store:
        assert store.db.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone() == ("2",)
        assert store.db.execute("SELECT SUM(disk_bytes) FROM attempts").fetchone() == (0,)
    more = bakers("atlas", "run", "--out", str(packed), "--deals", "1-60", *RUN)
    assert more.returncode == 0, more.stderr
    with gzip.open(packed, "rt") as fh:
        assert fh.readline().strip() == "bakers atlas,2"
    after = export(packed)
    assert set(rows[1:]) <= set(after[1:]) and len(after) == 1 + 2 * 60


def test_the_atlas_page_shows_the_committed_atlas() -> None:
    """docs/atlas.md's tables are the report of data/atlas/atlas.csv.gz."""
    root = Path(__file__).resolve().parent.parent
    done = subprocess.run([sys.executable, str(root / "scripts" / "atlas_tables.py"), "--check"],
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr


def test_atlases_run_apart_merge_into_one(tmp_path: Path) -> None:
    """``bakers atlas merge``: attempts made elsewhere taken in (packed or
    SQLite), an unknown replaced where the other file resolved it, rows made
    again across both; merging twice changes nothing."""
    one, two, whole = tmp_path / "one.csv.gz", tmp_path / "two.sqlite", tmp_path / "whole.sqlite"
    tiny = ["--max-states", "60", "--retry-max-states", "0", "--proof-max-states", "0"]
    assert bakers("atlas", "run", "--out", str(one), "--deals", "1-30", *RUN, *tiny
                  ).returncode == 0
    assert "unknown" in "\n".join(export(one))  # 60 positions leave some open
    before = [r for r in without_seconds(export(one))[1:] if int(r.split(",")[2]) < 20]
    assert bakers("atlas", "run", "--out", str(two), "--deals", "20-50", *RUN).returncode == 0
    assert bakers("atlas", "run", "--out", str(whole), "--deals", "1-50", *RUN).returncode == 0
    done = bakers("atlas", "merge", str(one), str(two))
    assert done.returncode == 0, done.stderr
    merged = without_seconds(export(one))
    assert len(merged) == 1 + 2 * 50
    # deals 20-50 as the larger budget decided them; 1-19 as the tiny one left them
    assert [r for r in merged[1:] if int(r.split(",")[2]) < 20] == before
    assert {r for r in merged[1:] if int(r.split(",")[2]) >= 20} == \
        {r for r in without_seconds(export(whole))[1:] if int(r.split(",")[2]) >= 20}
    again = bakers("atlas", "merge", str(one), str(two))
    assert again.returncode == 0 and "0 attempts taken in" in again.stdout
    assert without_seconds(export(one)) == merged
    bad = bakers("atlas", "merge", str(one), str(tmp_path / "none.sqlite"))
    assert bad.returncode == 2 and "Traceback" not in bad.stderr


def test_a_merged_copy_adds_only_its_new_runs(tmp_path: Path) -> None:
    """A copy of an atlas that went on elsewhere, merged back: its new
    attempts come with their one new run; the runs the copy shares with the
    file are not added again (the runs table does not double)."""
    one = tmp_path / "one.csv.gz"
    tiny = ["--max-states", "60", "--retry-max-states", "0", "--proof-max-states", "0"]
    assert bakers("atlas", "run", "--out", str(one), "--deals", "1-10", *RUN, *tiny
                  ).returncode == 0
    copy = tmp_path / "copy.csv.gz"
    copy.write_bytes(one.read_bytes())
    assert bakers("atlas", "run", "--out", str(copy), "--deals", "1-10", *RUN,
                  "--max-states", "60", "--retry-max-states", "5000", "--proof-max-states", "0",
                  "--retry-unknown").returncode == 0

    def runs(path: Path) -> list[str]:
        with gzip.open(path, "rt", encoding="utf-8") as fh:
            return [line for line in fh if line.startswith("runs,")]

    before = runs(one)
    done = bakers("atlas", "merge", str(one), str(copy))
    assert done.returncode == 0, done.stderr
    assert "0 attempts taken in" not in done.stdout
    assert len(runs(one)) == len(before) + 1
