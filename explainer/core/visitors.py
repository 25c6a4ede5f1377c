"""Who a visitor is, for every share the server keeps (class starts, joins, live classes, places in a lane).

The web server hands each request its client address (explainer/core/quotas.py says when X-Forwarded-For is
believed). Spelled as text, one address has many forms: "2001:DB8::1", "2001:db8:0:0::0001",
"[2001:db8::1]:443", "::ffff:192.0.2.7" (an IPv4 address seen through an IPv6 socket). So the address is
parsed first, and the visitor is:
- an IPv4 address itself (a school behind one NAT address is one network: its limits are sized for that);
- for IPv6, the network of its first ELECTRA_IPV6_PREFIX bits (64: one home, one phone or one server gets a
  whole /64, so counting single addresses would let anyone rotate through 2**64 of them).
Anything that is not an address (a test client's "testclient") is its own visitor, lower-cased and cut short.
"""

from __future__ import annotations

import ipaddress
import os

DEFAULT_IPV6_PREFIX = 64  # bits of an IPv6 address that name one visitor: the usual allocation to one site


def ipv6_prefix() -> int:
    """ELECTRA_IPV6_PREFIX: 1 to 128; ValueError naming the setting otherwise."""
    raw = os.environ.get("ELECTRA_IPV6_PREFIX", "").strip()
    try:
        bits = int(raw) if raw else DEFAULT_IPV6_PREFIX
    except ValueError:
        bits = 0
    if not 1 <= bits <= 128:
        raise ValueError(f"ELECTRA_IPV6_PREFIX is a number of bits from 1 to 128, not {raw[:20]!r}.")
    return bits


def _address(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    text = text.strip()
    if text.startswith("["):  # "[2001:db8::1]" or "[2001:db8::1]:443"
        text = text[1:].partition("]")[0]
    elif text.count(":") == 1:  # "192.0.2.7:5000": an IPv4 address with its port
        text = text.partition(":")[0]
    text = text.partition("%")[0]  # a link-local zone ("fe80::1%eth0") names an interface, not a visitor
    try:
        return ipaddress.ip_address(text)
    except ValueError:
        return None


def visitor(address: object) -> str:
    """The visitor an address belongs to, as one canonical string: "192.0.2.7", "2001:db8::/64"."""
    text = str(address or "")
    ip = _address(text)
    if ip is None:
        return text.strip().lower()[:64] or "unknown"
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.ip_network(f"{ip}/{ipv6_prefix()}", strict=False))
    return str(ip)
