"""The whole local stack: moto's server, the template's resources, the function containers, the gateway."""

from __future__ import annotations

import logging
import os
import threading
from dataclasses import dataclass, field
from typing import Any

from werkzeug.serving import BaseWSGIServer, make_server

from localapi.aws_emulator import LOCAL_REGION, AwsEmulator, local_queue_name, local_schedule_group
from localapi.cfn_template import Resolver, load_template, read_api, read_queue_sources
from localapi.gateway import LocalGateway
from localapi.lambda_runtime import DEFAULT_MAX_CONTAINERS, FunctionContainers, reap_orphans
from localapi.ports import ensure_free
from localapi.queue_pollers import QueuePoller
from localapi.scheduler_player import SchedulerPlayer
from webcapture.browser.launch import processes
from webcapture.settings import Settings

LOCAL_BUCKET = "webcapture-files-local"
LOCAL_ACCOUNT = "123456789012"  # moto's default account


@dataclass
class LocalStack:
    host: str = "127.0.0.1"
    port: int = 3000
    aws_port: int = 0
    aws_endpoint: str | None = None  # an AWS emulator already running there instead of our own moto
    env_overrides: dict[str, str] = field(default_factory=dict)
    max_containers: int = DEFAULT_MAX_CONTAINERS  # per function, like Lambda's concurrency
    # One container per function started (and its init done) before serving: for every function (None) or
    # for these logical IDs only (a test's stack warms what its first requests use, not six Chromiums).
    prewarm: tuple[str, ...] | None = None
    # Template parameters set for this stack (a short JobsVisibilityTimeout for the fault tests, say).
    parameters: dict[str, str] = field(default_factory=dict)
    schedule_speed: float = 1.0  # schedules run this many times as fast (localapi/scheduler_player.py)
    aws: AwsEmulator = field(init=False)
    _server: BaseWSGIServer | None = None
    _thread: threading.Thread | None = None
    _containers: dict[str, FunctionContainers] = field(default_factory=dict)
    _pollers: list[QueuePoller] = field(default_factory=list)
    _player: SchedulerPlayer | None = None
    _stopping: threading.Event = field(default_factory=threading.Event)

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    def start(self) -> None:
        """Everything, or PortTaken (before anything has started) when a port is held by another program."""
        ensure_free(self.host, self.port, "The local API", "--port (make dev PORT=...)")
        if self.aws_endpoint is None:
            ensure_free(self.host, self.aws_port, "The AWS emulator (moto)",
                        "--aws-port (make dev AWS_PORT=...)")
        template = load_template()
        functions = {name for name, resource in template["Resources"].items()
                     if resource["Type"] == "AWS::Serverless::Function"}
        unknown = set(self.prewarm or ()) - functions
        if unknown:
            raise ValueError(f"no function {', '.join(sorted(unknown))} in template.yaml to prewarm "
                             f"(one of {', '.join(sorted(functions))})")
        logging.getLogger("werkzeug").setLevel(logging.WARNING)  # one line per request is noise here
        self.aws = AwsEmulator(host=self.host, port=self.aws_port, external_endpoint=self.aws_endpoint)
        self.aws.start()
        resolver = self._resolver(template, self.aws.create_keys(template))
        self.aws.create_resources(template, resolver)
        self.aws.allow_public_reads(LOCAL_BUCKET, "screenshots/", "pdfs/")
        api = read_api(template, resolver)
        # Function containers (processes) start with this environment: the template's variables, except
        # where the developer's own environment sets one (as `sam local --env-vars` would), then the
        # stack's local endpoints.
        # No two functions need different values for one name.
        for spec in api.functions.values():
            for name, value in spec.environment.items():
                os.environ.setdefault(name, value)
        os.environ.update(self._local_environment())
        os.environ.update(self.env_overrides)
        self._containers = {name: FunctionContainers(spec, self.max_containers)
                            for name, spec in api.functions.items()}
        warmed = [pool for name, pool in self._containers.items()
                  if self.prewarm is None or name in self.prewarm]
        if warmed:
            # The functions' first containers at once: the machine's cores are busy for a few seconds
            # here instead of on the first request of each function.
            warmers = [threading.Thread(target=pool.prewarm) for pool in warmed]
            for warmer in warmers:
                warmer.start()
            for warmer in warmers:
                warmer.join()
        # The functions derive their deadline from the same integration timeout the gateway keeps to.
        gateway_timeout_s = Settings.from_env().gateway_timeout_ms / 1000
        gateway = LocalGateway(api, self._containers, timeout_s=gateway_timeout_s)
        self._server = make_server(self.host, self.port, gateway, threaded=True)
        self.port = self._server.server_port
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True, name="local-api")
        self._thread.start()
        # Lambda's SQS event source mappings: job items and webhook events reach their functions.
        sqs = self.aws.client("sqs")
        for source in read_queue_sources(template, resolver):
            poller = QueuePoller(source, self._containers[source.function], sqs,
                                 queue_url=resolver.physical_names[source.queue],
                                 queue_arn=resolver.attributes[f"{source.queue}.Arn"])
            poller.start()
            self._pollers.append(poller)
        # EventBridge Scheduler's part: moto keeps the schedules, this fires them on time.
        groups = tuple(local_schedule_group(name) for name, resource in template["Resources"].items()
                       if resource["Type"] == "AWS::Scheduler::ScheduleGroup")
        self._player = SchedulerPlayer(self.aws.client("scheduler"), sqs, groups, speed=self.schedule_speed)
        self._player.start()
        # What a killed container leaves (its Chromium, its driver) is orphaned; as their subreaper this
        # process reaps them, or they would stay zombies on a PID 1 that does not reap.
        processes.become_subreaper()
        threading.Thread(target=self._reap_orphans, daemon=True, name="orphan-reaper").start()

    def _reap_orphans(self) -> None:
        while not self._stopping.wait(1.0):
            keep = set().union(*(pool.known_pids() for pool in self._containers.values()))
            reap_orphans(keep)

    def _resolver(self, template: dict[str, Any], keys: dict[str, tuple[str, str]]) -> Resolver:
        names = {logical_id: key_id for logical_id, (key_id, _) in keys.items()}
        for logical_id, resource in template.get("Resources", {}).items():
            if resource["Type"] == "AWS::DynamoDB::Table":
                names[logical_id] = f"webcapture-local-{logical_id}"
            elif resource["Type"] == "AWS::S3::Bucket":
                names[logical_id] = LOCAL_BUCKET
            elif resource["Type"] == "AWS::CloudFront::Distribution":
                names[logical_id] = ""  # none locally: moto serves the files, nothing to invalidate
            elif resource["Type"] == "AWS::Scheduler::ScheduleGroup":
                names[logical_id] = local_schedule_group(logical_id)
        files_domain = f"{self.aws.endpoint.split('://', 1)[-1]}/{LOCAL_BUCKET}"
        attributes = {"FilesDistribution.DomainName": files_domain,
                      **{f"{logical_id}.Arn": arn for logical_id, (_, arn) in keys.items()}}
        for logical_id, resource in template.get("Resources", {}).items():
            if resource["Type"] == "AWS::SQS::Queue":  # Ref is the queue's URL, Arn its ARN
                queue = local_queue_name(logical_id)
                names[logical_id] = f"{self.aws.endpoint}/{LOCAL_ACCOUNT}/{queue}"
                attributes[f"{logical_id}.Arn"] = f"arn:aws:sqs:{LOCAL_REGION}:{LOCAL_ACCOUNT}:{queue}"
            elif resource["Type"] == "AWS::IAM::Role":  # moto's scheduler takes any role ARN
                role = f"webcapture-local-{logical_id}"
                attributes[f"{logical_id}.Arn"] = f"arn:aws:iam::{LOCAL_ACCOUNT}:role/{role}"
        return Resolver(template, physical_names=names, attributes=attributes, parameters=self.parameters)

    def _local_environment(self) -> dict[str, str]:
        endpoint = self.aws.endpoint
        return {
            "AWS_ENDPOINT_URL_DYNAMODB": endpoint,
            "AWS_ENDPOINT_URL_S3": endpoint,
            "AWS_ENDPOINT_URL_SQS": endpoint,
            "AWS_ENDPOINT_URL_KMS": endpoint,
            "AWS_ENDPOINT_URL_SCHEDULER": endpoint,
            # moto serves objects path-style without auth: the local stand-in for CloudFront.
            "PUBLIC_BASE_URL": f"{endpoint}/{LOCAL_BUCKET}",
            "AWS_DEFAULT_REGION": "us-east-1",
            "POWERTOOLS_TRACE_DISABLED": "true",
            "POWERTOOLS_METRICS_DISABLED": os.environ.get("POWERTOOLS_METRICS_DISABLED", "false"),
        }

    def function_environment(self) -> dict[str, str]:
        """What the functions see for their AWS resources (tests point their own clients at the same)."""
        names = ("API_KEYS_TABLE", "FILES_TABLE", "SIGNING_SECRETS_TABLE", "FILES_BUCKET", "PUBLIC_BASE_URL",
                 "AWS_ENDPOINT_URL_DYNAMODB", "AWS_ENDPOINT_URL_S3", "AWS_ENDPOINT_URL_SQS", "JOBS_TABLE",
                 "WEBHOOKS_QUEUE_URL", "PROFILES_TABLE", "PROFILES_KMS_KEY_ID", "MONITORS_TABLE",
                 "MONITORS_SCHEDULE_GROUP", "AWS_ENDPOINT_URL_SCHEDULER")
        queues = {name: value for name, value in os.environ.items()
                  if name.startswith("JOBS_QUEUE_") and name.endswith("_URL")}
        return {**{name: os.environ[name] for name in names}, **queues}

    def stop(self) -> None:
        self._stopping.set()
        if self._player is not None:
            self._player.stop()
        for poller in self._pollers:
            poller.signal_stop()
        for poller in self._pollers:
            poller.join()
        if self._server is not None:
            self._server.shutdown()
            self._server = None
        # Every function's containers at once: each waits for its processes (a browser's close takes a while).
        stoppers = [threading.Thread(target=pool.shutdown) for pool in self._containers.values()]
        for stopper in stoppers:
            stopper.start()
        for stopper in stoppers:
            stopper.join()
        self.aws.stop()
