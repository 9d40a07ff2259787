"""Profiles' storage on moto in-process (docs/profiles.md): the metadata's limit and versions, the state's
object under SSE-KMS, the egress filter on import and save, a save's race, and the cache keys."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import boto3
import pytest

from tests.conftest import TABLES
from webcapture import cache
from webcapture.auth.caller import Caller
from webcapture.browser.page.spare_context import options_key
from webcapture.errors import LimitReached, NotFound
from webcapture.models.profiles import ProfileRef, StorageState
from webcapture.models.requests import MarkdownRequest
from webcapture.profiles import sessions, store
from webcapture.settings import get_settings

ADA = Caller(user_id="ada", kind="api_key")
EVE = Caller(user_id="eve", kind="api_key")
PASSWORD = "correct horse battery staple"


@pytest.fixture
def profiles_aws(aws_resources: None, settings_env: pytest.MonkeyPatch) -> Iterator[str]:
    """The template's profiles table and a KMS key of the stack's (moto), loopback allowed."""
    key_id = boto3.client("kms").create_key(Description="profiles")["KeyMetadata"]["KeyId"]
    settings_env.setenv("PROFILES_TABLE", "ProfilesTable")
    settings_env.setenv("PROFILES_KMS_KEY_ID", key_id)
    settings_env.setenv("WEBCAPTURE_EGRESS_ALLOW", "127.0.0.0/8")
    get_settings.cache_clear()
    yield key_id
    get_settings.cache_clear()


def _state(*cookies: tuple[str, str], token: str = "t0k3n") -> StorageState:
    return StorageState.model_validate({
        "cookies": [{"name": "session", "value": value, "domain": domain, "path": "/", "expires": -1,
                     "httpOnly": True, "secure": False, "sameSite": "Lax"} for domain, value in cookies],
        "origins": [{"origin": "http://127.0.0.1:8080", "localStorage": [{"name": "token", "value": token}]}],
    })


def _objects() -> list[dict[str, Any]]:
    listed = boto3.client("s3").list_objects_v2(Bucket=TABLES["FilesBucket"], Prefix="profiles/")
    return list(listed.get("Contents", []))


def test_a_profile_is_its_owners_only(profiles_aws: str) -> None:
    made = store.create(ADA.user_id, "work")
    assert made.version == store.FIRST_VERSION and made.state_key is None
    assert made.public()["profileId"].startswith("prf_") and "stateKey" not in made.public()
    assert [p.profile_id for p in store.list_profiles(ADA.user_id)] == [made.profile_id]
    assert store.list_profiles(EVE.user_id) == []
    for user in (EVE.user_id,):
        with pytest.raises(NotFound):
            store.owned(user, made.profile_id)
        with pytest.raises(NotFound):
            store.rename(user, made.profile_id, "mine now")
        with pytest.raises(NotFound):
            store.delete(user, made.profile_id)
    with pytest.raises(NotFound):
        sessions.open_profile(EVE, ProfileRef(id=made.profile_id))
    assert store.rename(ADA.user_id, made.profile_id, "work (new)").name == "work (new)"


def test_a_user_has_at_most_100_and_a_delete_gives_a_place_back(profiles_aws: str) -> None:
    made = [store.create(ADA.user_id, f"p{i}") for i in range(store.MAX_PROFILES)]
    with pytest.raises(LimitReached):
        store.create(ADA.user_id, "one too many")
    assert len(store.list_profiles(ADA.user_id)) == store.MAX_PROFILES
    store.create(EVE.user_id, "another user's first")  # the limit is each user's own
    store.delete(ADA.user_id, made[0].profile_id)
    with pytest.raises(NotFound):
        store.owned(ADA.user_id, made[0].profile_id)
    store.create(ADA.user_id, "in the freed place")
    with pytest.raises(LimitReached):
        store.create(ADA.user_id, "one too many again")


def test_an_imported_state_is_kept_encrypted_without_unreachable_hosts(profiles_aws: str) -> None:
    made = store.create(ADA.user_id, "import")
    imported = _state(("127.0.0.1", "loopback-cookie"), ("10.1.2.3", "private-cookie"),
                      ("169.254.169.254", "metadata-cookie"))
    profile, dropped = sessions.import_state(made, imported)
    assert dropped == 2 and profile.version == made.version + 1
    assert profile.origins == ("127.0.0.1", "http://127.0.0.1:8080")
    (stored,) = _objects()
    head = boto3.client("s3").head_object(Bucket=TABLES["FilesBucket"], Key=stored["Key"])
    assert head["ServerSideEncryption"] == "aws:kms" and profiles_aws in head["SSEKMSKeyId"]
    assert stored["Key"].startswith(f"profiles/ada/{made.profile_id}/")
    use = sessions.open_profile(ADA, ProfileRef(id=made.profile_id))
    assert use is not None and use.state is not None
    assert [c["value"] for c in use.state["cookies"]] == ["loopback-cookie"]
    assert "loopback-cookie" not in repr(use) and "t0k3n" not in json.dumps(profile.public())


def test_two_saves_from_one_version_one_wins_and_the_other_is_told(profiles_aws: str) -> None:
    made = store.create(ADA.user_id, "race")
    first = sessions.open_profile(ADA, ProfileRef(id=made.profile_id, save=True))
    second = sessions.open_profile(ADA, ProfileRef(id=made.profile_id, save=True))
    assert first is not None and second is not None
    first.keep(json.loads(sessions.states.encode(_state(("127.0.0.1", "first")))))
    second.keep(json.loads(sessions.states.encode(_state(("127.0.0.1", "second")))))
    assert sessions.finish(first) is None
    warning = sessions.finish(second)
    assert warning is not None and "was not saved" in warning and "second" not in warning
    saved = sessions.open_profile(ADA, ProfileRef(id=made.profile_id))
    assert saved is not None and saved.profile.version == made.version + 1
    assert saved.state is not None and saved.state["cookies"][0]["value"] == "first"
    assert len(_objects()) == 1  # the loser's object is gone


def test_a_save_drops_unreachable_hosts_and_replaces_the_old_object(profiles_aws: str) -> None:
    made = store.create(ADA.user_id, "save")
    sessions.import_state(made, _state(("127.0.0.1", "old")))
    use = sessions.open_profile(ADA, ProfileRef(id=made.profile_id, save=True))
    assert use is not None
    use.keep(json.loads(sessions.states.encode(_state(("127.0.0.1", "new"), ("192.168.0.10", "lan")))))
    assert sessions.finish(use) is None
    after = store.owned(ADA.user_id, made.profile_id)
    assert after.version == made.version + 2 and after.origins == ("127.0.0.1", "http://127.0.0.1:8080")
    (stored,) = _objects()
    assert stored["Key"] == after.state_key


def test_without_save_nothing_is_written(profiles_aws: str) -> None:
    made = store.create(ADA.user_id, "read only")
    use = sessions.open_profile(ADA, ProfileRef(id=made.profile_id))
    assert use is not None
    use.keep({"cookies": [], "origins": []})
    assert use.captured is None and sessions.finish(use) is None
    assert store.owned(ADA.user_id, made.profile_id).version == made.version


def test_the_cache_keys_on_the_profile_version_and_never_on_typed_text() -> None:
    plain = MarkdownRequest.model_validate({"url": "https://example.com/account"})
    with_profile = MarkdownRequest.model_validate({"url": "https://example.com/account",
                                                   "profile": {"id": "prf_x"}})
    keys = {cache.cache_key("ada", "markdown", plain).digest,
            cache.cache_key("ada", "markdown", with_profile, profile_version=1).digest,
            cache.cache_key("ada", "markdown", with_profile, profile_version=2).digest}
    assert len(keys) == 3
    typing = MarkdownRequest.model_validate({
        "url": "https://example.com/login", "actions": [{"type": "type", "selector": "#pw", "text": PASSWORD}]})
    assert cache.holds_secrets(typing) and not cache.holds_secrets(with_profile)


def test_a_context_with_a_profiles_state_is_never_a_spare() -> None:
    assert options_key({"viewport": {"width": 1, "height": 1}}) is not None
    assert options_key({"viewport": {"width": 1, "height": 1}, "storage_state": {"cookies": []}}) is None


def test_a_cookie_the_browser_would_refuse_is_refused_at_import_without_its_value() -> None:
    from pydantic import ValidationError

    cookie = {"name": "session", "value": "s3cr3t-value", "domain": "app.example.com"}
    for bad in ({"sameSite": "None", "secure": False}, {"value": "s3cr3t;value"}):
        with pytest.raises(ValidationError) as refused:
            StorageState.model_validate({"cookies": [{**cookie, **bad}]})
        assert "s3cr3t" not in str(refused.value.errors(include_input=False))


def test_many_sites_are_judged_each_once(profiles_aws: str) -> None:
    state = StorageState.model_validate({"cookies": [
        {"name": f"c{n}", "value": "v", "domain": f"127.0.0.{n % 20 + 1}" if n % 2 else f"10.0.0.{n % 20}"}
        for n in range(60)]})
    kept = sessions.states.reachable_only(state)
    assert kept.dropped == 30 and len(kept.origins) == 10
