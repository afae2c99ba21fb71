"""Game records live in their own module, above the board (as python-chess
keeps PGN apart from the board): imports point one way only."""

from __future__ import annotations

import ast
from pathlib import Path

import bakers
from bakers import Board, GameRecord


def test_the_record_is_in_its_own_module() -> None:
    assert GameRecord.__module__ == "bakers.record"
    board = Board.deal("bakers_game", 617)
    board.push_str("1a")
    assert GameRecord.from_text(GameRecord.of(board).to_text()).replay() == board


def imports_of(module: str) -> set[str]:
    """The ``bakers`` modules ``module`` imports, anywhere in its source."""
    path = Path(bakers.__file__).parent / (module.replace(".", "/") + ".py")
    found: set[str] = set()
    package = module.rsplit(".", 1)[0] if "." in module else ""
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.level:
            base = package.split(".")[: max(0, len(package.split(".")) - (node.level - 1))]
            name = ".".join([p for p in base if p] + ([node.module] if node.module else []))
            found.add(name)
    return found


def test_core_imports_point_one_way() -> None:
    """Each core module imports only the ones below it (the notation no
    longer reaches up to the board for records); the command line's modules
    import from ``common`` and the library, never back from the package root."""
    layers = ["errors", "cards", "games", "deals", "notation", "options", "board", "record"]
    for i, module in enumerate(layers):
        above = set(layers[i + 1:])
        assert not imports_of(module) & above, (module, imports_of(module) & above)
    commands = sorted(p.stem for p in (Path(bakers.__file__).parent / "cli").glob("*.py")
                      if p.stem != "__init__")
    assert {"common", "play", "solver"} <= set(commands)
    for name in commands:
        assert "cli" not in imports_of(f"cli.{name}"), name
    assert not {m for m in imports_of("cli.common") if m.startswith("cli")}
