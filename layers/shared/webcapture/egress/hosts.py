"""URL and host parsing as browsers do it (WHATWG URL Standard), so we judge the host Chromium will use.

Python's urllib parses differently from browsers ("http://a\\@127.0.0.1", "http:127.0.0.1", "0x7f.1"),
and any difference is a way around the edge check. Only what the egress policy needs is implemented:
the scheme, the host, the port, and the path for the proxy's origin-form request line.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass
from typing import Final
from urllib.parse import unquote

try:  # UTS 46 as browsers apply it; the stdlib codec (IDNA 2003) is the fallback.
    import idna as _idna
except ImportError:  # pragma: no cover - idna ships with httpx/requests
    _idna = None  # type: ignore[assignment]

Host = ipaddress.IPv4Address | ipaddress.IPv6Address | str

DEFAULT_PORTS: Final = {"http": 80, "https": 443, "ws": 80, "wss": 443}

_FORBIDDEN_DOMAIN: Final = frozenset(" #%/:<>?@[\\]^|\x7f") | frozenset(chr(c) for c in range(0x20))
_C0_OR_SPACE: Final = "".join(chr(c) for c in range(0x21))
_TAB_OR_NEWLINE: Final = str.maketrans("", "", "\t\n\r")
_SCHEME_CHARS: Final = frozenset("abcdefghijklmnopqrstuvwxyz0123456789+-.")


class HostError(ValueError):
    """The host (or URL) is not one a browser would accept."""


@dataclass(frozen=True, slots=True)
class Target:
    scheme: str
    host: Host
    port: int
    path: str  # path and query, never empty, no fragment

    @property
    def host_text(self) -> str:
        return host_text(self.host)

    @property
    def authority(self) -> str:
        """Host[:port] as a Host header carries it (port left out when it is the scheme's default)."""
        text = host_text(self.host, brackets=True)
        return text if DEFAULT_PORTS.get(self.scheme) == self.port else f"{text}:{self.port}"


def host_text(host: Host, *, brackets: bool = False) -> str:
    if isinstance(host, ipaddress.IPv6Address):
        return f"[{host}]" if brackets else str(host)
    return str(host)


def split_scheme(url: str) -> tuple[str, str]:
    """(lowercased scheme, rest) after the WHATWG pre-processing (strip C0/space, drop tab/newline)."""
    url = url.strip(_C0_OR_SPACE).translate(_TAB_OR_NEWLINE)
    scheme, sep, rest = url.partition(":")
    scheme = scheme.lower()
    if not sep or not scheme or not scheme[0].isalpha() or not set(scheme) <= _SCHEME_CHARS:
        raise HostError("not an absolute URL")
    return scheme, rest


def parse_url(url: str) -> Target:
    """Scheme, host, port and path of an http(s) or ws(s) URL, as the WHATWG parser finds them."""
    scheme, rest = split_scheme(url)
    if scheme not in DEFAULT_PORTS:
        raise HostError(f"scheme {scheme!r} is not http(s)")
    # Special schemes ignore any run of slashes and backslashes before the authority.
    rest = rest.lstrip("/\\")
    end = len(rest)
    for stop in "/\\?#":
        index = rest.find(stop)
        if index != -1:
            end = min(end, index)
    authority, tail = rest[:end], rest[end:]
    host_port = authority.rpartition("@")[2]  # the last "@" ends the credentials
    host_raw, port = split_host_port(host_port, DEFAULT_PORTS[scheme])
    path, query_mark, query = tail.partition("#")[0].partition("?")
    path = path.replace("\\", "/") + query_mark + query  # backslashes are slashes in the path only
    if not path.startswith("/"):
        path = "/" + path
    return Target(scheme, parse_host(host_raw), port, path)


def split_host_port(host_port: str, default_port: int | None) -> tuple[str, int]:
    """Split "host:port" ("[v6]:port"); the port may be absent only when there is a default."""
    in_brackets = False
    for index, char in enumerate(host_port):
        if char == "[":
            in_brackets = True
        elif char == "]":
            in_brackets = False
        elif char == ":" and not in_brackets:
            return host_port[:index], _port(host_port[index + 1 :], default_port)
    if default_port is None:
        raise HostError("a port is required")
    return host_port, default_port


def _port(text: str, default_port: int | None) -> int:
    if text == "":
        if default_port is None:
            raise HostError("a port is required")
        return default_port
    if not text.isascii() or not text.isdigit() or int(text) > 65535:
        raise HostError("the port is not valid")
    return int(text)


def parse_host(raw: str) -> Host:
    """The WHATWG host parser for special schemes: an IPv4 address (in any of the spellings browsers
    accept: 2130706433, 0177.0.0.1, 0x7f.0.0.1, 127.1), a bracketed IPv6 address, or an ASCII domain."""
    if raw.startswith("["):
        if not raw.endswith("]") or "%" in raw:  # no zone identifiers in URLs
            raise HostError("not a valid IPv6 address")
        try:
            return ipaddress.IPv6Address(raw[1:-1])
        except ValueError as exc:
            raise HostError("not a valid IPv6 address") from exc
    if raw == "":
        raise HostError("the host is empty")
    domain = _domain_to_ascii(unquote(raw, errors="replace"))
    if any(char in _FORBIDDEN_DOMAIN for char in domain):
        raise HostError("the host contains a forbidden character")
    if _ends_in_a_number(domain):
        return _parse_ipv4(domain)
    return domain


def _domain_to_ascii(domain: str) -> str:
    labels = domain.split(".")
    if domain.isascii() and not any(label.lower().startswith("xn--") for label in labels):
        return domain.lower()
    try:
        if _idna is not None:
            # Browsers: nontransitional UTS 46, no STD3 rules (underscores pass), no DNS length check.
            return _idna.encode(domain, uts46=True, transitional=False, std3_rules=False).decode("ascii")
        return domain.encode("idna").decode("ascii").lower()
    except (UnicodeError, ValueError) as exc:  # idna.IDNAError is a UnicodeError
        raise HostError("not a valid internationalised domain name") from exc


def _ends_in_a_number(domain: str) -> bool:
    parts = domain.split(".")
    if parts[-1] == "" and len(parts) > 1:
        parts.pop()
    last = parts[-1]
    return (last != "" and last.isascii() and last.isdigit()) or _ipv4_number(last) is not None


def _ipv4_number(part: str) -> int | None:
    if part == "":
        return None
    radix, digits = 10, "0123456789"
    if part[:2] in ("0x", "0X"):
        part, radix, digits = part[2:], 16, "0123456789abcdefABCDEF"
    elif len(part) > 1 and part[0] == "0":
        part, radix, digits = part[1:], 8, "01234567"
    if part == "":
        return 0
    # int() alone would also take "+1", " 1" and "1_0".
    if any(char not in digits for char in part):
        return None
    return int(part, radix)


def _parse_ipv4(domain: str) -> ipaddress.IPv4Address:
    parts = domain.split(".")
    if parts[-1] == "" and len(parts) > 1:
        parts.pop()
    if len(parts) > 4:
        raise HostError("not a valid IPv4 address")
    numbers = [_ipv4_number(part) for part in parts]
    if any(number is None for number in numbers):
        raise HostError("not a valid IPv4 address")
    values = [number for number in numbers if number is not None]
    if any(value > 255 for value in values[:-1]) or values[-1] >= 256 ** (5 - len(values)):
        raise HostError("not a valid IPv4 address")
    address = values[-1]
    for index, value in enumerate(values[:-1]):
        address += value * 256 ** (3 - index)
    return ipaddress.IPv4Address(address)
