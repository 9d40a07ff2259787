"""Addresses the egress tests use, shared by fixtures and tests (kept apart from the fixture plugin so that
importing them does not import the plugin before pytest can rewrite its asserts)."""

from __future__ import annotations

from dataclasses import dataclass

from tests.support.egress_resolvers import SpyConnector
from webcapture.egress import EgressProxy

PUBLIC = "127.0.0.2"  # the public fixture: allowed only by the test allow-list
CANARY = "127.0.0.1"  # the internal canary
EXAMPLE_PUBLIC = "93.184.216.34"  # a real public address: only ever handed to the spy, which won't connect


@dataclass
class ProxyUnderTest:
    url: str
    spy: SpyConnector
    proxy: EgressProxy
