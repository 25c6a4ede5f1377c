"""The live class's limits: the server's settings for classes, and fair shares of them per visitor.

A visitor is the address their requests come from. Behind a proxy (a Hugging Face Space, a school's reverse
proxy) every request comes from the proxy, so the proxy's own X-Forwarded-For header names the visitor; that
header is believed only from the proxies listed in ELECTRA_TRUSTED_PROXIES (addresses or networks, comma-
separated; empty by default: nobody's header is believed, each connection is its own visitor). The web
server (uvicorn, under gradio) does the walk through the header, right to left, skipping the trusted
proxies: `forwarded_allow_ips` gives it this setting (FORWARDED_ALLOW_IPS), so a request's client address is
the visitor everywhere. "*" is refused: uvicorn then believes the left-most entry, which a visitor writes.

A visitor is one network, not one address (explainer/core/visitors.py: addresses normalized, IPv6 grouped by
/64): every share below is per visitor. A school is many classes behind one address, so what protects a class
is per class (its size, its lock, the teacher removing a student: explainer/core/live_class/store.py), and the
per-visitor rates are sized for a school, not for one phone.

Rates (the `limits` library's notation, "10/hour", "600/hour"; its moving window, in memory):
- ELECTRA_CLASS_START_RATE (10/hour): classes one visitor may start;
- ELECTRA_CLASS_JOIN_RATE (600/hour): students one visitor may add, to all classes together (a school's
  classes joining at once: 3 classes of 40 phones behind one address fit many times over);
- ELECTRA_CLASS_JOIN_CLASS_RATE (120/hour): students one visitor may add to one class (a class of 40 fits;
  one network's bots cannot fill a class of ELECTRA_CLASS_MAX_STUDENTS, so students from elsewhere still get in).
Counts: ELECTRA_CLASS_HOURS (24) a class lasts; ELECTRA_CLASS_MAX_CLASSES (200) classes running at once (an
ended class no longer runs; a lobby nobody joined, untouched for ELECTRA_CLASS_LOBBY_MINUTES (30), ends);
ELECTRA_CLASS_MAX_PER_VISITOR (10) classes one visitor's starts may have running at once (so one address or
network cannot fill the server, in a day or ever); ELECTRA_CLASS_MAX_STUDENTS (200) per class.
A bad value is a ValueError naming the setting.
No gradio here: the API and the page hand in the request's client address.
"""

from __future__ import annotations

import ipaddress
import math
import os
import threading
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager

from limits import RateLimitItem, parse, storage, strategies

DEFAULT_HOURS, DEFAULT_MAX_CLASSES, DEFAULT_MAX_STUDENTS, DEFAULT_LOBBY_MINUTES = 24.0, 200, 200, 30.0
DEFAULT_MAX_PER_VISITOR = 10
DEFAULT_START_RATE, DEFAULT_JOIN_RATE, DEFAULT_JOIN_CLASS_RATE = "10/hour", "600/hour", "120/hour"


def setting(name: str, default: float, kind: type, what: str = "a positive number") -> float:
    """A positive number from the environment, or `default`; ValueError naming the setting (and saying `what` it
    must be) otherwise. Every numeric setting of the server is read here."""
    raw = os.environ.get(name, "").strip()
    try:
        value = kind(raw) if raw else default
    except ValueError:
        value = math.nan
    if not (isinstance(value, (int, float)) and math.isfinite(value) and value > 0):
        raise ValueError(f"{name} must be {what}, not {raw[:20]!r}.")
    return value


def rate(name: str, default: str) -> RateLimitItem:
    raw = os.environ.get(name, "").strip() or default
    try:
        return parse(raw)
    except ValueError:
        raise ValueError(f"{name} must be a rate such as {default!r} (a count per second, minute, hour or day), "
                         f"not {raw[:20]!r}.") from None


def trusted_proxies() -> str:
    """ELECTRA_TRUSTED_PROXIES, checked: each entry an address or a network; "" when none is trusted."""
    raw = os.environ.get("ELECTRA_TRUSTED_PROXIES", "").strip()
    entries = [entry.strip() for entry in raw.split(",") if entry.strip()]
    for entry in entries:
        try:
            ipaddress.ip_network(entry, strict=False)
        except ValueError:
            raise ValueError(f"ELECTRA_TRUSTED_PROXIES lists addresses or networks (10.0.0.0/8), not {entry[:40]!r}"
                             + (" (\"*\" would believe a header any visitor writes)."
                                if entry == "*" else ".")) from None
    return ",".join(entries)


def forwarded_allow_ips() -> str:
    """What uvicorn's FORWARDED_ALLOW_IPS must be for ELECTRA_TRUSTED_PROXIES (uvicorn's default, 127.0.0.1,
    would let any local program name itself anyone). "" matches no address: no header is believed."""
    return trusted_proxies()


class QuotaError(ValueError):
    """A visitor over their share; the message is for them."""


class Quota:
    """One visitor's share of something (class starts, joins): `check` before the work, `take` once it is done,
    so a refused attempt (a bad sentence, a full class) costs nothing. `message` says what was done too often:
    it is formatted with the rate's {amount} and {period} and the minutes to {wait}."""

    def __init__(self, item: RateLimitItem, message: str):
        self.item, self.message = item, message
        self._limiter = strategies.MovingWindowRateLimiter(storage.MemoryStorage())

    def check(self, client: str) -> None:
        if not self._limiter.test(self.item, client):
            reset = self._limiter.get_window_stats(self.item, client).reset_time
            wait = max(1, math.ceil((reset - time.time()) / 60))
            raise QuotaError(self.message.format(amount=self.item.amount, period=_period(self.item),
                                                 wait=f"{wait} minute{'s' * (wait != 1)}"))

    def take(self, client: str) -> None:
        self._limiter.hit(self.item, client)


def _period(item: RateLimitItem) -> str:
    unit = item.GRANULARITY.name
    return unit if item.multiples == 1 else f"{item.multiples} {unit}s"


_STRIPES = tuple(threading.Lock() for _ in range(64))


@contextmanager
def one_at_a_time(keys) -> Iterator[None]:
    """Hold the locks of `keys` (visitors, visitor-and-class), so that a share's check, the work and its count
    are one step for each visitor: 32 joins at once cannot all pass a check that one more would fail. Striped
    locks, taken in order (no deadlock); two visitors rarely share one."""
    stripes = sorted({hash(key) % len(_STRIPES) for key in keys})
    with ExitStack() as held:
        for stripe in stripes:
            held.enter_context(_STRIPES[stripe])
        yield


_quotas: dict[str, Quota] = {}
_lock = threading.Lock()


def quota(kind: str) -> Quota:
    """The server's quota "start" (classes started), "join" (students added) or "join_class" (students added to
    one class: its key is the visitor and the class's code), made on first use."""
    with _lock:
        if kind not in _quotas:
            if kind == "start":
                _quotas[kind] = Quota(rate("ELECTRA_CLASS_START_RATE", DEFAULT_START_RATE),
                                      "You have started {amount} classes in the last {period}, the most this server "
                                      "allows one visitor: try again in {wait}.")
            elif kind == "join":
                _quotas[kind] = Quota(rate("ELECTRA_CLASS_JOIN_RATE", DEFAULT_JOIN_RATE),
                                      "{amount} students have joined from your network in the last {period}, the "
                                      "most this server allows one network: try again in {wait}.")
            elif kind == "join_class":
                _quotas[kind] = Quota(rate("ELECTRA_CLASS_JOIN_CLASS_RATE", DEFAULT_JOIN_CLASS_RATE),
                                      "{amount} students have joined this class from your network in the last "
                                      "{period}, the most this server allows: try again in {wait}, or ask your "
                                      "teacher.")
            else:
                raise KeyError(kind)
        return _quotas[kind]


def reset() -> None:
    """Forget every visitor's count (tests; a restarted server starts afresh too)."""
    with _lock:
        _quotas.clear()
