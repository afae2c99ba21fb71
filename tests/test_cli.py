"""The command line: deal, show, check and replay; good input exits 0, bad
input exits 2 with one line on stderr and never a traceback."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import Result
from helpers import bakers, run_cli
from helpers import invoke as run

from bakers import Board, GameRecord
from bakers.solver import native

DEAL_11982 = """\
AH 3D KD JC 6C JD KC
AS 3H 6H 5D 2C 7D 8D
4H QS 5S 5C TH 8H 2S
AC QC 4D 8C QH 9C 3S
2D 8S 9H 9D 6D 2H
6S 7H JH TD TC QD
TS AD 9S KH 4S 4C
JS KS 3C 7C 7S 5H
"""




def one_line_error(result: Result) -> str:
    """Exit 2, nothing on stdout, a single line on stderr, no traceback."""
    assert result.exit_code == 2, result.output
    assert result.stdout == ""
    assert "Traceback" not in result.stderr
    assert not isinstance(result.exception, Exception) or isinstance(
        result.exception, SystemExit)
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("error: ")
    return lines[0]


# --- deal ---------------------------------------------------------------------------------

def test_deal_freecell_11982() -> None:
    result = run("deal", "freecell", "11982")
    assert result.exit_code == 0
    assert result.stdout == DEAL_11982
    assert result.stderr == ""


def test_deal_bakers_game_with_cells_has_the_freecell_layout() -> None:
    result = run("deal", "bakers_game", "617", "--cells", "3")
    assert result.exit_code == 0
    assert result.stdout == Board.deal("freecell", 617).to_text()


def test_deal_bakers_dozen() -> None:
    result = run("deal", "bakers-dozen", "5")
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert len(lines) == 13
    assert all(len(line.split()) == 4 for line in lines)
    assert result.stdout == Board.deal("bakers_dozen", 5).to_text()


def test_deal_unicode() -> None:
    result = run("deal", "freecell", "11982", "--unicode")
    assert result.exit_code == 0
    assert result.stdout.splitlines()[0] == "A♥ 3♦ K♦ J♣ 6♣ J♦ K♣"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["deal", "freecell", "0"], "deal number 0 is out of range"),
        (["deal", "freecell", "8589934592"], "out of range"),
        (["deal", "freecell", "abc"], "is not a whole number"),
        (["deal", "freecell", "²"], "is not a whole number"),
        (["deal", "freecell", "9" * 5000], "out of range"),
        (["deal", "klondike", "1"], "unknown game 'klondike'"),
        (["deal", "freecell", "1", "--cells", "9"], "0 to 8 free cells"),
        (["deal", "bakers_dozen", "1", "--cells", "2"], "no free cells"),
        (["solve", "freecell", "--deal", "5", "--exhaustive", "--engine", "python"],
         "--exhaustive needs the native engine"),
    ],
)
def test_deal_bad_input(args: list[str], message: str) -> None:
    assert message in one_line_error(run(*args))


@pytest.mark.parametrize("args", [["deal", "freecell"], ["deal", "freecell", "1", "--cells", "x"],
                                  ["no-such-command"]])
def test_usage_errors_exit_2_without_traceback(args: list[str]) -> None:
    result = run(*args)
    assert result.exit_code == 2
    assert result.stdout == ""
    assert "Traceback" not in result.stderr
    assert "Error:" in result.stderr


# --- show ----------------------------------------------------------------------------------

@pytest.fixture
def deal_file(tmp_path: Path) -> Path:
    path = tmp_path / "board.txt"
    path.write_text(DEAL_11982)
    return path


def test_show_unicode(deal_file: Path) -> None:
    result = run("show", str(deal_file))
    assert result.exit_code == 0
    # board text does not say its game: no game name rather than a wrong one
    assert result.stdout.startswith("Position")
    assert "FreeCell" not in result.stdout
    named = run("show", str(deal_file), "--game", "freecell")
    assert named.stdout.startswith("FreeCell")
    assert "0/52 home" in result.stdout
    assert "[A♥]" in result.stdout and "[5♥]" in result.stdout


def test_show_ascii(deal_file: Path) -> None:
    result = run("show", str(deal_file), "--ascii")
    assert result.exit_code == 0
    assert result.stdout.isascii()
    assert "\x1b[" not in result.stdout  # no colour codes
    assert "[AH]" in result.stdout and "[5H]" in result.stdout
    rows = [line for line in result.stdout.splitlines() if line.startswith("[")]
    assert len(rows) == 7  # the deepest column holds 7 cards
    assert rows[0].split() == ["[AH]", "[AS]", "[4H]", "[AC]", "[2D]", "[6S]", "[TS]", "[JS]"]


def test_show_reads_stdin_and_draws_cells_and_foundations() -> None:
    text = "Foundations: H-0 C-A D-0 S-0\nFreecells: KC\n" + DEAL_11982.replace(
        " KC\n", "\n").replace("AC ", "")
    result = run("show", "-", "--ascii", stdin=text)
    assert result.exit_code == 0
    assert "1/52 home" in result.stdout
    assert "[KC]" in result.stdout.splitlines()[1]  # the cells line
    assert "[AC]" in result.stdout.splitlines()[2]  # the foundations line


def test_show_bakers_dozen_and_blocked_and_won(tmp_path: Path) -> None:
    path = tmp_path / "bd.txt"
    path.write_text(Board.deal("bakers_dozen", 5).to_text())
    result = run("show", str(path), "--game", "bakers_dozen", "--ascii")
    assert result.exit_code == 0
    assert "Baker's Dozen" in result.stdout
    assert "cells" not in result.stdout
    won = tmp_path / "won.txt"
    won.write_text("Foundations: H-K C-K D-K S-K\n:\n")
    result = run("show", str(won), "--ascii")
    assert result.exit_code == 0 and "won" in result.stdout
    blocked = tmp_path / "blocked.txt"
    blocked.write_text("Foundations: H-Q C-K D-K S-K\n: KH\n")
    result = run("show", str(blocked), "--game", "bakers_dozen", "--ascii")
    assert result.exit_code == 0
    assert "blocked" not in result.stdout  # K♥ can go home
    blocked.write_text("Foundations: H-J C-K D-K S-K\n: QH KH\n")
    result = run("show", str(blocked), "--game", "bakers_dozen", "--ascii")
    assert "blocked: no legal move" in result.stdout


def test_show_bad_input(tmp_path: Path) -> None:
    bad = tmp_path / "bad.txt"
    bad.write_text("AH AH\n")
    assert "A♥ appears twice" in one_line_error(run("show", str(bad)))
    assert "No such file" in one_line_error(run("show", str(tmp_path / "missing.txt")))


# --- check ---------------------------------------------------------------------------------

def test_check_good(deal_file: Path) -> None:
    result = run("check", str(deal_file))
    assert result.exit_code == 0
    assert result.stdout == "ok: a valid FreeCell position (35 legal moves)\n"
    result = run("check", str(deal_file), "--game", "bakers_game", "--cells", "3")
    assert result.exit_code == 0
    assert result.stdout.startswith("ok: a valid Baker's Game position")


@pytest.mark.parametrize(
    ("text", "args", "message"),
    [
        ("AH\n", [], "51 cards are missing"),
        (DEAL_11982.replace("AH", "XH"), [], "line 1: unknown rank 'X'"),
        (DEAL_11982.replace("3D", "AH"), [], "A♥ appears twice"),
        (DEAL_11982 + ": \n" * 6, ["--game", "freecell"], "14 columns; the game has 8"),
        ("Freecells: AH\n" + DEAL_11982.replace("AH ", ""), ["--cells", "0"],
         "no free cells"),
        (DEAL_11982, ["--game", "spider"], "unknown game 'spider'"),
        (DEAL_11982, ["--cells", "12"], "0 to 8 free cells"),
        ("", [], "no columns found"),
    ],
    ids=lambda v: ("text" if "\n" in v else v) if isinstance(v, str) else None,
)
def test_check_bad(tmp_path: Path, text: str, args: list[str], message: str) -> None:
    path = tmp_path / "board.txt"
    path.write_text(text)
    assert message in one_line_error(run("check", str(path), *args))


def test_check_directory_and_binary(tmp_path: Path) -> None:
    assert "error:" in one_line_error(run("check", str(tmp_path)))
    junk = tmp_path / "junk.bin"
    junk.write_bytes(bytes(range(256)) * 4)
    one_line_error(run("check", str(junk)))


def test_check_huge_input(tmp_path: Path) -> None:
    path = tmp_path / "huge.txt"
    path.write_text("AH " * 400_000)
    assert "too large" in one_line_error(run("check", str(path)))


# --- replay --------------------------------------------------------------------------------

def test_replay(tmp_path: Path) -> None:
    board = Board.deal("bakers_game", 617, cells=3)
    for text in ("3a", "5b"):
        board.push_str(text)
    path = tmp_path / "game.txt"
    path.write_text(GameRecord.of(board).to_text())
    result = run("replay", str(path))
    assert result.exit_code == 0
    assert result.stdout == board.to_text()
    assert result.stderr.strip() == "0/52 home"


def test_replay_illegal_move(tmp_path: Path) -> None:
    path = tmp_path / "game.txt"
    path.write_text("Game: freecell\nDeal: 1\nMoves: 1a 1a\n")
    assert "move 2 (1a): free cell a is taken" in one_line_error(run("replay", str(path)))


# --- a real process ------------------------------------------------------------------------



def test_python_m_bakers_deal_and_check() -> None:
    done = bakers("deal", "freecell", "11982")
    assert (done.returncode, done.stdout, done.stderr) == (0, DEAL_11982, "")
    done = bakers("check", "-", stdin=DEAL_11982)
    assert done.returncode == 0 and done.stdout.startswith("ok: ")


@pytest.mark.parametrize(
    ("args", "stdin", "message"),
    [
        (["deal", "freecell", "0"], None, "error: deal number 0 is out of range"),
        (["check", "-"], "AH\n", "error: 51 cards are missing"),
        (["show", "-", "--ascii"], "KH KH\n", "error: K♥ appears twice"),
    ],
)
def test_python_m_bakers_errors(args: list[str], stdin: str | None, message: str) -> None:
    done = bakers(*args, stdin=stdin)
    assert done.returncode == 2
    assert done.stdout == ""
    assert "Traceback" not in done.stderr
    assert len(done.stderr.splitlines()) == 1
    assert done.stderr.startswith(message)


# --- small fixes: titles, broken pipes, a browser that is not there ----------------------------

def test_show_of_a_piped_deal_names_no_wrong_game() -> None:
    """``bakers deal bakers_game 617 | bakers show -`` must not call it FreeCell."""
    text = run("deal", "bakers_game", "617").stdout
    shown = run("show", "-", stdin=text)
    assert shown.exit_code == 0
    assert "FreeCell" not in shown.stdout and "Baker's Game" not in shown.stdout
    dozen = run("show", "-", stdin=run("deal", "bakers_dozen", "5").stdout)
    assert dozen.exit_code == 0 and "FreeCell" not in dozen.stdout
    assert len([ln for ln in dozen.stdout.splitlines() if ln.startswith("[")]) == 4


def test_show_of_a_game_record_names_its_game(tmp_path: Path) -> None:
    board = Board.deal("bakers_game", 617)
    board.push_str("1a")
    shown = run("show", "-", stdin=GameRecord.of(board).to_text())
    assert shown.exit_code == 0
    assert shown.stdout.startswith("Baker's Game, deal 617")


def test_output_into_a_closed_pipe_exits_quietly() -> None:
    """``bakers … | head -1``: no "Broken pipe" message, no traceback."""
    script = ("import subprocess, sys\n"
              "p = subprocess.Popen([sys.executable, '-m', 'bakers', 'deal', 'bakers_dozen', '5'],"
              " stdout=subprocess.PIPE, stderr=subprocess.PIPE)\n"
              "p.stdout.close()\n"
              "err = p.stderr.read().decode()\n"
              "print(p.wait(), repr(err))\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=60)
    code, err = done.stdout.split(" ", 1)
    assert err.strip() == "''", err
    assert code == "0"
    piped = subprocess.run(
        f"{sys.executable} -m bakers solve bakers_game --deal 617 | head -1",
        shell=True, capture_output=True, text=True, timeout=120)
    assert piped.stdout.strip() != ""
    assert "Broken pipe" not in piped.stderr and "Traceback" not in piped.stderr


def test_serve_open_without_a_browser_prints_the_address(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from bakers.cli import web as cli_web

    printed: list[str] = []
    monkeypatch.setattr(cli_web.webbrowser, "open", lambda _url: False)
    monkeypatch.setattr(cli_web.click, "echo", lambda text="", **_kw: printed.append(str(text)))
    cli_web.open_in_browser("http://127.0.0.1:8000/")
    assert any("http://127.0.0.1:8000/" in line and "browser" in line for line in printed)


def test_solve_exhaustive() -> None:
    """The exhaustive search's verdicts, through the command line."""
    if not native.AVAILABLE:
        pytest.skip("the native solver core is not built here")
    lost = json.loads(run("solve", "freecell", "--deal", "27", "--cells", "1", "--exhaustive",
                          "--json").stdout)
    assert lost["verdict"] == "impossible" and lost["engine"] == "native"
    # every position reachable, each once (234,772 without rule 10, 318,880
    # without rule 6 too)
    assert lost["states"] == 154_430
    won = run("solve", "freecell", "--deal", "26", "--cells", "1", "--exhaustive")
    assert won.exit_code == 0 and won.stdout.startswith("winnable:")


def test_solve_restarts() -> None:
    """--restarts: the first stage, then restarts taking turns with the main
    search, which still proves a loss (here in fewer positions than the
    portfolio, whose beams come first); it names what it cannot be combined
    with."""
    if not native.AVAILABLE:
        pytest.skip("the native solver core is not built here")
    lost = json.loads(run("solve", "freecell", "--deal", "27", "--cells", "1", "--restarts",
                          "--json").stdout)
    assert (lost["verdict"], lost["states"]) == ("impossible", 155_430)
    won = run("solve", "bakers_dozen", "--deal", "1", "--restarts")
    assert won.exit_code == 0 and won.stdout.startswith("winnable:")
    for extra in (["--exhaustive"], ["--engine", "python"]):
        bad = run("solve", "freecell", "--deal", "1", "--restarts", *extra)
        assert bad.exit_code == 2 and "--restarts" in bad.output


def test_solve_seed() -> None:
    """--seed draws the restarts' weights from another seed: the library's
    is 1, the same seed gives the same count, another seed another search;
    without restarts in the schedule it is refused."""
    if not native.AVAILABLE:
        pytest.skip("the native solver core is not built here")

    def states(*extra: str) -> int:
        out = json.loads(run("solve", "freecell", "--deal", "2341", "--cells", "1",
                             "--restarts", "--json", *extra).stdout)
        assert out["verdict"] == "winnable"
        return int(out["states"])

    default = states()
    assert states("--seed", "1") == default
    assert states("--seed", "3") == states("--seed", "3") != default
    won = json.loads(run("solve", "bakers_dozen", "--deal", "1", "--seed", "5", "--json").stdout)
    assert won["verdict"] == "winnable"  # Baker's Dozen's portfolio ends with restarts
    for extra in ([], ["--engine", "python"], ["--exhaustive"]):
        bad = run("solve", "freecell", "--deal", "1", "--seed", "2", *extra)
        assert bad.exit_code == 2 and "seed" in bad.output and "Traceback" not in bad.output
    assert run("solve", "freecell", "--deal", "1", "--seed", "-1").exit_code == 2


# --- one error path --------------------------------------------------------------------------

@pytest.mark.parametrize("args", [
    ["deal", "nosuchgame", "1"],
    ["solve", "freecell", "--deal", "1", "--timeout", "inf"],
    ["hint", "-", "--game", "freecell", "--budget", "nan"],
    ["survey", "freecell", "1", "2", "--max-memory", "8", "--no-progress"],
    ["survey", "freecell", "1", "2", "--short", "--short-seconds", "0", "--no-progress"],
    ["atlas", "run", "--chunk", "0", "--out", "never.sqlite"],
    ["atlas", "run", "--cells", "0-9", "--out", "never.sqlite"],
    ["rate", "freecell", "0"],
])
def test_every_face_reports_bad_input_in_one_line(
        args: list[str], capsys: pytest.CaptureFixture[str], tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Library errors (the solver's SolverError among them) reach the user as
    one line with exit status 2, through the one handler of the root group."""
    monkeypatch.chdir(tmp_path)
    code, out, err = run_cli(args, capsys)
    assert (code, out) == (2, "")
    assert err.startswith("error: ") and err.count("\n") == 1, err
    assert not (tmp_path / "never.sqlite").exists()
