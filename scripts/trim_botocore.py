"""Drop the AWS service models the functions never use from the built SharedLayer's botocore.

botocore ships the API model of every AWS service (440 of them, 27 MB of data/), and every function
carries the SharedLayer: for the browser functions that is 27 MB of a 250 MB limit that Chromium, the
filter engine and the main-content step need. The functions talk to four services (webcapture/aws.py:
DynamoDB, S3, CloudFront; Powertools parameters: Secrets Manager); STS and SSO stay for credential
providers, SSM for Powertools parameters, X-Ray for the tracer. A client for any other service would fail
with UnknownServiceError, which the artefact tests (tests/artifact) would show: they run every built handler.

    python scripts/trim_botocore.py [--build-dir .aws-sam/build]

Run by `make build` after `sam build`, before the bytecode step. Idempotent.
"""

from __future__ import annotations

import argparse
import shutil
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
KEPT_SERVICES = frozenset({
    "dynamodb", "s3", "cloudfront", "secretsmanager", "sqs", "scheduler",  # what the code calls
    "ssm", "sts", "sso", "sso-oidc", "xray",  # Powertools parameters, credential providers, the tracer
})


def trim(data_dir: Path) -> int:
    """Remove every service folder not kept; the top-level files (endpoints, partitions, retry rules,
    default configuration) stay. Returns the bytes freed."""
    freed = 0
    for entry in data_dir.iterdir():
        if entry.is_dir() and entry.name not in KEPT_SERVICES:
            freed += sum(f.stat().st_size for f in entry.rglob("*") if f.is_file())
            shutil.rmtree(entry)
    return freed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build-dir", type=Path, default=REPO_ROOT / ".aws-sam" / "build")
    args = parser.parse_args()
    data_dir = args.build_dir / "SharedLayer" / "python" / "botocore" / "data"
    if not data_dir.is_dir():
        print(f"no SharedLayer botocore in {args.build_dir}: nothing to trim")
        return 0
    freed = trim(data_dir)
    print(f"botocore service models trimmed to {len(KEPT_SERVICES)} services: {freed / 1e6:.1f} MB freed")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
