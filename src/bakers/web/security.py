"""What the server promises a browser on the open internet: security headers
on every answer, state-changing requests only from its own pages (the
``Origin`` / ``Sec-Fetch-Site`` check and a JSON body), and deal links that
start a game only when the player opened them from this site (or typed
them).

Clients that are not browsers (curl, scripts, the benchmark) send neither
``Origin`` nor ``Sec-Fetch-Site``: they are let through, since no other site
can make them send anything; the JSON content type is still required, which
no cross-site form can produce without a CORS preflight (never granted).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, MutableMapping
from typing import Any
from urllib.parse import urlsplit

Scope = MutableMapping[str, Any]

CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
       "font-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'none'; "
       "form-action 'self'; frame-ancestors 'none'")
"""The page needs no inline script or style: its scripts and styles are files
under /static (styles set from script through the CSSOM are allowed)."""

SECURITY_HEADERS: list[tuple[bytes, bytes]] = [
    (b"x-frame-options", b"DENY"),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"same-origin"),
    (b"cross-origin-opener-policy", b"same-origin"),
]

UNSAFE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
JSON_TYPE = re.compile(r"^application/(?:[\w.+-]+\+)?json\s*(?:;.*)?$", re.IGNORECASE)
DEFAULT_PORTS = {"http": "80", "https": "443"}


def header(scope: Scope, name: bytes) -> str | None:
    """The first value of header ``name`` (lower case) in ``scope``, as text."""
    for key, value in scope.get("headers", ()):
        if key == name:
            return bytes(value).decode("latin-1")
    return None


def _netloc(scheme: str, host: str) -> str:
    host = host.strip().lower()
    port = DEFAULT_PORTS.get(scheme)
    if port and host.endswith(":" + port):
        host = host[: -len(port) - 1]
    return host


def same_origin(scope: Scope, url: str) -> bool:
    """Whether ``url`` (an ``Origin`` or ``Referer``) is this server's own
    origin: the request's scheme (``https`` behind a trusted TLS proxy) and
    its ``Host``."""
    host = header(scope, b"host")
    if not host or not url or url == "null":
        return False
    try:
        parts = urlsplit(url)
    except ValueError:
        return False
    scheme = str(scope.get("scheme", "http"))
    return (parts.scheme.lower() == scheme
            and _netloc(scheme, parts.netloc) == _netloc(scheme, host))


def cross_site_refusal(scope: Scope) -> str | None:
    """Why a state-changing request is refused as cross-site, or ``None``."""
    origin = header(scope, b"origin")
    if origin is not None:
        if same_origin(scope, origin):
            return None
        return "requests from other sites are refused"
    site = header(scope, b"sec-fetch-site")
    if site is not None and site.lower() != "same-origin":
        return "requests from other sites are refused"
    return None


def content_type_refusal(scope: Scope) -> str | None:
    """Why a state-changing request's content type is refused, or ``None``."""
    kind = header(scope, b"content-type")
    if kind is None or not JSON_TYPE.match(kind.strip()):
        return "send the request with Content-Type: application/json"
    return None


def navigation_from_this_site(scope: Scope) -> bool:
    """Whether a page request may start a game: opened from one of this
    site's pages, typed or bookmarked (``Sec-Fetch-Site`` ``same-origin`` or
    ``none``); without that header, a ``Referer`` if any must be this site."""
    site = header(scope, b"sec-fetch-site")
    if site is not None:
        return site.lower() in ("same-origin", "none")
    referer = header(scope, b"referer")
    return referer is None or same_origin(scope, referer)


def script_hashes(page: str) -> list[str]:
    """CSP source expressions (``'sha256-…'``) for the inline scripts of a
    page we do not write ourselves (the API explorer at /docs)."""
    import base64
    out = []
    for body in re.findall(r"<script(?:\s[^>]*)?>(.*?)</script>", page, re.DOTALL):
        if body.strip():
            digest = base64.b64encode(hashlib.sha256(body.encode()).digest()).decode()
            out.append(f"'sha256-{digest}'")
    return out


def docs_csp(page: str, origins: Iterable[str]) -> str:
    """The CSP of the API explorer: its own inline script by hash, its files
    from ``origins`` (a CDN), nothing inline otherwise."""
    extra = " ".join(origins)
    scripts = " ".join(script_hashes(page))
    return (f"default-src 'self'; script-src 'self' {extra} {scripts}; "
            f"style-src 'self' {extra}; img-src 'self' data: {extra}; connect-src 'self'; "
            "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'")
