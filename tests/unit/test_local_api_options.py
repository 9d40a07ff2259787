"""`python -m localapi`'s options for test stacks (docs/architecture.md#the-local-api): `--prewarm` names
functions of the template, and nothing starts when one is not; `--schedule-speed` is above 0."""

from __future__ import annotations

import pytest

from localapi.__main__ import _arguments
from localapi.stack import LocalStack


def test_prewarm_takes_functions_and_excludes_no_prewarm(capsys: pytest.CaptureFixture[str]) -> None:
    assert _arguments([]).prewarm is None and not _arguments([]).no_prewarm
    assert _arguments(["--prewarm", "MapFunction", "--prewarm", "AuthorizerFunction"]).prewarm == [
        "MapFunction", "AuthorizerFunction"]
    with pytest.raises(SystemExit):
        _arguments(["--prewarm", "MapFunction", "--no-prewarm"])
    assert "not allowed with argument" in capsys.readouterr().err


def test_a_prewarm_of_no_such_function_says_which_exist_before_anything_starts() -> None:
    stack = LocalStack(port=0, prewarm=("MapFunction", "NoSuchFunction"))
    with pytest.raises(ValueError, match=r"no function NoSuchFunction in template\.yaml") as refused:
        stack.start()
    assert "MapFunction" in str(refused.value) and not hasattr(stack, "aws")


@pytest.mark.parametrize("speed", ["0", "-2", "nan"])
def test_a_schedule_speed_is_above_zero(speed: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert _arguments(["--schedule-speed", "2.5"]).schedule_speed == 2.5
    with pytest.raises(SystemExit):
        _arguments(["--schedule-speed", speed])
    assert "is not a speed above 0" in capsys.readouterr().err
