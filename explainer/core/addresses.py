"""Where students' phones can reach this server: the address a live class puts in its link and QR code.

- On a Hugging Face Space: the Space's own address (https://$SPACE_HOST), the only one a phone can open.
- A server listening on the network (`--classroom`, `--host 0.0.0.0`, `[::]` or one of its addresses): this
  machine's network addresses, the one its default route leaves by first; loopback, link-local and
  container-bridge interfaces (docker0, br-..., veth...) are left out, since no phone in the room reaches them.
  A teacher's page opened at an address that is not this machine's loopback (a name, a tunnel) keeps its own: a
  browser reached it.
- A server listening only on this machine (127.0.0.1, ::1, localhost): no address a phone can open, and the one
  command that lets phones in (`restart_command`).

`interfaces()` and `route_default()` read the operating system (psutil's interface list; the address a UDP
socket would leave by, which sends nothing); everything else is pure, so the choice is tested with both mocked.
"""

from __future__ import annotations

import ipaddress
import os
import socket
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

LOCAL_HOSTS = ("127.0.0.1", "localhost", "::1", "[::1]")  # a server here reaches this machine only
ALL_IPV4, ALL_IPV6 = ("0.0.0.0", ""), ("::", "[::]")  # every interface
BRIDGES = ("docker", "br-", "veth", "virbr", "cni", "flannel", "podman", "lxc", "vmnet", "vboxnet", "zt", "tailscale")
ROUTE_PROBE = ("192.0.2.1", 9)  # TEST-NET-1 (RFC 5737): a UDP socket "connected" there sends nothing
CLASSROOM_PORT = 7860  # gradio's default: what `--classroom` serves on unless --port says otherwise


@dataclass(frozen=True)
class Address:
    """One address of this machine a phone on its network may open."""

    ip: str
    interface: str  # "wlan0", "en0", "Ethernet"
    default: bool  # the default route leaves by it: the room's network, most likely

    @property
    def host(self) -> str:
        """As a URL's host: IPv6 in brackets."""
        return f"[{self.ip}]" if ":" in self.ip else self.ip

    @property
    def label(self) -> str:
        return f"{self.ip} ({self.interface}{', the default route' if self.default else ''})"


@dataclass(frozen=True)
class Reach:
    """The addresses students can be given, best first (the teacher chooses among them), or why there is none."""

    bases: tuple[tuple[str, str], ...]  # (label, scheme://host:port) to offer, best first
    local_only: bool  # the server listens on this machine only: phones cannot open any address
    note: str  # one line for the teacher ("" when a phone can open the first base)
    command: str = ""  # the command that lets phones in, which `note` ends with

    @property
    def line(self) -> str:
        return f"{self.note}: {self.command}" if self.command else self.note


def bracketed(host: str) -> str:
    """A host as a server name and a URL take it: an IPv6 literal in brackets ("::1" -> "[::1]"), else as given."""
    bare = host.strip()
    if bare.startswith("[") and bare.endswith("]"):
        return bare
    try:
        return f"[{bare}]" if ipaddress.ip_address(bare).version == 6 else bare
    except ValueError:
        return bare  # a name ("localhost", "myhost.local")


def _bare(host: str) -> str:
    return host.strip().strip("[]")


def is_local_only(host: str | None) -> bool:
    """Whether a server bound to `host` answers this machine alone (None: gradio's default, 127.0.0.1)."""
    if host is None:
        return True
    bare = _bare(host).lower()
    if bare == "localhost":
        return True
    try:
        return ipaddress.ip_address(bare).is_loopback
    except ValueError:
        return False


def _usable(ip: str, interface: str) -> bool:
    try:
        address = ipaddress.ip_address(ip.split("%")[0])
    except ValueError:
        return False
    if address.is_loopback or address.is_link_local or address.is_unspecified or address.is_multicast:
        return False
    return not interface.lower().startswith(("lo", *BRIDGES))


def choose(interfaces: dict[str, list[str]], bind: str | None, default_ip: str | None) -> tuple[Address, ...]:
    """The addresses of `interfaces` (name -> its IP addresses) a phone may open when the server is bound to
    `bind`: the default route's first, then IPv4 (what phones on a school's wifi use) before IPv6, each in the
    interface list's order. () when the server listens on this machine only."""
    if is_local_only(bind):
        return ()
    bare = _bare(bind or "")
    wanted = {4} if bare in ALL_IPV4 else {4, 6} if bare in ALL_IPV6 else None  # None: one address, named
    found = []
    for interface, ips in interfaces.items():
        for ip in ips:
            ip = ip.split("%")[0]
            if not _usable(ip, interface):
                continue
            version = ipaddress.ip_address(ip).version
            if (wanted is None and ip != bare) or (wanted is not None and version not in wanted):
                continue
            found.append(Address(ip, interface, ip == default_ip))
    if wanted is None and not found:  # bound to one address that no interface lists (a test's, a NAT's): as given
        found.append(Address(bare, "as bound", False))
    order = {a.ip: n for n, a in enumerate(found)}
    unique = {a.ip: a for a in found}.values()
    return tuple(sorted(unique, key=lambda a: (not a.default, ":" in a.ip, order[a.ip])))


def space_base(environ=os.environ) -> str | None:
    """https://SPACE_HOST on a Hugging Face Space (which sets SPACE_ID and SPACE_HOST), else None."""
    host = (environ.get("SPACE_HOST") or "").strip().strip("/")
    return f"https://{host}" if environ.get("SPACE_ID") and host else None


def configured_base(environ=os.environ) -> str | None:
    """ELECTRA_CLASS_URL: the address phones reach this server at when this computer cannot know it (a reverse
    proxy, a port forwarded by a router), as scheme://host[:port]; ValueError for anything else."""
    raw = (environ.get("ELECTRA_CLASS_URL") or "").strip().rstrip("/")
    if not raw:
        return None
    parts = urlsplit(raw)
    if parts.scheme not in ("http", "https") or not parts.hostname or parts.path or parts.query:
        raise ValueError(f"ELECTRA_CLASS_URL={raw[:80]!r}: write it as http://HOST:PORT or https://HOST, the address "
                         "students' phones open (no path)")
    return f"{parts.scheme}://{parts.netloc}"


def restart_command(argv: list[str]) -> str:
    """The one command that serves this app to the room, as this process was started (`argv`: sys.argv)."""
    first = Path(argv[0]).name if argv else ""
    command = "python app.py" if first == "app.py" else "python -m explainer" if first == "__main__.py" else \
        "electra-explainer"
    return f"{command} {'--desktop ' if '--desktop' in argv else ''}--classroom"


def reach(bind: str | None, port: int, page_location: str, addresses: tuple[Address, ...], command: str,
          space: str | None = None, configured: str | None = None) -> Reach:
    """What a live class offers the students' phones: the address set in ELECTRA_CLASS_URL (`configured`), or the
    Space's address on a Space; else the page's own address when a browser reached it by a name or a network
    address; else this machine's `addresses` when the server listens on the network; else nothing, and the
    command that lets phones in."""
    if configured or space:
        base = configured or space
        return Reach(((f"{urlsplit(base).netloc} ({'ELECTRA_CLASS_URL' if configured else 'this Space'})", base),),
                     False, "")
    bases: list[tuple[str, str]] = []
    parts = urlsplit(page_location or "")
    if parts.scheme in ("http", "https") and parts.hostname and not _on_this_machine(parts.hostname):
        bases.append((f"{parts.hostname} (this page's address)", f"{parts.scheme}://{parts.netloc}"))
    if is_local_only(bind):
        if bases:
            return Reach(tuple(bases), False, "")
        return Reach((), True, "This server listens only on this computer: phones cannot open its link. To let them "
                     "in, stop it and start it with", command)
    bases += [(a.label, f"http://{a.host}:{port}") for a in addresses if a.host not in {b[1] for b in bases}]
    if not bases:
        return Reach((), True, "This server listens on the network, but this computer has no network address a phone "
                     "can open (no wifi or cable connected?). Connect it to the room's network and reload this page.")
    return Reach(tuple(bases), False, "")


def _on_this_machine(host: str) -> bool:
    return is_local_only(host) or _bare(host) in ALL_IPV4 + ALL_IPV6


def with_base(location: str, base: str | None) -> str:
    """`location` (a page's address) with its scheme, host and port replaced by `base`'s (None: unchanged)."""
    if not base:
        return location
    page, new = urlsplit(location or ""), urlsplit(base)
    return urlunsplit((new.scheme, new.netloc, page.path or "/", page.query, ""))


# --- what the operating system says ------------------------------------------------------------------------

def interfaces() -> dict[str, list[str]]:
    """This machine's network interfaces and their IP addresses (psutil: Linux, macOS, Windows alike)."""
    import psutil

    return {name: [a.address for a in found if a.family in (socket.AF_INET, socket.AF_INET6)]
            for name, found in psutil.net_if_addrs().items()}


def route_default() -> str | None:
    """The address this machine's default route leaves by: a UDP socket connected to a documentation address
    (nothing is sent: UDP's connect only picks the route), or None without a route."""
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
            probe.connect(ROUTE_PROBE)
            return probe.getsockname()[0]
    except OSError:
        return None


def machine_addresses(bind: str | None) -> tuple[Address, ...]:
    """`choose` on this machine's own interfaces and default route."""
    if is_local_only(bind):
        return ()
    return choose(interfaces(), bind, route_default())
