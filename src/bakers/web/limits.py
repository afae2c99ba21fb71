"""Rate limits: how often one player, and one address, may start a game or
ask for a hint (both cost solver time or storage). Over the limit the answer
is 429 with a JSON error and ``Retry-After``.

Token buckets in memory: each key (a player, an address) holds up to
``per_minute`` tokens and gets them back at ``per_minute`` a minute. With
``bakers serve --workers N`` each process keeps its own buckets, so a client
spread over the processes may get up to N times the rate.
"""

from __future__ import annotations

import dataclasses
import math
import time
from collections import OrderedDict
from collections.abc import Callable

from ..errors import BakersError

MAX_KEYS = 50_000  # buckets remembered per limit (the oldest forgotten first)
ADDRESS_FACTOR = 4  # an address (a club behind one router) gets this many players' rate
CODES_PER_MINUTE = 10  # transfer codes made or tried (guessing one of 2^60 stays hopeless)


class RateLimitedError(BakersError):
    """Too many requests of one kind (HTTP 429); ``retry_after`` in seconds."""

    def __init__(self, message: str, retry_after: int) -> None:
        super().__init__(message)
        self.retry_after = retry_after


@dataclasses.dataclass
class Bucket:
    tokens: float
    stamp: float


class RateLimit:
    """``per_minute`` requests per key, in bursts of up to ``per_minute``."""

    def __init__(self, per_minute: float, clock: Callable[[], float] = time.monotonic) -> None:
        if not per_minute > 0 or not math.isfinite(per_minute):
            raise ValueError("a rate limit is a positive number of requests a minute")
        self.capacity = float(per_minute)
        self.rate = per_minute / 60.0
        self.clock = clock
        self._buckets: OrderedDict[str, Bucket] = OrderedDict()

    def take(self, key: str) -> float:
        """Take one token for ``key``: 0 when granted, else the seconds until
        one is back."""
        now = self.clock()
        bucket = self._buckets.get(key)
        if bucket is None:
            bucket = self._buckets[key] = Bucket(self.capacity, now)
            while len(self._buckets) > MAX_KEYS:
                self._buckets.popitem(last=False)
        else:
            self._buckets.move_to_end(key)
            bucket.tokens = min(self.capacity, bucket.tokens + (now - bucket.stamp) * self.rate)
            bucket.stamp = now
        if bucket.tokens >= 1.0:
            bucket.tokens -= 1.0
            return 0.0
        return (1.0 - bucket.tokens) / self.rate


class Limits:
    """The server's rate limits: games started and hints, per player and per
    address (``None``: no limit)."""

    def __init__(self, games_per_minute: float | None = 30,
                 hints_per_minute: float | None = 30,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.kinds: dict[str, tuple[RateLimit, RateLimit] | None] = {}
        for kind, rate in (("games", games_per_minute), ("hints", hints_per_minute),
                           ("codes", CODES_PER_MINUTE)):
            self.kinds[kind] = None if rate is None else (
                RateLimit(rate, clock), RateLimit(rate * ADDRESS_FACTOR, clock))

    def check(self, kind: str, player: str, address: str | None) -> None:
        """Count one request of ``kind``; raise :class:`RateLimitedError` over the limit."""
        limits = self.kinds.get(kind)
        if limits is None:
            return
        per_player, per_address = limits
        wait = per_player.take(player)
        if not wait and address:
            wait = per_address.take(address)
        if wait:
            what = {"games": "new games", "hints": "hints"}.get(kind, "transfer codes")
            seconds = max(1, math.ceil(wait))
            raise RateLimitedError(
                f"too many {what} in a short time: try again in {seconds} s", seconds)
