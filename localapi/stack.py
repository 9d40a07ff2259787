"""The whole local stack: moto's server, the template's resources, the function containers, the gateway."""

from __future__ import annotations

import logging
import os
import threading
from dataclasses import dataclass, field
from typing import Any

from werkzeug.serving import BaseWSGIServer, make_server

from localapi.aws_emulator import AwsEmulator
from localapi.cfn_template import Resolver, load_template, read_api
from localapi.gateway import LocalGateway
from localapi.lambda_runtime import FunctionContainer

LOCAL_BUCKET = "webcapture-files-local"


@dataclass
class LocalStack:
    host: str = "127.0.0.1"
    port: int = 3000
    aws_port: int = 0
    env_overrides: dict[str, str] = field(default_factory=dict)
    aws: AwsEmulator = field(init=False)
    _server: BaseWSGIServer | None = None
    _thread: threading.Thread | None = None
    _containers: dict[str, FunctionContainer] = field(default_factory=dict)

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    def start(self) -> None:
        logging.getLogger("werkzeug").setLevel(logging.WARNING)  # one line per request is noise here
        self.aws = AwsEmulator(host=self.host, port=self.aws_port)
        self.aws.start()
        template = load_template()
        resolver = self._resolver(template)
        self.aws.create_resources(template, resolver)
        self.aws.allow_public_reads(LOCAL_BUCKET, "screenshots/", "pdfs/")
        api = read_api(template, resolver)
        # Functions run in this process with the template's variables, except where the developer's own
        # environment sets one (as `sam local --env-vars` would), then the stack's local endpoints.
        # No two functions need different values for one name.
        for spec in api.functions.values():
            for name, value in spec.environment.items():
                os.environ.setdefault(name, value)
        os.environ.update(self._local_environment())
        os.environ.update(self.env_overrides)
        self._containers = {name: FunctionContainer(spec) for name, spec in api.functions.items()}
        self._server = make_server(self.host, self.port, LocalGateway(api, self._containers), threaded=True)
        self.port = self._server.server_port
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True, name="local-api")
        self._thread.start()

    def _resolver(self, template: dict[str, Any]) -> Resolver:
        names = {}
        for logical_id, resource in template.get("Resources", {}).items():
            if resource["Type"] == "AWS::DynamoDB::Table":
                names[logical_id] = f"webcapture-local-{logical_id}"
            elif resource["Type"] == "AWS::S3::Bucket":
                names[logical_id] = LOCAL_BUCKET
        files_domain = f"{self.host}:{self.aws.port}/{LOCAL_BUCKET}"
        attributes = {"FilesDistribution.DomainName": files_domain}
        return Resolver(template, physical_names=names, attributes=attributes)

    def _local_environment(self) -> dict[str, str]:
        endpoint = self.aws.endpoint
        return {
            "AWS_ENDPOINT_URL_DYNAMODB": endpoint,
            "AWS_ENDPOINT_URL_S3": endpoint,
            # moto serves objects path-style without auth: the local stand-in for CloudFront.
            "PUBLIC_BASE_URL": f"{endpoint}/{LOCAL_BUCKET}",
            "AWS_DEFAULT_REGION": "us-east-1",
            "POWERTOOLS_TRACE_DISABLED": "true",
            "POWERTOOLS_METRICS_DISABLED": os.environ.get("POWERTOOLS_METRICS_DISABLED", "false"),
        }

    def function_environment(self) -> dict[str, str]:
        """What the functions see for their AWS resources (tests point their own clients at the same)."""
        names = ("API_KEYS_TABLE", "FILES_TABLE", "FILES_BUCKET", "PUBLIC_BASE_URL",
                 "AWS_ENDPOINT_URL_DYNAMODB", "AWS_ENDPOINT_URL_S3")
        return {name: os.environ[name] for name in names}

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server = None
        for container in self._containers.values():
            container.shutdown()
        self.aws.stop()
