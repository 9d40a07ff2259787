"""`webcapture-admin keys` against moto: create prints the key once, list/disable/delete by id."""

from __future__ import annotations

import json

import pytest

from webcapture import admin
from webcapture.auth import api_keys
from webcapture.settings import get_settings


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    assert admin.main(list(argv)) == 0
    return capsys.readouterr().out


def test_create_list_disable_delete(aws_resources: None, capsys: pytest.CaptureFixture[str]) -> None:
    table = get_settings().api_keys_table
    created = json.loads(run(capsys, "keys", "create", "--table", table, "--user", "alice", "--name", "ci",
                             "--credits", "50", "--expires", "2030-01-01T00:00:00Z", "--metadata", '{"team": "x"}'))
    key = created["apiKey"]
    assert key.startswith("wc_") and created["remaining"] == 50
    assert created["expiresAt"] == "2030-01-01T00:00:00.000Z" and created["metadata"] == {"team": "x"}
    record = api_keys.find_by_key(key)
    assert record is not None and record.id == created["id"]

    listed = json.loads(run(capsys, "--table", table, "keys", "list", "--user", "alice"))
    assert [k["id"] for k in listed] == [created["id"]]
    assert key not in json.dumps(listed)

    run(capsys, "keys", "disable", created["id"])
    disabled = api_keys.find_by_key(key)
    assert disabled is not None and not disabled.is_usable()
    run(capsys, "keys", "delete", created["id"])
    assert api_keys.find_by_key(key) is None


def test_unknown_id_is_an_error_message(aws_resources: None) -> None:
    with pytest.raises(SystemExit, match="no API key with id"):
        admin.main(["keys", "disable", "nope"])


def test_max_concurrency_at_creation_and_by_update(aws_resources: None, capsys: pytest.CaptureFixture[str]) -> None:
    created = json.loads(run(capsys, "keys", "create", "--user", "bob", "--name", "n", "--credits", "5",
                             "--max-concurrency", "3"))
    assert created["maxConcurrency"] == 3
    updated = json.loads(run(capsys, "keys", "update", created["id"], "--max-concurrency", "9", "--credits", "70"))
    assert updated["maxConcurrency"] == 9 and updated["remaining"] == 70
    record = api_keys.find_by_key(created["apiKey"])
    assert record is not None and record.max_concurrency == 9
    default = json.loads(run(capsys, "keys", "create", "--user", "bob", "--name", "d"))
    assert default["maxConcurrency"] == 5  # the default when the record sets none
    with pytest.raises(SystemExit):
        admin.main(["keys", "update", created["id"], "--max-concurrency", "0"])
    with pytest.raises(SystemExit, match="nothing to update"):
        admin.main(["keys", "update", created["id"]])
