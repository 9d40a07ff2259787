"""moto's server on loopback, with the tables and bucket created from the template's own definitions."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import boto3
from moto.server import ThreadedMotoServer

from localapi.cfn_template import Resolver
from localapi.moto_atomicity import make_dynamodb_writes_atomic
from localapi.moto_conditions import make_conditions_parse_once
from localapi.moto_dynamodb_answers import make_item_answers_plain_json
from localapi.moto_handler_parses import make_handler_parses_once
from localapi.moto_item_size import make_item_size_summed_once
from localapi.moto_projections import make_projections_read_only_their_attributes
from localapi.moto_queries import make_queries_read_their_partition
from localapi.moto_routing import make_backend_lookup_once_per_host
from localapi.moto_sqs_clock import make_sqs_message_clock_cheap

LOCAL_REGION = "us-east-1"
_TABLE_KEYS = ("AttributeDefinitions", "KeySchema", "GlobalSecondaryIndexes", "LocalSecondaryIndexes",
               "BillingMode")
_FAKE_KEY = "local"  # moto checks no credentials; fixed fake ones keep boto3 from looking for real ones


@dataclass
class AwsEmulator:
    host: str = "127.0.0.1"
    port: int = 0
    # An emulator someone else runs (the fault tests stop and restart theirs): used as it is, never started.
    external_endpoint: str | None = None
    _server: ThreadedMotoServer | None = None

    @property
    def endpoint(self) -> str:
        return self.external_endpoint or f"http://{self.host}:{self.port}"

    def start(self) -> None:
        # Credentials are never checked by moto; fixed fake ones keep boto3 from looking for real ones.
        os.environ.setdefault("AWS_ACCESS_KEY_ID", "local")
        os.environ.setdefault("AWS_SECRET_ACCESS_KEY", "local")
        os.environ.setdefault("AWS_DEFAULT_REGION", LOCAL_REGION)
        if self.external_endpoint is not None:
            self.port = urlsplit(self.external_endpoint).port or 80
            return
        make_dynamodb_writes_atomic()
        make_queries_read_their_partition()
        make_conditions_parse_once()
        make_handler_parses_once()
        make_item_size_summed_once()
        make_projections_read_only_their_attributes()
        make_item_answers_plain_json()
        make_sqs_message_clock_cheap()
        make_backend_lookup_once_per_host()
        self._server = ThreadedMotoServer(ip_address=self.host, port=self.port, verbose=False)
        self._server.start()
        self.port = self._server.get_host_and_port()[1]

    def stop(self) -> None:
        if self._server is not None:
            self._server.stop()
            self._server = None

    def _client(self, service: str) -> Any:
        session = boto3.session.Session(region_name=LOCAL_REGION, aws_access_key_id=_FAKE_KEY,
                                        aws_secret_access_key=_FAKE_KEY)
        return session.client(service, endpoint_url=self.endpoint)  # type: ignore[call-overload]

    def create_resources(self, template: dict[str, Any], resolver: Resolver) -> None:
        create_template_resources(self._client("dynamodb"), self._client("s3"), template, resolver)
        create_template_queues(self._client("sqs"), template, resolver)
        create_template_schedule_groups(self._client("scheduler"), template)

    def create_keys(self, template: dict[str, Any]) -> dict[str, tuple[str, str]]:
        """A KMS key for each of the template's keys: logical id -> (key id, ARN), what Ref and GetAtt
        name. Their policies are IAM's business, which the emulator does not play."""
        kms = self._client("kms")
        made = {}
        for logical_id, resource in template.get("Resources", {}).items():
            if resource["Type"] == "AWS::KMS::Key":
                key = kms.create_key(Description=f"webcapture-local {logical_id}")["KeyMetadata"]
                made[logical_id] = (key["KeyId"], key["Arn"])
        return made

    def client(self, service: str) -> Any:
        return self._client(service)

    def allow_public_reads(self, bucket: str, *prefixes: str) -> None:
        """What CloudFront's read grant is deployed: anyone may GET objects under the prefixes."""
        policy = {"Version": "2012-10-17", "Statement": [{
            "Effect": "Allow", "Principal": "*", "Action": "s3:GetObject",
            "Resource": [f"arn:aws:s3:::{bucket}/{prefix}*" for prefix in prefixes]}]}
        self._client("s3").put_bucket_policy(Bucket=bucket, Policy=json.dumps(policy))


def create_template_resources(dynamodb: Any, s3: Any, template: dict[str, Any], resolver: Resolver) -> None:
    """Every DynamoDB table and S3 bucket of the template, named by resolver.physical_names."""
    for logical_id, resource in template.get("Resources", {}).items():
        props = resource.get("Properties", {})
        name = resolver.physical_names.get(logical_id, logical_id)
        if resource["Type"] == "AWS::DynamoDB::Table":
            spec = {k: resolver.resolve(props[k]) for k in _TABLE_KEYS if k in props}
            dynamodb.create_table(TableName=name, **spec)
            ttl = props.get("TimeToLiveSpecification")
            if ttl:
                dynamodb.update_time_to_live(TableName=name, TimeToLiveSpecification=ttl)
        elif resource["Type"] == "AWS::S3::Bucket":
            s3.create_bucket(Bucket=name)


_QUEUE_ATTRIBUTES = ("VisibilityTimeout", "MessageRetentionPeriod", "DelaySeconds",
                     "ReceiveMessageWaitTimeSeconds")


def local_queue_name(logical_id: str) -> str:
    return f"webcapture-local-{logical_id}"


def local_schedule_group(logical_id: str) -> str:
    return f"webcapture-local-{logical_id}"


def create_template_schedule_groups(scheduler: Any, template: dict[str, Any]) -> None:
    """Every EventBridge Scheduler group of the template (monitors' schedules live in one)."""
    for logical_id, resource in template.get("Resources", {}).items():
        if resource["Type"] == "AWS::Scheduler::ScheduleGroup":
            scheduler.create_schedule_group(Name=local_schedule_group(logical_id))


def create_template_queues(sqs: Any, template: dict[str, Any], resolver: Resolver) -> None:
    """Every SQS queue of the template with its attributes and redrive policy; dead-letter queues (the ones
    no RedrivePolicy needs) first, so the others can name them."""
    queues = {name: res.get("Properties", {}) for name, res in template.get("Resources", {}).items()
              if res["Type"] == "AWS::SQS::Queue"}
    for name in sorted(queues, key=lambda n: "RedrivePolicy" in queues[n]):
        props = queues[name]
        attributes = {k: str(resolver.resolve(props[k])) for k in _QUEUE_ATTRIBUTES if k in props}
        if "RedrivePolicy" in props:
            policy = resolver.resolve(props["RedrivePolicy"])
            attributes["RedrivePolicy"] = json.dumps({"deadLetterTargetArn": policy["deadLetterTargetArn"],
                                                      "maxReceiveCount": int(policy["maxReceiveCount"])})
        sqs.create_queue(QueueName=local_queue_name(name), Attributes=attributes)
