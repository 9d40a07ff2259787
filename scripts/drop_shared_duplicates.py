"""Drop from each built function's own package what the SharedLayer already carries.

A function with requirements of its own (the authorizer's PyJWT, ai-extract's openai) gets them from sam's
pip with their whole dependency tree, so openai brings pydantic, pydantic-core, typing-extensions, idna...
again, 9 MB, and at whatever release pip picks that day. On Lambda the function's folder comes first on
sys.path, so that second copy would shadow the SharedLayer's pinned one: a pydantic the suite never ran.
This removes every top-level package, module and .dist-info of a function's folder that the SharedLayer
has too, leaving the SharedLayer's (the versions the suite tests) in charge.

    python scripts/drop_shared_duplicates.py [--build-dir .aws-sam/build]

Run by `make build` after `sam build`. Idempotent.
"""

from __future__ import annotations

import argparse
import re
import shutil
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
_DIST_INFO = re.compile(r"^(?P<name>.+?)-[^-]+\.dist-info$")


def _project(dist_info: str) -> str | None:
    match = _DIST_INFO.match(dist_info)
    return match.group("name").lower().replace("-", "_") if match else None


def duplicates(function_dir: Path, shared: Path) -> list[Path]:
    """The entries of function_dir the shared layer's python/ also has (same top-level name; a .dist-info of
    the same project, whatever its version)."""
    shared_names = {entry.name for entry in shared.iterdir()}
    shared_projects = {_project(name) for name in shared_names} - {None}
    found = []
    for entry in function_dir.iterdir():
        if entry.name in ("__pycache__", "app.py", "requirements.txt"):
            continue
        if entry.name.endswith(".dist-info"):
            if _project(entry.name) in shared_projects:
                found.append(entry)
        elif entry.name in shared_names:
            found.append(entry)
    return sorted(found)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build-dir", type=Path, default=REPO_ROOT / ".aws-sam" / "build")
    args = parser.parse_args(argv)
    shared = args.build_dir / "SharedLayer" / "python"
    if not shared.is_dir():
        print(f"no built SharedLayer at {shared}: nothing to compare with")
        return 0
    for function_dir in sorted(args.build_dir.glob("*Function")):
        dropped = duplicates(function_dir, shared)
        for entry in dropped:
            if entry.is_dir():
                shutil.rmtree(entry)
            else:
                entry.unlink()
        if dropped:
            print(f"{function_dir.name}: dropped {', '.join(entry.name for entry in dropped)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
