"""A server a club can put on the internet, tested against real servers on
free ports: games belong to their player, cross-site requests are refused,
security headers, rate limits, header timeouts, bounded bodies and short
errors, strict input, the error statuses in /openapi.json, exports and
transfer codes, and a cross-origin form in real Chromium."""

from __future__ import annotations

import csv
import io
import re
import shutil
import socket
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import pytest
from conftest import LIVE_LIMITS, LiveServer, start_server

from bakers.record import GameRecord

WIN_IN_TWO = """Foundations: H-J C-K D-Q S-J
QS KH
QH KS
KD
"""
JSON = {"content-type": "application/json"}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """A server for this module's tests (rate limits of their own below)."""
    folder = tmp_path_factory.mktemp("security")
    live = start_server(f"sqlite:///{folder / 's.sqlite3'}", folder / "server.log",
                        args=LIVE_LIMITS)
    try:
        yield live
    finally:
        live.stop()


@pytest.fixture
def limited(tmp_path: Path) -> Iterator[LiveServer]:
    """A server with small rate limits (5 games, 3 hints a minute per player)."""
    live = start_server(f"sqlite:///{tmp_path / 'l.sqlite3'}", tmp_path / "server.log",
                        args=("--games-per-minute", "5", "--hints-per-minute", "3"))
    try:
        yield live
    finally:
        live.stop()


def player(server: LiveServer) -> httpx.Client:
    """A new player (a client with its own cookie jar)."""
    return httpx.Client(base_url=server.url, timeout=20)


def new_game(c: httpx.Client, **body: Any) -> dict[str, Any]:
    body.setdefault("game", "bakers_game")
    r = c.post("/api/games", json=body)
    assert r.status_code == 201, r.text
    data: dict[str, Any] = r.json()
    return data


# --- 1. games belong to their player ----------------------------------------------------------

WRITE_ROUTES: list[tuple[str, str, dict[str, Any] | None]] = [
    ("POST", "/moves", {"move": "5a"}), ("POST", "/moves", {"from": "5"}),
    ("POST", "/intent", {"from": "5", "to": "b"}), ("POST", "/undo", {}),
    ("POST", "/redo", {}), ("POST", "/restart", {}), ("POST", "/pause", {}),
    ("POST", "/resume", {}), ("POST", "/ping", {}), ("POST", "/abandon", {}),
    ("POST", "/settings", {"autoplay": "off"}), ("GET", "/hint", None),
]


def test_another_players_cookie_gets_404_on_every_write_route(server: LiveServer) -> None:
    with player(server) as owner, player(server) as other:
        g = new_game(owner, deal=617)
        gid = g["id"]
        owner.post(f"/api/games/{gid}/moves", json={"move": "5a"}).raise_for_status()
        owner.post(f"/api/games/{gid}/undo", json={}).raise_for_status()  # something to redo
        before = owner.get(f"/api/games/{gid}").json()
        other.get("/")  # the other player has a cookie of their own
        assert other.cookies.get("bakers_player") != owner.cookies.get("bakers_player")
        for method, suffix, body in WRITE_ROUTES:
            r = other.request(method, f"/api/games/{gid}{suffix}", json=body)
            assert r.status_code == 404, (suffix, r.status_code, r.text)
            assert r.json() == {"error": "there is no game with this id"}
            # exactly what a game that does not exist answers
            missing = other.request(method, f"/api/games/nosuchgame1{suffix}", json=body)
            assert missing.status_code == 404 and missing.json() == r.json()
        r = other.post("/api/games", json={"game": "bakers_game", "deal": 1, "replace": gid})
        assert r.status_code == 404
        # any other state-changing route of a game: not found either (or, without
        # the body it needs, refused before the game is even looked up)
        spec = other.get("/openapi.json").json()
        posts = {p.split("{game_id}", 1)[1] for p, ops in spec["paths"].items()
                 if p.startswith("/api/games/{game_id}/") and "post" in ops}
        for suffix in posts - {suffix for _m, suffix, _b in WRITE_ROUTES}:
            r = other.post(f"/api/games/{gid}{suffix}", json={})
            assert r.status_code in (400, 404), (suffix, r.status_code, r.text)
        after = owner.get(f"/api/games/{gid}").json()
        for key in ("moves", "position", "status", "paused", "settings", "can_redo", "score"):
            if key != "score":
                assert after[key] == before[key], key
        assert owner.get("/api/stats").json()["stats"] == []
        # the owner still can
        r = owner.post(f"/api/games/{gid}/redo", json={})
        assert r.status_code == 200 and r.json()["moves"] == ["5a"]


def test_a_shared_game_is_read_only_and_play_this_deal_starts_your_own(
        server: LiveServer) -> None:
    with player(server) as owner, player(server) as viewer:
        g = new_game(owner, deal=617, cells=3)
        owner.post(f"/api/games/{g['id']}/moves", json={"move": "5a"}).raise_for_status()
        # the game object and the record are readable with the id
        assert viewer.get(f"/api/games/{g['id']}").json()["moves"] == ["5a"]
        record = viewer.get(f"/api/games/{g['id']}/record").json()["record"]
        assert "Deal: 617" in record and "5a" in record
        page = viewer.get(f"/game/{g['id']}")
        assert page.status_code == 200
        assert "A shared game, read-only" in page.text and "Play this deal" in page.text
        assert 'id="board"' not in page.text  # not the playable table
        body = re.search(r'class="primary start-game" data-body="([^"]*)"', page.text)
        assert body is not None
        import html
        import json
        start = json.loads(html.unescape(body.group(1)))
        assert start == {"game": "bakers_game", "deal": 617, "level": "hard", "cells": 3}
        mine = new_game(viewer, **start)
        assert mine["id"] != g["id"] and mine["deal"] == 617 and mine["cells"] == 3
        assert mine["moves"] == []
        # the owner's own page is the table
        assert 'id="board"' in owner.get(f"/game/{g['id']}").text


# --- 2. cross-site requests ------------------------------------------------------------------

def test_cross_site_requests_are_refused(server: LiveServer) -> None:
    origin = server.url.rstrip("/")
    with player(server) as c:
        g = new_game(c, deal=5)
        url = f"/api/games/{g['id']}/moves"
        for headers in ({"origin": "http://evil.example"},
                        {"origin": "null"},
                        {"origin": origin.replace("127.0.0.1", "localhost")},
                        {"origin": "https://" + origin.split("://", 1)[1]},
                        {"sec-fetch-site": "cross-site"},
                        {"sec-fetch-site": "same-site"}):
            r = c.post(url, json={"move": "5a"}, headers=headers)
            assert r.status_code == 403, (headers, r.text)
            assert r.json() == {"error": "requests from other sites are refused"}
        # not JSON: what a cross-site form or a body-less text/plain request sends
        for headers, content in (({"content-type": "text/plain"}, b""),
                                 ({"content-type": "application/x-www-form-urlencoded"},
                                  b"move=5a"),
                                 ({"content-type": "multipart/form-data; boundary=x"}, b""),
                                 ({}, b"")):
            r = c.post(f"/api/games/{g['id']}/restart", content=content, headers=headers)
            assert r.status_code == 415, (headers, r.text)
            assert "application/json" in r.json()["error"]
        assert c.get(f"/api/games/{g['id']}").json()["moves"] == g["moves"]  # the deal's own
        # the page's own requests pass
        r = c.post(url, json={"move": "5a"},
                   headers={"origin": origin, "sec-fetch-site": "same-origin"})
        assert r.status_code == 200, r.text
        r = c.post(f"/api/games/{g['id']}/undo", content=b"",
                   headers={"origin": origin, "content-type": "application/json; charset=utf-8"})
        assert r.status_code == 200, r.text


def test_deal_links_start_games_only_from_this_site(server: LiveServer) -> None:
    with player(server) as c:
        c.get("/")
        for path in ("/play/bakers_game/617", "/play/freecell", "/play/daily/bakers_game"):
            for headers in ({"sec-fetch-site": "cross-site"}, {"sec-fetch-site": "same-site"},
                            {"referer": "http://evil.example/page"}):
                r = c.get(path, headers=headers, follow_redirects=False)
                assert r.status_code == 200, (path, headers, r.text)
                assert "Deal it" in r.text and "no game was started" in r.text
        assert c.get("/api/games?status=all").json()["games"] == []
        # typed, bookmarked or clicked on this site: the game starts
        r = c.get("/play/bakers_game/617", headers={"sec-fetch-site": "none"},
                  follow_redirects=False)
        assert r.status_code == 303 and r.headers["location"].startswith("/game/")
        r = c.get("/play/freecell/5", follow_redirects=False,
                  headers={"sec-fetch-site": "same-origin", "referer": server.url})
        assert r.status_code == 303
        assert len(c.get("/api/games?status=all").json()["games"]) == 2


def test_cookies_are_http_only_lax_and_secure_behind_a_tls_proxy(tmp_path: Path) -> None:
    plain = start_server(f"sqlite:///{tmp_path / 'a.sqlite3'}", tmp_path / "a.log")
    proxied = start_server(f"sqlite:///{tmp_path / 'b.sqlite3'}", tmp_path / "b.log",
                           args=("--behind-proxy",))
    try:
        cookie = httpx.get(plain.url).headers["set-cookie"]
        assert "HttpOnly" in cookie and "SameSite=Lax" in cookie and "Secure" not in cookie
        # a proxy's forwarded scheme is ignored unless the server is told it is behind one
        cookie = httpx.get(plain.url, headers={"x-forwarded-proto": "https"}).headers[
            "set-cookie"]
        assert "Secure" not in cookie
        r = httpx.get(proxied.url, headers={"x-forwarded-proto": "https"})
        assert "Secure" in r.headers["set-cookie"] and "HttpOnly" in r.headers["set-cookie"]
        assert "strict-transport-security" in r.headers
        host = proxied.url.split("://", 1)[1].rstrip("/")
        with httpx.Client(base_url=proxied.url, timeout=10,
                          headers={"x-forwarded-proto": "https"}) as c:
            ok = c.post("/api/games", json={"game": "freecell", "deal": 1},
                        headers={"origin": f"https://{host}"})
            assert ok.status_code == 201, ok.text
            refused = c.post("/api/games", json={"game": "freecell", "deal": 1},
                             headers={"origin": f"http://{host}"})
            assert refused.status_code == 403
    finally:
        plain.stop()
        proxied.stop()


# --- 3. security headers -------------------------------------------------------------------

INLINE_SCRIPT = re.compile(r"<script(?![^>]*\bsrc=)[^>]*>", re.IGNORECASE)
INLINE_HANDLER = re.compile(r"\son[a-z]+\s*=", re.IGNORECASE)


def test_security_headers_on_every_response(server: LiveServer) -> None:
    with player(server) as c:
        g = new_game(c, deal=3)
        answers = [c.get("/"), c.get("/rules/freecell"), c.get(f"/game/{g['id']}"),
                   c.get("/static/table.css"), c.get("/static/js/main.js"), c.get("/api/stats"),
                   c.get("/openapi.json"), c.get("/nowhere"), c.get("/api/nothing"),
                   c.post("/api/games", json={"deal": True}),
                   c.post("/api/games", content=b"x" * 20000, headers=JSON),
                   c.post("/api/games", json={}, headers={"origin": "http://evil.example"}),
                   c.get("/play/bakers_game/1", headers={"sec-fetch-site": "cross-site"}),
                   c.get("/docs")]
        for r in answers:
            h = r.headers
            where = f"{r.request.method} {r.request.url.path} {r.status_code}"
            assert h["x-frame-options"] == "DENY", where
            assert h["x-content-type-options"] == "nosniff", where
            assert h["referrer-policy"] == "same-origin", where
            csp = h["content-security-policy"]
            assert "frame-ancestors 'none'" in csp and "object-src 'none'" in csp, where
            assert "'unsafe-inline'" not in csp.split("style-src", 1)[0], where  # no inline script
            if r.request.url.path != "/docs":
                assert csp.count("'self'") >= 3 and "unsafe" not in csp, where


def test_pages_need_no_inline_script_or_style(server: LiveServer) -> None:
    with player(server) as c, player(server) as other:
        g = new_game(c, deal=3)
        pages = {"home": c.get("/"), "table": c.get(f"/game/{g['id']}"),
                 "shared": other.get(f"/game/{g['id']}"),
                 "ask first": c.get("/play/freecell/9", headers={"sec-fetch-site": "cross-site"}),
                 "error": c.get("/nowhere")}
        for game in ("bakers_game", "freecell", "bakers_dozen"):
            pages[game] = c.get(f"/rules/{game}")
        for name, r in pages.items():
            text = r.text
            assert not INLINE_SCRIPT.search(text), name
            assert "<style" not in text and " style=" not in text, name
            assert not INLINE_HANDLER.search(text), name
            assert "javascript:" not in text, name


# --- 4. limits ----------------------------------------------------------------------------

def test_rate_limits_on_new_games_and_hints(limited: LiveServer) -> None:
    server = limited
    with player(server) as c:
        games = [new_game(c, deal=n) for n in range(1, 6)]
        r = c.post("/api/games", json={"game": "bakers_game", "deal": 9})
        assert r.status_code == 429
        assert r.headers["content-type"].startswith("application/json")
        assert "too many new games" in r.json()["error"]
        assert 1 <= int(r.headers["retry-after"]) <= 12
        r = c.get("/play/bakers_game/77", headers={"sec-fetch-site": "none"})
        assert r.status_code == 429 and "text/html" in r.headers["content-type"]
        assert "retry-after" in r.headers
        # moves are not limited
        for move in ("5a", "8b"):
            assert c.post(f"/api/games/{games[0]['id']}/moves",
                          json={"move": move}).status_code == 200
        gid = games[0]["id"]
        for _ in range(3):
            assert c.get(f"/api/games/{gid}/hint").status_code == 200
        r = c.get(f"/api/games/{gid}/hint")
        assert r.status_code == 429 and "too many hints" in r.json()["error"]
        assert int(r.headers["retry-after"]) >= 1
    # one address: four players' worth of new games (20), then no more for anyone there
    started = 5
    refused = 0
    for _ in range(5):
        with player(server) as c:
            for n in range(5):
                r = c.post("/api/games", json={"game": "freecell", "deal": 100 + n})
                if r.status_code == 201:
                    started += 1
                else:
                    assert r.status_code == 429
                    refused += 1
    assert started <= 21 and refused >= 4, (started, refused)


def test_half_open_connections_close_within_seconds(server: LiveServer) -> None:
    host, port = server.url.split("://", 1)[1].rstrip("/").split(":")
    socks = []
    for i in range(200):
        s = socket.create_connection((host, int(port)))
        s.sendall(b"GET / HTTP/1.1\r\nHost: " + host.encode() + b"\r\nX-Slow-" + str(i).encode())
        socks.append(s)
    idle = socket.create_connection((host, int(port)))  # sends nothing at all
    socks.append(idle)
    start = time.monotonic()
    closed = 0
    for s in socks:
        s.settimeout(max(0.1, 8 - (time.monotonic() - start)))
        try:
            if s.recv(1024) == b"":
                closed += 1
        except (ConnectionResetError, BrokenPipeError):
            closed += 1
        except TimeoutError:
            pass
        finally:
            s.close()
    took = time.monotonic() - start
    assert closed == len(socks) and took < 8, (closed, took)
    # a kept-alive connection idle after its answer is closed too
    with socket.create_connection((host, int(port))) as s:
        s.sendall(b"GET /api/stats HTTP/1.1\r\nHost: " + host.encode() + b"\r\n\r\n")
        s.settimeout(10)
        data = b""
        start = time.monotonic()
        while True:
            chunk = s.recv(65536)
            if not chunk:
                break
            data += chunk
        assert data.startswith(b"HTTP/1.1 200") and time.monotonic() - start < 8


def test_bodies_and_fields_are_bounded_and_errors_quote_short_excerpts(
        server: LiveServer) -> None:
    with player(server) as c:
        g = new_game(c, deal=2)
        long = "Z" * 10_000
        for path, body in (("/api/games", {"game": long}), ("/api/games", {"deal": long}),
                           ("/api/games", {"position": long}),
                           (f"/api/games/{g['id']}/moves", {"move": long}),
                           (f"/api/games/{g['id']}/intent", {"from": long})):
            r = c.post(path, json=body)
            assert 400 <= r.status_code < 500, (path, r.text)
            assert len(r.text) < 400 and "Z" * 41 not in r.text, (path, r.text)
        r = c.post("/api/games", json={"game": "Q" * 39})
        assert r.status_code == 404 and "Q" * 39 not in r.json()["error"]
        r = c.get("/play/" + "W" * 300 + "/1", headers={"sec-fetch-site": "none"})
        assert r.status_code == 404 and "W" * 41 not in r.text
        r = c.post("/api/games", content=b'{"game": "' + b"x" * 17000 + b'"}', headers=JSON)
        assert r.status_code == 413 and "16 KiB" in r.json()["error"]


def test_a_slow_body_is_cut_off(server: LiveServer) -> None:
    host, port = server.url.split("://", 1)[1].rstrip("/").split(":")
    with socket.create_connection((host, int(port))) as s:
        s.sendall(b"POST /api/games HTTP/1.1\r\nHost: " + host.encode()
                  + b"\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{")
        s.settimeout(20)
        start = time.monotonic()
        data = s.recv(4096)
        assert data.startswith(b"HTTP/1.1 408"), data[:100]
        assert time.monotonic() - start < 15


# --- 5. strict input -------------------------------------------------------------------------

def test_strict_types_and_move_text(server: LiveServer) -> None:
    with player(server) as c:
        g = new_game(c, deal=4)
        for body, needle in (({"deal": True}, "deal"), ({"cells": True}, "cells"),
                             ({"daily": "yes"}, "daily: Input should be a valid boolean"),
                             ({"winnable": 1}, "winnable"), ({"deal": 1.0}, "deal"),
                             ({"game": 5}, "game"), ({"practice": "true"}, "practice")):
            r = c.post("/api/games", json={"game": "bakers_game", **body})
            assert r.status_code == 400, (body, r.text)
            assert needle in r.json()["error"], (body, r.text)
        url = f"/api/games/{g['id']}/moves"
        for move, reason in (("1 a", "without spaces"), (" 1a", "without spaces"),
                             ("1a ", "without spaces"), ("1a!", "unexpected characters after"),
                             ("1ax", "unexpected characters after"), ("1-a", "source then")):
            r = c.post(url, json={"move": move})
            assert r.status_code == 400, (move, r.text)
            assert reason in r.json()["error"], (move, r.text)
        for body in ({"from": True}, {"from": " 5"}, {"from": "5", "count": True}):
            assert c.post(url, json=body).status_code == 400, body
        assert c.post(f"/api/games/{g['id']}/intent", json={"from": "5 "}).status_code == 400
        assert c.get(f"/api/games/{g['id']}").json()["moves"] == g["moves"]  # the deal's own
        r = c.post(url, content=b'{"move": "\xff1a"}', headers=JSON)
        assert r.status_code == 400 and "not valid UTF-8" in r.json()["error"]
        assert c.post(url, json={"move": "5a"}).json()["moves"][len(g["moves"])] == "5a"


def test_openapi_lists_the_error_statuses(server: LiveServer) -> None:
    spec = httpx.get(server.url + "openapi.json").json()
    paths = spec["paths"]
    moves = paths["/api/games/{game_id}/moves"]["post"]["responses"]
    assert {"200", "400", "404", "409", "413", "422"} <= set(moves)
    new = paths["/api/games"]["post"]["responses"]
    assert {"201", "400", "404", "413", "429"} <= set(new)
    assert "Retry-After" in new["429"]["headers"]
    assert "429" in paths["/api/games/{game_id}/hint"]["get"]["responses"]
    assert moves["422"]["content"]["application/json"]["schema"]["$ref"].endswith("ErrorBody")
    statuses = {s for ops in paths.values() for op in ops.values() for s in op["responses"]}
    assert {"400", "404", "409", "413", "422", "429"} <= statuses


# --- 8. players keep their records ---------------------------------------------------------------

def test_exports_and_a_transfer_code(server: LiveServer) -> None:
    with player(server) as me, player(server) as other, player(server) as laptop:
        won = new_game(me, position=WIN_IN_TWO, autoplay="safe")
        for move in ("34", "1a"):
            me.post(f"/api/games/{won['id']}/moves", json={"move": move}).raise_for_status()
        assert me.get(f"/api/games/{won['id']}").json()["status"] == "won"
        playing = new_game(me, deal=617)
        me.post(f"/api/games/{playing['id']}/moves", json={"move": "5a"}).raise_for_status()
        theirs = new_game(other, deal=618)

        r = me.get("/api/export/games?format=json")
        assert r.status_code == 200 and "attachment" in r.headers["content-disposition"]
        exported = r.json()["games"]
        assert [g["id"] for g in exported] == [won["id"], playing["id"]]
        assert theirs["id"] not in r.text
        for g in exported:  # each record replays to the game's position
            record = GameRecord.from_text(g["record"])
            final = record.replay()
            assert final.to_text() == me.get(f"/api/games/{g['id']}").json()["position"]
        r = me.get("/api/export/games?format=csv")
        assert r.headers["content-type"].startswith("text/csv")
        rows = list(csv.DictReader(io.StringIO(r.text)))
        assert [row["id"] for row in rows] == [won["id"], playing["id"]]
        assert rows[0]["status"] == "won" and "Moves: 34" in rows[0]["record"]

        stats = me.get("/api/export/stats?format=json").json()
        assert [s["won"] for s in stats["stats"]] == [1]
        assert [x["game_id"] for x in stats["results"]] == [won["id"]]
        rows = list(csv.DictReader(io.StringIO(me.get("/api/export/stats?format=csv").text)))
        assert rows[0]["won"] == "1" and rows[0]["game"] == "bakers_game"
        assert other.get("/api/export/stats").json() == {"stats": [], "results": []}
        assert me.get("/api/export/games?format=xml").status_code == 400

        # the identity moves to another browser with a one-time code
        laptop_game = new_game(laptop, deal=700)
        code = me.post("/api/transfer", json={}).json()["code"]
        assert re.fullmatch(r"[A-Z2-9]{4}-[A-Z2-9]{4}-[A-Z2-9]{4}", code)
        r = laptop.post("/api/transfer/claim", json={"code": code.lower()})
        assert r.status_code == 200, r.text
        assert "HttpOnly" in r.headers["set-cookie"]
        assert laptop.cookies.get("bakers_player") == me.cookies.get("bakers_player")
        ids = {g["id"] for g in laptop.get("/api/export/games").json()["games"]}
        assert ids == {won["id"], playing["id"], laptop_game["id"]}
        assert laptop.post(f"/api/games/{playing['id']}/moves",
                           json={"move": "8b"}).status_code == 200
        # used once; a wrong code reveals nothing
        r = other.post("/api/transfer/claim", json={"code": code})
        assert r.status_code == 404 and "unknown, used already or expired" in r.json()["error"]
        assert other.post("/api/transfer/claim", json={"code": "AAAA-BBBB-CCCC"}).status_code == 404
        assert other.get("/api/export/games").json()["games"][0]["id"] == theirs["id"]


def test_the_home_page_offers_exports_and_transfer(server: LiveServer) -> None:
    page = httpx.get(server.url).text
    for needle in ('href="/api/export/games?format=json"', 'href="/api/export/games?format=csv"',
                   'href="/api/export/stats?format=json"', 'href="/api/export/stats?format=csv"',
                   'id="btn-transfer"', 'id="transfer-code-input"', "/static/js/records.js"):
        assert needle in page, needle


# --- a cross-origin form in real Chromium ----------------------------------------------------

CHROMIUM = shutil.which("chromium")


class _EvilPage(BaseHTTPRequestHandler):
    target = ""

    def do_GET(self) -> None:
        body = f"""<!doctype html><title>another site</title>
<form id="f1" method="post" action="{self.target}/undo" enctype="text/plain">
<input name="x" value="1"></form>
<form id="f2" method="post" action="{self.target}/moves">
<input name="move" value="8b"></form>
<p>a page of another origin</p>""".encode()
        self.send_response(200)
        self.send_header("content-type", "text/html")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.mark.browser
@pytest.mark.skipif(CHROMIUM is None, reason="no `chromium` on PATH for the browser tests")
def test_a_cross_origin_form_post_is_refused_in_chromium(server: LiveServer) -> None:
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        try:
            ctx = browser.new_context()
            page = ctx.new_page()
            page.goto(server.url + "play/bakers_game/617")  # typed: the game starts
            page.wait_for_selector("#app[data-ready='true']")
            gid = page.url.rsplit("/", 1)[1]
            played = page.evaluate(
                """async (gid) => (await (await fetch(`/api/games/${gid}/moves`, {
                     method: "POST", headers: {"Content-Type": "application/json"},
                     body: JSON.stringify({move: "5a"})})).json()).moves""", gid)
            assert played == ["5a"]
            # another origin on the same host (same site: the Lax cookie is sent along)
            _EvilPage.target = f"{server.url}api/games/{gid}"
            evil = ThreadingHTTPServer(("127.0.0.1", 0), _EvilPage)
            threading.Thread(target=evil.serve_forever, daemon=True).start()
            try:
                for form in ("f1", "f2"):
                    page.goto(f"http://127.0.0.1:{evil.server_address[1]}/")
                    with page.expect_response(lambda r: "/api/games/" in r.url) as info:
                        page.eval_on_selector(f"#{form}", "f => f.submit()")
                    answer = info.value
                    assert answer.status == 403, (form, answer.status, answer.text())
                    assert "other sites" in answer.text()
                    sent = answer.request.all_headers()
                    assert "bakers_player=" in sent.get("cookie", ""), sent  # it did carry it
            finally:
                evil.shutdown()
            state = page.evaluate(
                "async (gid) => (await (await fetch(`/api/games/${gid}`)).json()).moves", gid)
            assert state == ["5a"]
            ctx.close()
        finally:
            browser.close()


@pytest.mark.browser
@pytest.mark.skipif(CHROMIUM is None, reason="no `chromium` on PATH for the browser tests")
def test_the_pages_work_under_their_content_security_policy(server: LiveServer) -> None:
    """Home, table, rules and a shared game in Chromium with the policy in
    force: every page does its work and no violation is reported."""
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        try:
            problems: list[str] = []
            contexts = [browser.new_context(), browser.new_context()]
            pages = [ctx.new_page() for ctx in contexts]
            for page in pages:
                page.on("console", lambda m: problems.append(m.text) if m.type == "error"
                        else None)
                page.on("pageerror", lambda e: problems.append(str(e)))
            me, other = pages
            me.goto(server.url + "play/freecell/11982")
            me.wait_for_selector("#app[data-ready='true']")
            me.wait_for_selector("#tableau .card")
            gid = me.url.rsplit("/", 1)[1]
            me.goto(server.url)
            me.wait_for_selector("#continue-list a")
            me.goto(server.url + "rules/bakers_dozen")
            me.wait_for_selector(".mini .card")
            top = me.eval_on_selector_all(".mini-col.n2 .slot", "s => s.map(e => e.offsetTop)")
            assert top and top[0] == 0 and top[1] > 0  # the fan comes from the stylesheet
            other.goto(server.url + f"game/{gid}")
            other.wait_for_selector(".shared-board .card")
            other.click("button.start-game")
            other.wait_for_url(re.compile(r"/game/(?!" + re.escape(gid) + r")"))
            other.wait_for_selector("#app[data-ready='true']")
            assert problems == [], problems
            for ctx in contexts:
                ctx.close()
        finally:
            browser.close()
