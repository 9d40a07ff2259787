"""requirements.lock is the only place a version is chosen: the dev venv and every Lambda package's
requirements.txt hold exactly its versions (the built packages are checked in tests/artifact)."""

from __future__ import annotations

from importlib.metadata import distributions

from packaging.utils import canonicalize_name

from tests.support.locked_versions import LOCK, REPO, locked, pins, shipped_requirements


def test_the_dev_venv_holds_exactly_the_locked_versions() -> None:
    installed = {canonicalize_name(dist.metadata["Name"]): dist.version for dist in distributions()}
    differ = {name: (pin, installed.get(name)) for name, pin in locked().items() if installed.get(name) != pin}
    assert differ == {}, "locked vs installed; run `make install` (or `make lock` to change a version)"


def test_every_shipped_requirement_is_a_locked_version() -> None:
    lock = locked()
    files = shipped_requirements()
    assert {path.relative_to(REPO).as_posix() for path in files} >= {
        "layers/shared/requirements.txt", "layers/browser/requirements.txt",
        "layers/browser/content-requirements.txt", "layers/node/requirements.txt",
        "functions/authorizer/requirements.txt", "functions/ai_extract/requirements.txt"}
    for path in files:
        text = path.read_text()
        assert text.startswith("# Written by `make lock`"), f"{path} is kept by hand"
        assert "--hash=sha256:" in text, f"{path} has no hashes"
        for name, version in pins(path).items():
            assert lock.get(name) == version, f"{path.relative_to(REPO)}: {name}=={version}, lock {lock.get(name)}"


def test_the_lock_pins_every_package_with_hashes() -> None:
    entries = [line for line in LOCK.read_text().splitlines() if line and not line.startswith((" ", "#"))]
    assert len(entries) >= len(locked()) > 100
    assert all(line.endswith(" \\") for line in entries), "every locked package carries its hashes"
