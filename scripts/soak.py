"""`make soak`: many screenshots through one warm container, watching for leaks.

The real screenshot handler (functions/screenshot, loaded the way a container loads it) runs in this
process, invocation after invocation, as one warm Lambda container would: metering against moto's server
(its own process, so its memory is not counted here), the egress proxy, one Chromium reused throughout.
At every checkpoint it records the handler process's RSS, the RSS of all Chromium processes together,
Playwright's driver, open file descriptors, the bytes under the browser's scratch folder and the
system temp folder, and the processes under this one. Between checkpoints the RSS figures are also read
every 25 screenshots (just before each recycle of the driver and browser, webcapture.browser.lifecycle), and
the highest of each is reported with the checkpoint, so a recycle right before a checkpoint cannot hide
growth. Every sample waits until the browser's worker is idle (a recycle has finished). At the end it shuts
the browser down and checks that no process is left. The target: memory flat (within 10%) from the 1,000th
screenshot to the last.

    python scripts/soak.py [--count 10000] [--checkpoint 1000] [--write-docs docs/benchmarks.md]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import socket
import subprocess
import sys
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
os.environ.setdefault("WEBCAPTURE_EGRESS_ALLOW", "127.0.0.0/8")  # the fixture server is on loopback
os.environ.setdefault("POWERTOOLS_TRACE_DISABLED", "true")
os.environ.setdefault("POWERTOOLS_METRICS_DISABLED", "true")
os.environ.setdefault("POWERTOOLS_LOG_LEVEL", "WARNING")
for _name, _value in (("AWS_ACCESS_KEY_ID", "local"), ("AWS_SECRET_ACCESS_KEY", "local"),
                      ("AWS_DEFAULT_REGION", "us-east-1")):
    os.environ.setdefault(_name, _value)

import boto3  # noqa: E402

from localapi.aws_emulator import create_template_resources  # noqa: E402
from localapi.cfn_template import Resolver, load_template  # noqa: E402
from localapi.container_worker import LambdaContext, load_handler  # noqa: E402
from scripts.benchmark_docs import write_block  # noqa: E402
from tests.support.fixture_server import get_server, stop_server  # noqa: E402
from tests.support.lambda_events import screenshot_event  # noqa: E402

TABLES = {"ApiKeysTable": "soak-api-keys", "FilesTable": "soak-files", "FilesBucket": "soak-files"}


@dataclass
class Sample:
    done: int
    handler_rss_kb: int
    chromium_rss_kb: int
    chromium_processes: int
    driver_rss_kb: int
    open_fds: int
    scratch_kb: int
    processes: int
    zombies: int
    seconds: float
    # The highest RSS seen since the previous checkpoint (sampled every PEAK_EVERY screenshots), in KB.
    handler_peak_kb: int = 0
    chromium_peak_kb: int = 0
    driver_peak_kb: int = 0
    recycles: int = 0


PEAK_EVERY = 25


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def start_moto() -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    process = subprocess.Popen([sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    endpoint = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                return process, endpoint
        time.sleep(0.1)
    process.kill()
    raise RuntimeError("moto's server did not start")


def rss_kb(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def folder_kb(path: Path) -> int:
    total = 0
    for root, _dirs, files in os.walk(path):
        for name in files:
            with contextlib.suppress(OSError):
                total += os.lstat(os.path.join(root, name)).st_size
    return total // 1024


def comm(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip()
    except OSError:
        return ""


def wait_idle() -> None:
    """Until the browser's worker has finished what it does between requests (a recycle)."""
    from webcapture.browser import lifecycle

    lifecycle.host().submit(lambda: None, wait_s=120)


def memory(executable: str, moto_pid: int) -> tuple[int, int, int]:
    """RSS in KB of this process, of all Chromium processes together, and of the driver."""
    from webcapture.browser.launch import processes

    tree = [pid for pid in processes.descendants(os.getpid()) if pid != moto_pid]
    chromium = [pid for pid in tree if comm(pid) == executable[:15]]
    drivers = [pid for pid in tree if pid not in chromium]
    return rss_kb(os.getpid()), sum(rss_kb(pid) for pid in chromium), sum(rss_kb(pid) for pid in drivers)


def sample(done: int, started: float, scratch_root: Path, executable: str, moto_pid: int) -> Sample:
    """One checkpoint. Chromium's processes are told by their command name (the browser, its zygotes,
    renderers and utilities all run the one executable); moto's server, our own child, is left out."""
    from webcapture.browser import lifecycle
    from webcapture.browser.launch import processes

    tree = [pid for pid in processes.descendants(os.getpid()) if pid != moto_pid]
    chromium = [pid for pid in tree if comm(pid) == executable[:15]]
    drivers = [pid for pid in tree if pid not in chromium]
    return Sample(
        recycles=lifecycle.host().recycles,
        done=done,
        handler_rss_kb=rss_kb(os.getpid()),
        chromium_rss_kb=sum(rss_kb(pid) for pid in chromium),
        chromium_processes=len(chromium),
        driver_rss_kb=sum(rss_kb(pid) for pid in drivers),
        open_fds=len(os.listdir("/proc/self/fd")),
        scratch_kb=folder_kb(scratch_root),
        processes=len(tree),
        zombies=sum(1 for pid in tree if processes.state(pid) == "Z"),
        seconds=time.monotonic() - started,
    )


def run(count: int, checkpoint: int) -> tuple[list[Sample], dict[str, Any]]:
    moto, endpoint = start_moto()
    os.environ.update(AWS_ENDPOINT_URL_DYNAMODB=endpoint, AWS_ENDPOINT_URL_S3=endpoint,
                      API_KEYS_TABLE=TABLES["ApiKeysTable"], FILES_TABLE=TABLES["FilesTable"],
                      FILES_BUCKET=TABLES["FilesBucket"], PUBLIC_BASE_URL=f"{endpoint}/soak-files")
    try:
        template = load_template()
        create_template_resources(boto3.client("dynamodb", endpoint_url=endpoint),
                                  boto3.client("s3", endpoint_url=endpoint), template,
                                  Resolver(template, physical_names=TABLES))
        from webcapture.auth.api_keys import create_key
        from webcapture.auth.authorizer import authenticate
        from webcapture.browser import lifecycle
        from webcapture.browser.launch import processes
        from webcapture.browser.launch.chromium_pack import resolve_chromium
        from webcapture.settings import get_settings

        key, _record = create_key("soak-user", "soak", remaining=count * 2)
        authorizer = authenticate(f"Bearer {key}")
        handler = load_handler(REPO / "functions" / "screenshot", "app.lambda_handler", "ScreenshotFunction")
        page = get_server().url("/plain.html")
        body = {"url": page, "viewport": {"width": 800, "height": 600},
                "screenshotOptions": {"fullPage": False}}
        # This process's own scratch folder, the TMPDIR and HOME of Chromium and Playwright's driver: on
        # Lambda it lies in /tmp, so it is the handler's /tmp use (the cache folder itself is shared).
        scratch_root = Path(get_settings().cache_dir) / "browser-scratch"
        scratch_root /= processes.scratch_name(os.getpid())
        samples: list[Sample] = []
        failures: dict[str, int] = {}
        reasons: dict[str, int] = {}
        peaks = [0, 0, 0]
        executable = resolve_chromium(get_settings()).executable.name
        started = time.monotonic()
        for done in range(1, count + 1):
            context = LambdaContext("ScreenshotFunction", 2048, time.monotonic() + 30, str(uuid.uuid4()),
                                    "arn:aws:lambda:us-east-1:123456789012:function:ScreenshotFunction")
            answer = handler(screenshot_event(key, authorizer, body), context)
            if answer.get("statusCode") != 200:
                code = str(answer.get("statusCode"))
                failures[code] = failures.get(code, 0) + 1
                reason = f"{code} {error_of(answer)}"
                reasons[reason] = reasons.get(reason, 0) + 1
                print(json.dumps({"done": done, "failed": reason}), flush=True)
            if (done + 1) % PEAK_EVERY == 0:
                wait_idle()
                peaks = [max(old, new) for old, new in zip(peaks, memory(executable, moto.pid), strict=True)]
            if done == 1 or done % checkpoint == 0 or done == count:
                wait_idle()
                point = sample(done, started, scratch_root, executable, moto.pid)
                now = (point.handler_rss_kb, point.chromium_rss_kb, point.driver_rss_kb)
                point.handler_peak_kb, point.chromium_peak_kb, point.driver_peak_kb = (
                    max(pair) for pair in zip(peaks, now, strict=True))
                peaks = [0, 0, 0]
                samples.append(point)
                print(json.dumps(point.__dict__), flush=True)
        from webcapture.auth.api_keys import find_by_key

        record = find_by_key(key)
        spent = count * 2 - int(record.public()["remaining"]) if record else -1
        lifecycle.shutdown_browser()
        deadline = time.monotonic() + 10

        def ours() -> list[int]:
            return [pid for pid in processes.descendants(os.getpid()) if pid != moto.pid]

        while ours() and time.monotonic() < deadline:
            time.sleep(0.1)
        leftover = ours()
        summary = {"failures": failures, "reasons": reasons, "credits_spent": spent,
                   "recycle_after": get_settings().browser_recycle_after,
                   "recycles": samples[-1].recycles, "leaked_processes": len(leftover),
                   "leaked": [" ".join(processes.cmdline(pid))[:120] for pid in leftover],
                   "scratch_after_kb": folder_kb(scratch_root)}
        return samples, summary
    finally:
        stop_server()
        moto.terminate()
        moto.wait(timeout=10)


def error_of(answer: dict[str, Any]) -> str:
    try:
        error = json.loads(answer.get("body") or "{}").get("error") or {}
    except ValueError:
        return "(no JSON body)"
    return f"{error.get('code')}: {error.get('message')}"


def change(first: int, last: int) -> str:
    return f"{(last - first) / first * 100:+.1f}%" if first else "n/a"


def report(samples: list[Sample], summary: dict[str, Any], count: int) -> str:
    base = next((s for s in samples if s.done >= 1000), samples[0])
    last = samples[-1]
    after = [s for s in samples if s.done > base.done]
    rows = ["| screenshots | handler RSS MB (peak) | Chromium RSS MB (peak; processes) "
            "| driver RSS MB (peak) | recycles | open fds | scratch (TMPDIR) KB | processes (zombies) "
            "| seconds |",
            "|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for s in samples:
        rows.append(f"| {s.done:,} | {mb(s.handler_rss_kb)} ({mb(s.handler_peak_kb)}) "
                    f"| {mb(s.chromium_rss_kb)} ({mb(s.chromium_peak_kb)}; {s.chromium_processes}) "
                    f"| {mb(s.driver_rss_kb)} "
                    f"({mb(s.driver_peak_kb)}) | {s.recycles} | {s.open_fds} | {s.scratch_kb} | "
                    f"{s.processes} ({s.zombies}) | {s.seconds:.0f} |")
    rate = last.done / last.seconds if last.seconds else 0.0

    def figures(name: str, now: str, peak: str) -> str:
        first, final = getattr(base, now), getattr(last, now)
        highest = max((getattr(s, peak) for s in after), default=final)
        return (f"{name} {mb(first)} -> {mb(final)} MB ({change(first, final)}), peak "
                f"{mb(getattr(base, peak))} -> {mb(highest)} MB ({change(getattr(base, peak), highest)})")

    successes = count - sum(summary["failures"].values())
    lines = [
        f"{count:,} screenshots (800x600 png, `plain.html` on loopback, binary answer) through one warm "
        f"screenshot handler in one process, on {platform.machine()} with {os.cpu_count()} cores: "
        f"{rate:.1f} screenshots/s; the driver and browser recycled every "
        f"{summary.get('recycle_after', '?')} requests ({summary['recycles']} times).",
        "",
        *rows,
        "",
        f"- From {base.done:,} to {last.done:,} (target: flat within 10%; peak: the highest reading up to "
        f"{base.done:,}, and after it): "
        + "; ".join([figures("handler RSS", "handler_rss_kb", "handler_peak_kb"),
                     figures("Chromium RSS", "chromium_rss_kb", "chromium_peak_kb"),
                     figures("driver RSS", "driver_rss_kb", "driver_peak_kb")])
        + f"; open fds {base.open_fds} -> {last.open_fds}.",
        f"- Answers other than 200: {summary['reasons'] or 'none'}; credits spent "
        f"{summary['credits_spent']:,} for {successes:,} successful screenshots"
        f" ({'equal' if summary['credits_spent'] == successes else 'NOT equal'}).",
        f"- After shutdown: {summary['leaked_processes']} processes left "
        f"{summary['leaked'] or ''}, scratch folder {summary['scratch_after_kb']} KB.",
    ]
    return "\n".join(lines)


def mb(kb: int) -> str:
    return f"{kb / 1024:.1f}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--count", type=int, default=10_000)
    parser.add_argument("--checkpoint", type=int, default=1_000)
    parser.add_argument("--write-docs", type=Path, default=None)
    args = parser.parse_args()
    samples, summary = run(args.count, args.checkpoint)
    text = report(samples, summary, args.count)
    print(text)
    if args.write_docs:
        write_block("soak", text, args.write_docs)
    leaked = summary["leaked_processes"] > 0
    return 1 if leaked or summary["failures"] else 0


if __name__ == "__main__":
    sys.exit(main())
