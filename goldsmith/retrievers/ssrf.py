"""Server-side request forgery guard for retrievers under test: which addresses we may call.

Pure module (standard library only). A lead types a URL; the worker will call it from inside
the network, so the URL must not reach what only the worker can reach:

- link-local (169.254.0.0/16, fe80::/10) and cloud-metadata addresses (169.254.169.254,
  fd00:ec2::254, 100.100.100.200, 168.63.129.16) are always refused, as are unspecified,
  multicast, broadcast and reserved addresses;
- loopback (127.0.0.0/8, ::1) and private networks (10/8, 172.16/12, 192.168/16, 100.64/10,
  fc00::/7, ...) only when the policy allows them (``GOLDSMITH_ALLOW_PRIVATE_RETRIEVER_URLS``).

Hosts are parsed the way C resolvers do (``inet_aton``): ``2130706433``, ``0x7f.1``, ``0177.0.0.1``
and ``127.1`` are all 127.0.0.1. IPv6 addresses that embed an IPv4 address (IPv4-mapped
``::ffff:a.b.c.d``, IPv4-compatible, NAT64 ``64:ff9b::/96``, 6to4, Teredo) are judged by the
embedded address too. A host name is resolved and *every* address must pass; the caller then
connects to the checked address (see :class:`Target`), so a DNS answer that changes between the
check and the connection (rebinding) cannot redirect it. Redirects are re-checked hop by hop by
the HTTP client.
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from urllib.parse import urlsplit

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
Resolver = Callable[[str, int], Sequence[str]]

METADATA_ADDRESSES: frozenset[IPAddress] = frozenset(
    ipaddress.ip_address(a)
    for a in (
        "169.254.169.254",  # AWS, GCP, Azure, OpenStack, DigitalOcean ...
        "169.254.170.2",  # AWS ECS task metadata
        "fd00:ec2::254",  # AWS IMDS over IPv6
        "100.100.100.200",  # Alibaba Cloud
        "168.63.129.16",  # Azure wire server
    )
)
_NAT64 = ipaddress.ip_network("64:ff9b::/96")
_CGNAT = ipaddress.ip_network("100.64.0.0/10")


class UnsafeURL(ValueError):
    """The URL may not be called; ``str()`` says why, without secrets (URLs carry none)."""


class Unresolvable(UnsafeURL):
    """The URL's host name does not resolve here. Where it is called (a worker) it may: a
    URL saved on the web server is refused for every other reason, not this one."""


@dataclass(frozen=True)
class Policy:
    allow_private: bool = False


@dataclass(frozen=True)
class Target:
    """A checked URL: connect to ``address`` (not to ``host`` again), send ``Host: host_header``
    and use ``host`` for TLS server name indication and certificate checks."""

    scheme: str
    host: str
    port: int
    address: IPAddress
    path: str  # path with query string, at least "/"

    @property
    def host_header(self) -> str:
        default = 443 if self.scheme == "https" else 80
        host = f"[{self.host}]" if ":" in self.host else self.host
        return host if self.port == default else f"{host}:{self.port}"

    @property
    def pinned_url(self) -> str:
        """The URL with the checked address in place of the host name."""
        addr = f"[{self.address}]" if self.address.version == 6 else str(self.address)
        return f"{self.scheme}://{addr}:{self.port}{self.path}"

    @property
    def origin(self) -> tuple[str, str, int]:
        return (self.scheme, self.host.lower(), self.port)


def _inet_aton(host: str) -> ipaddress.IPv4Address | None:
    """IPv4 in any form the C library accepts: 1 to 4 parts, each decimal, octal (leading 0)
    or hexadecimal (0x); the last part fills the remaining bytes. None if not such a form."""
    parts = host.split(".")
    if host.endswith("."):  # "127.0.0.1." is a fully qualified literal
        parts = parts[:-1]
    if not 1 <= len(parts) <= 4:
        return None
    values: list[int] = []
    for part in parts:
        p = part.lower()
        try:
            if p.startswith("0x"):
                value = int(p[2:], 16) if len(p) > 2 else 0
            elif len(p) > 1 and p.startswith("0"):
                value = int(p[1:], 8)
            elif p.isdigit():
                value = int(p, 10)
            else:
                return None
        except ValueError:
            return None
        values.append(value)
    *head, last = values
    if any(v > 255 for v in head) or last >= 256 ** (4 - len(head)):
        return None
    number = 0
    for v in head:
        number = number * 256 + v
    number = (number << (8 * (4 - len(head)))) | last
    return ipaddress.IPv4Address(number)


def parse_ip(host: str) -> IPAddress | None:
    """The address a host literal stands for (IPv4 in any inet_aton form, IPv6 with or without
    brackets and zone), or None when the host is a name."""
    h = host.strip()
    if h.startswith("[") and h.endswith("]"):
        h = h[1:-1]
    if ":" in h:
        try:
            return ipaddress.IPv6Address(h.split("%", 1)[0])
        except ValueError:
            return None
    return _inet_aton(h)


def embedded_ipv4(ip: IPAddress) -> list[ipaddress.IPv4Address]:
    """IPv4 addresses an IPv6 address carries (mapped, compatible, NAT64, 6to4, Teredo)."""
    if ip.version == 4:
        return []
    assert isinstance(ip, ipaddress.IPv6Address)
    found: list[ipaddress.IPv4Address] = []
    if ip.ipv4_mapped is not None:
        found.append(ip.ipv4_mapped)
    packed = int(ip)
    if packed >> 32 == 0 and packed > 1:  # IPv4-compatible ::a.b.c.d (deprecated)
        found.append(ipaddress.IPv4Address(packed & 0xFFFFFFFF))
    if ip in _NAT64:
        found.append(ipaddress.IPv4Address(packed & 0xFFFFFFFF))
    if ip.sixtofour is not None:
        found.append(ip.sixtofour)
    if ip.teredo is not None:
        found.extend(ip.teredo)
    return found


def refusal(ip: IPAddress, policy: Policy) -> str | None:
    """Why ``ip`` may not be called under ``policy``; None when it may."""
    for inner in embedded_ipv4(ip):
        why = refusal(inner, policy)
        if why:
            return f"{why} (embedded in {ip})"
    if ip in METADATA_ADDRESSES:
        return f"{ip} is a cloud metadata address"
    if ip.is_link_local:
        return f"{ip} is link-local"
    if ip.is_unspecified:
        return f"{ip} is unspecified"
    if ip.is_multicast:
        return f"{ip} is multicast"
    if ip.version == 4 and ip == ipaddress.IPv4Address("255.255.255.255"):
        return f"{ip} is broadcast"
    if ip.is_loopback:
        return None if policy.allow_private else f"{ip} is loopback (private URLs are not allowed)"
    private = ip.is_private or (ip.version == 4 and ip in _CGNAT)
    if private:
        return None if policy.allow_private else f"{ip} is private (private URLs are not allowed)"
    if ip.is_reserved:
        return f"{ip} is reserved"
    return None


def system_resolver(host: str, port: int) -> list[str]:
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return [str(info[4][0]) for info in infos]


def check_url(url: str, policy: Policy, resolver: Resolver = system_resolver) -> Target:
    """Check a URL and resolve it once; raises :class:`UnsafeURL` with the reason
    (:class:`Unresolvable` when the host name does not resolve).

    Every resolved address must be allowed (a name with one private address among public ones
    is refused), and the first one is the address to connect to."""
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError as error:
        raise UnsafeURL(f"not a valid URL: {error}") from None
    scheme = parts.scheme.lower()
    if scheme not in ("http", "https"):
        raise UnsafeURL("only http and https URLs may be called")
    if parts.username is not None or parts.password is not None:
        raise UnsafeURL("credentials in the URL are not allowed (use the auth header)")
    host = parts.hostname or ""
    if not host:
        raise UnsafeURL("the URL has no host")
    port = port or (443 if scheme == "https" else 80)
    path = parts.path or "/"
    if parts.query:
        path = f"{path}?{parts.query}"
    literal = parse_ip(host)
    if literal is not None:
        addresses: list[IPAddress] = [literal]
        host = str(literal)
    else:
        try:
            ascii_host = host.encode("idna").decode("ascii")
        except UnicodeError:
            raise UnsafeURL(f"host {host!r} is not a valid name") from None
        try:
            resolved = resolver(ascii_host, port)
        except OSError as error:
            raise Unresolvable(f"host {host!r} does not resolve ({error})") from None
        addresses = []
        for text in resolved:
            ip = parse_ip(text)
            if ip is None:
                raise UnsafeURL(f"host {host!r} resolved to {text!r}, not an address")
            addresses.append(ip)
        if not addresses:
            raise Unresolvable(f"host {host!r} does not resolve")
        host = ascii_host
    for ip in addresses:
        why = refusal(ip, policy)
        if why:
            raise UnsafeURL(f"refused to call {host}: {why}")
    return Target(scheme=scheme, host=host, port=port, address=addresses[0], path=path)
