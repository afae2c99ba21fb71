"""docs/atlas.md's tables, made from the atlas kept in the repository.

    python scripts/atlas_tables.py           # rewrite the tables in docs/atlas.md
    python scripts/atlas_tables.py --check   # exit 1 if they are not the file's

The tables are ``bakers atlas report data/atlas/atlas.csv.gz`` (Markdown), its
headings one level down, between the two marker lines of docs/atlas.md; the
test suite runs ``--check``, so the page cannot drift from the data.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ATLAS = ROOT / "data" / "atlas" / "atlas.csv.gz"
PAGE = ROOT / "docs" / "atlas.md"
BEGIN = "<!-- tables: bakers atlas report data/atlas/atlas.csv.gz (scripts/atlas_tables.py) -->"
END = "<!-- end of the tables -->"


def tables() -> str:
    out = subprocess.run([sys.executable, "-m", "bakers", "atlas", "report", str(ATLAS)],
                         capture_output=True, text=True, check=True).stdout
    lines = out.strip().splitlines()
    if lines and lines[0].startswith("# "):
        lines = lines[1:]  # the page has its own title
    return "\n".join("#" + line if line.startswith("##") else line for line in lines).strip()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true", help="only check that the page is current")
    args = ap.parse_args(argv)
    page = PAGE.read_text(encoding="utf-8")
    if page.count(BEGIN) != 1 or page.count(END) != 1:
        print(f"{PAGE}: the two marker lines are not there once each", file=sys.stderr)
        return 2
    head, rest = page.split(BEGIN)
    _, tail = rest.split(END)
    new = f"{head}{BEGIN}\n\n{tables()}\n\n{END}{tail}"
    if args.check:
        if new != page:
            print(f"{PAGE}: its tables are not those of {ATLAS.name}; "
                  f"run python scripts/atlas_tables.py", file=sys.stderr)
            return 1
        return 0
    PAGE.write_text(new, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
