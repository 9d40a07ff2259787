"""Lambda's event source mapping for SQS, played over moto's SQS: the path a job's items take locally.

For each SQS event of a function (template.yaml), one poller long-polls the queue for at most `BatchSize`
messages at a time and invokes the function with each batch as one SQS event, up to `MaximumConcurrency`
invocations at once (and no more than the function's containers). It deletes the messages each handled:
all of them after a success, all but the `batchItemFailures` it reported (ReportBatchItemFailures), none
when the invocation failed (the function raised, its container died, it ran past its Timeout). What is
not deleted comes back after the queue's visibility timeout, and after the queue's maxReceiveCount
moto's SQS moves it to the dead-letter queue.
"""

from __future__ import annotations

import contextlib
import hashlib
import threading
import time
from dataclasses import dataclass, field
from typing import Any

from botocore.exceptions import BotoCoreError, ClientError

from localapi.cfn_template import QueueSource
from localapi.lambda_runtime import ContainerDied, FunctionContainers, FunctionError, InvocationTimeout

_WAIT_S = 1  # long poll: short enough to stop promptly


@dataclass
class QueuePoller:
    source: QueueSource
    pool: FunctionContainers
    sqs: Any
    queue_url: str
    queue_arn: str
    _stopping: threading.Event = field(default_factory=threading.Event)
    _threads: list[threading.Thread] = field(default_factory=list)
    _slots: threading.BoundedSemaphore = field(default_factory=lambda: threading.BoundedSemaphore(1))

    def start(self) -> None:
        # One thread long-polls; each batch it receives runs on a thread of its own, at most `concurrency`
        # at once. A long-polling thread per concurrent invocation would cost the idle emulator most of a
        # core (thirty receives a second for ten queues at concurrency three), on the cores the functions
        # use.
        self._slots = threading.BoundedSemaphore(self.concurrency)
        thread = threading.Thread(target=self._run, daemon=True, name=f"sqs-{self.source.function}")
        thread.start()
        self._threads.append(thread)

    @property
    def concurrency(self) -> int:
        return max(1, min(self.source.maximum_concurrency, self.pool.max_containers))

    def stop(self) -> None:
        self.signal_stop()
        self.join()

    def signal_stop(self) -> None:
        """No new receive after the current one: with join(), so a stack's pollers all end within one long
        poll rather than one long poll each."""
        self._stopping.set()

    def join(self) -> None:
        for thread in list(self._threads):
            thread.join(timeout=_WAIT_S + 2)

    def _run(self) -> None:
        while not self._stopping.is_set():
            if not self._slots.acquire(timeout=_WAIT_S):
                continue  # every invocation still running: look at the stop flag, then wait again
            try:
                answer = self.sqs.receive_message(
                    QueueUrl=self.queue_url,
                    MaxNumberOfMessages=min(self.source.batch_size, 10),
                    WaitTimeSeconds=_WAIT_S,
                    AttributeNames=["All"],
                    MessageAttributeNames=["All"],
                )
            except (BotoCoreError, ClientError):
                self._slots.release()
                self._stopping.wait(1.0)  # moto stopped or restarting (the fault tests): try again
                continue
            messages = answer.get("Messages", [])
            if not messages or self._stopping.is_set():
                self._slots.release()
                continue
            runner = threading.Thread(target=self._deliver_then_free, args=(messages,), daemon=True,
                                      name=f"sqs-{self.source.function}-batch")
            self._threads[:] = [thread for thread in self._threads if thread.is_alive()]
            self._threads.append(runner)
            runner.start()

    def _deliver_then_free(self, messages: list[dict[str, Any]]) -> None:
        try:
            self._deliver(messages)
        finally:
            self._slots.release()

    def _deliver(self, messages: list[dict[str, Any]]) -> None:
        event = {"Records": [self._record(m) for m in messages]}
        try:
            result = self.pool.invoke(event)
        except (ContainerDied, FunctionError, InvocationTimeout):
            return  # the whole batch comes back after the visibility timeout
        failed: set[str] = set()
        if self.source.partial_failures and isinstance(result, dict):
            failures = result.get("batchItemFailures") or []
            failed = {str(f.get("itemIdentifier")) for f in failures if isinstance(f, dict)}
            if not failed <= {m["MessageId"] for m in messages}:
                return  # Lambda treats a reply naming unknown messages as the whole batch failed
        done = [m for m in messages if m["MessageId"] not in failed]
        if not done:
            return
        entries = [{"Id": str(i), "ReceiptHandle": m["ReceiptHandle"]} for i, m in enumerate(done)]
        # Not deleted: delivered again later; the function's own claims keep it to one run.
        with contextlib.suppress(BotoCoreError, ClientError):
            self.sqs.delete_message_batch(QueueUrl=self.queue_url, Entries=entries)

    def _record(self, message: dict[str, Any]) -> dict[str, Any]:
        body = message["Body"]
        return {
            "messageId": message["MessageId"],
            "receiptHandle": message["ReceiptHandle"],
            "body": body,
            "attributes": message.get("Attributes", {}),
            "messageAttributes": message.get("MessageAttributes", {}),
            "md5OfBody": message.get("MD5OfBody") or hashlib.md5(body.encode()).hexdigest(),  # noqa: S324
            "eventSource": "aws:sqs",
            "eventSourceARN": self.queue_arn,
            "awsRegion": "us-east-1",
        }


def wait_idle(pollers: list[QueuePoller], timeout_s: float) -> bool:
    """Whether every polled queue is empty (nothing visible, in flight or delayed) within timeout_s."""
    give_up = time.monotonic() + timeout_s
    while time.monotonic() < give_up:
        busy = False
        for poller in pollers:
            counts = poller.sqs.get_queue_attributes(QueueUrl=poller.queue_url, AttributeNames=["All"])
            attrs = counts["Attributes"]
            busy = busy or any(
                int(attrs.get(k, 0))
                for k in (
                    "ApproximateNumberOfMessages",
                    "ApproximateNumberOfMessagesNotVisible",
                    "ApproximateNumberOfMessagesDelayed",
                )
            )
        if not busy:
            return True
        time.sleep(0.2)
    return False
