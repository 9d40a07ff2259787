"""Request bodies of the profile routes, and the `profile` field every browser endpoint takes
(docs/profiles.md).

A storage state is Playwright's own shape (`context.storage_state()`): cookies, and per origin its
localStorage. Its values are the caller's secrets: no validation message here quotes one.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator
from pydantic_core import PydanticCustomError

MAX_PROFILE_NAME = 100
MAX_PROFILE_ID = 100
# A storage state as sent to PUT /v1/profiles/{id}/state, and as a capture leaves it to be saved.
MAX_STATE_BYTES = 1024 * 1024


class _Strict(BaseModel):
    model_config = ConfigDict(
        strict=True, extra="ignore", populate_by_name=True, frozen=True, defer_build=True
    )


ProfileName = Annotated[str, Field(min_length=1, max_length=MAX_PROFILE_NAME)]


class ProfileRef(_Strict):
    """`profile` on a browser request: the page's fresh context starts from this profile's state."""

    id: Annotated[str, Field(min_length=1, max_length=MAX_PROFILE_ID,
                             description="A profile of the caller's (POST /v1/profiles)")]
    save: Annotated[bool, Field(description=(
        "After the output and the actions succeed, the context's cookies and localStorage replace the "
        "profile's (only if nobody saved it meanwhile; otherwise the answer carries a warning)"))] = False


class ProfileCreate(_Strict):
    name: ProfileName


class ProfileRename(_Strict):
    name: ProfileName


class StateCookie(_Strict):
    name: Annotated[str, Field(min_length=1, max_length=4096)]
    value: Annotated[str, Field(max_length=4096)]
    domain: Annotated[str, Field(min_length=1, max_length=253)]
    path: Annotated[str, Field(min_length=1, max_length=1024)] = "/"
    # Unix seconds; -1 is a session cookie, as Playwright writes it.
    expires: float = -1
    httpOnly: bool = False
    secure: bool = False
    sameSite: Literal["Strict", "Lax", "None"] = "Lax"

    @model_validator(mode="after")
    def _as_chromium_accepts(self) -> StateCookie:
        # A cookie the browser would refuse would fail every capture made with the profile: refused here,
        # by field, never quoting its value.
        for name, text in (("name", self.name), ("value", self.value), ("path", self.path)):
            if any(ord(ch) < 0x20 or ch in ";\x7f" for ch in text):
                message = f"A cookie {name} cannot contain control characters or ';'"
                raise PydanticCustomError("custom", message, {"field": name})
        if self.sameSite == "None" and not self.secure:
            raise PydanticCustomError("custom", "sameSite None needs secure: true", {"field": "secure"})
        return self


class StorageEntry(_Strict):
    name: str
    value: str


class OriginStorage(_Strict):
    origin: Annotated[str, Field(min_length=1, max_length=2048,
                                 description="scheme://host[:port], as the browser names an origin")]
    localStorage: list[StorageEntry] = Field(default_factory=list)


class StorageState(_Strict):
    """Playwright's storage state (`context.storage_state()`), at most 1 MB."""

    cookies: list[StateCookie] = Field(default_factory=list)
    origins: list[OriginStorage] = Field(default_factory=list)
