"""requirements.lock read as the tests need it: each package's locked version, for this interpreter."""

from __future__ import annotations

import re
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

REPO = Path(__file__).resolve().parents[2]
LOCK = REPO / "requirements.lock"
_PIN = re.compile(r"^(?P<requirement>[A-Za-z0-9][^\s\\]*(?: ; [^\\]+)?)", re.M)


def pins(path: Path) -> dict[str, str]:
    """Name (canonical) -> version of every `name==version` in a requirements file whose marker holds here."""
    found: dict[str, str] = {}
    for match in _PIN.finditer(path.read_text()):
        requirement = Requirement(match.group("requirement").strip())
        if requirement.marker is not None and not requirement.marker.evaluate():
            continue
        (specifier,) = requirement.specifier
        assert specifier.operator == "==", f"{path.name}: {requirement} is not pinned exactly"
        found[canonicalize_name(requirement.name)] = specifier.version
    return found


def locked() -> dict[str, str]:
    return pins(LOCK)


def shipped_requirements() -> list[Path]:
    """Every Lambda package's requirements.txt that `make lock` writes (one per requirements.in)."""
    sources = [*REPO.glob("layers/**/*requirements.in"), *REPO.glob("functions/**/*requirements.in")]
    return sorted(source.with_suffix(".txt") for source in sources)
