"""Lookup and store of cached answers in the files bucket (`cache/` prefix, its own lifecycle rule).

A lookup is one GET of the entry's deterministic key. Nothing here fails a request: an entry that is
missing, cut short, unreadable or out of reach is a miss, and a store that fails leaves the answer as it
was (both logged and counted). Two identical misses at the same moment both render and both store; S3's
last write wins, so one entry remains.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace
from typing import Any

from botocore.exceptions import ClientError

from webcapture.answer_forms import FileAnswer
from webcapture.aws import s3_client
from webcapture.cache.entries import CorruptEntry, Entry, decode, encode
from webcapture.cache.keys import CacheKey, file_marker_key
from webcapture.envelopes import utc_timestamp
from webcapture.observability import logger, metrics
from webcapture.settings import get_settings

_DAY_MS = 86_400_000


@dataclass(frozen=True)
class CacheHit:
    answer: FileAnswer  # as it was answered, with metadata.cachedAt added to its data
    cached_at: str


def _now_ms() -> int:
    return int(time.time() * 1000)


# What S3 answers for a key that is not there: NoSuchKey, or AccessDenied to a caller without
# s3:ListBucket (not granted: no function needs to list the bucket).
_ABSENT = frozenset({"NoSuchKey", "404", "AccessDenied", "403"})


def _read(object_key: str) -> bytes | None:
    try:
        answer = s3_client().get_object(Bucket=get_settings().files_bucket, Key=object_key)
        body: bytes = answer["Body"].read()
    except ClientError as error:
        if error.response.get("Error", {}).get("Code") in _ABSENT:
            return None
        raise
    return body


def lookup(key: CacheKey, max_age_s: int) -> CacheHit | None:
    """The entry answered at most `max_age_s` seconds ago, or None (a miss)."""
    if max_age_s <= 0:
        return None
    try:
        raw = _read(key.object_key)
        if raw is None:
            return None
        entry = decode(raw)
    except CorruptEntry as error:
        logger.warning("unreadable cache entry; treated as a miss", extra={"key": key.object_key,
                                                                          "error": str(error)})
        metrics.add_metric(name="CacheEntryUnreadable", unit="Count", value=1)
        return None
    except Exception as error:  # S3 out of reach: the request renders instead
        logger.warning("cache lookup failed; treated as a miss", extra={"key": key.object_key,
                                                                       "error": repr(error)})
        metrics.add_metric(name="CacheLookupFailed", unit="Count", value=1)
        return None
    now = _now_ms()
    if now - entry.cached_at_ms > max_age_s * 1000:
        return None
    if entry.file_expires_ms is not None and now >= entry.file_expires_ms:
        return None  # the stored file it points at is gone with the retention period
    metrics.add_metric(name="CacheHit", unit="Count", value=1)
    return CacheHit(answer=_with_cached_at(entry.answer, entry.cached_at), cached_at=entry.cached_at)


def _with_cached_at(answer: FileAnswer, cached_at: str) -> FileAnswer:
    if answer.data is None:
        return answer
    metadata = answer.data.get("metadata")
    metadata = {**metadata, "cachedAt": cached_at} if isinstance(metadata, dict) else {"cachedAt": cached_at}
    return replace(answer, data={**answer.data, "metadata": metadata})


def _file_id(answer: FileAnswer) -> str | None:
    file_id: Any = (answer.data or {}).get("fileId")
    return file_id if isinstance(file_id, str) and file_id else None


def store(key: CacheKey, answer: FileAnswer) -> None:
    """Keep `answer` for later requests with this key. Only successful answers are passed here."""
    now = _now_ms()
    file_id = _file_id(answer)
    file_expires = now + get_settings().file_retention_days * _DAY_MS if file_id else None
    entry = Entry(answer=answer, cached_at=utc_timestamp(), cached_at_ms=now, file_id=file_id,
                  file_expires_ms=file_expires)
    bucket = get_settings().files_bucket
    try:
        s3 = s3_client()
        if file_id is not None:
            # The marker first: an entry that points at a file can always be found from the file.
            s3.put_object(Bucket=bucket, Key=file_marker_key(key.user_id, file_id),
                          Body=key.object_key.encode(), ContentType="text/plain")
        s3.put_object(Bucket=bucket, Key=key.object_key, Body=encode(entry),
                      ContentType="application/octet-stream")
    except Exception as error:
        logger.warning("cache store failed; the answer is not cached", extra={"key": key.object_key,
                                                                             "error": repr(error)})
        metrics.add_metric(name="CacheStoreFailed", unit="Count", value=1)


def drop_file_entries(user_id: str, file_id: str) -> None:
    """Forget the entry that answers with this (deleted) file, if it still does. Failures are logged: the
    entry then answers a permanentUrl that no longer serves the file until it ages out."""
    bucket = get_settings().files_bucket
    marker = file_marker_key(user_id, file_id)
    try:
        s3 = s3_client()
        entry_key = _read(marker)
        if entry_key is None:
            return
        raw = _read(entry_key.decode())
        if raw is not None:
            try:
                points_here = decode(raw).file_id == file_id
            except CorruptEntry:
                points_here = True  # unreadable: no use to anyone
            if points_here:
                s3.delete_object(Bucket=bucket, Key=entry_key.decode())
        s3.delete_object(Bucket=bucket, Key=marker)
    except Exception as error:
        logger.warning("could not drop a deleted file's cache entry", extra={"fileId": file_id,
                                                                            "error": repr(error)})
        metrics.add_metric(name="CacheDropFailed", unit="Count", value=1)
