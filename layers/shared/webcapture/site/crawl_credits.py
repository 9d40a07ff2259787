"""A crawl's credits (CONTRACT 18): `limit x cost` reserved when it is submitted, what was not used given
back once when it ends.

The reservation is metering's one conditional write (enough credits, key usable), marked with the crawl's
own id in the key's `chargedRequests`; the settlement adds the unused credits back and removes that mark
in one conditional write that requires the mark, so settling twice (a retried write, two workers both
seeing the crawl end) gives back once. Pages are never charged one by one: what a crawl costs is the pages
it recorded (each canonical URL once, site.crawl_store) times the cost of a page, so a page delivered twice
cannot cost twice.
"""

from __future__ import annotations

from typing import Any

from botocore.exceptions import ClientError

from webcapture.auth.caller import Caller
from webcapture.aws import dynamodb_table
from webcapture.metering import Reservation, reserve
from webcapture.settings import get_settings


def crawl_marker(job_id: str) -> str:
    return f"crawl:{job_id}"


def reserve_crawl(caller: Caller, job_id: str, limit: int, page_cost: int) -> Reservation:
    """Take `limit x page_cost` now (429 USAGE_EXCEEDED when the key has less: nothing is queued then)."""
    return reserve(caller, limit * page_cost, request_id=crawl_marker(job_id))


def unused_credits(reserved: int, pages_crawled: int, page_cost: int) -> int:
    return max(reserved - pages_crawled * page_cost, 0)


def settle_crawl(reservation: Reservation, pages_crawled: int, page_cost: int) -> int:
    """Give back what the crawl did not use, once; the credits given back (0 when settled before)."""
    if reservation.key_hash is None:
        return 0  # a session token: nothing was taken
    unused = unused_credits(reservation.cost, pages_crawled, page_cost) if reservation.charged else 0
    values: dict[str, Any] = {":marker": {reservation.request_id}, ":request": reservation.request_id}
    expression = "DELETE chargedRequests :marker"
    if unused:
        expression = "SET remaining = remaining + :unused " + expression
        values[":unused"] = unused
    try:
        dynamodb_table(get_settings().api_keys_table).update_item(
            Key={"keyHash": reservation.key_hash},
            UpdateExpression=expression,
            ConditionExpression="contains(chargedRequests, :request)",
            ExpressionAttributeValues=values,
        )
    except ClientError as error:
        if error.response["Error"]["Code"] != "ConditionalCheckFailedException":
            raise
        return 0
    reservation.refunded = True
    return unused
