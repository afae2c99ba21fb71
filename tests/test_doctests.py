"""Every example in the package's docstrings runs, collected once here."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import bakers

OPTIONAL = {"bakers.atlas.run": "distributed"}  # modules whose extra may be missing


def modules_with_examples() -> list[str]:
    names = []
    for info in pkgutil.walk_packages(bakers.__path__, "bakers."):
        spec = info.module_finder.find_spec(info.name, None)  # type: ignore[call-arg]
        origin = spec.origin if spec else None
        if origin and origin.endswith(".py"):
            with open(origin, encoding="utf-8") as source:
                if ">>> " in source.read():
                    names.append(info.name)
    return sorted(names)


MODULES = modules_with_examples()


def test_the_rules_engine_has_examples() -> None:
    assert {"bakers.board", "bakers.cards", "bakers.deals", "bakers.games",
            "bakers.notation"} <= set(MODULES)


@pytest.mark.parametrize("name", MODULES)
def test_module_examples_pass(name: str) -> None:
    if name in OPTIONAL:
        pytest.importorskip(OPTIONAL[name])
    result = doctest.testmod(importlib.import_module(name))
    assert (result.failed, result.attempted > 0) == (0, True)
