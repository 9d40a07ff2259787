"""template.yaml's operations (for the teams who deploy it): every function has its errors, throttles and
near-Timeout alarms, every queue its oldest-message alarm, the dead-letter queue and the API's 5xx rate
theirs, all to the AlarmTopicArn parameter, and one dashboard. Read from the template, no build."""

from __future__ import annotations

from typing import Any

import pytest

from localapi.cfn_template import load_template

TEMPLATE = load_template()
RESOURCES: dict[str, dict[str, Any]] = TEMPLATE["Resources"]
ALARMS = [r["Properties"] for r in RESOURCES.values() if r["Type"] == "AWS::CloudWatch::Alarm"]
FUNCTIONS = [n for n, r in RESOURCES.items() if r["Type"] == "AWS::Serverless::Function"]
QUEUES = [n for n, r in RESOURCES.items() if r["Type"] == "AWS::SQS::Queue"]


def _timeout(function: str) -> int:
    return int(RESOURCES[function]["Properties"].get("Timeout", TEMPLATE["Globals"]["Function"]["Timeout"]))


def _alarms_on(metric: str, dimension: str, value: Any) -> list[dict[str, Any]]:
    return [a for a in ALARMS if a["MetricName"] == metric
            and {"Name": dimension, "Value": value} in a["Dimensions"]]


def _dead_letter_queues() -> set[str]:
    return {r["Properties"]["RedrivePolicy"]["deadLetterTargetArn"]["Fn::GetAtt"][0]
            for r in RESOURCES.values()
            if r["Type"] == "AWS::SQS::Queue" and "RedrivePolicy" in r["Properties"]}


@pytest.mark.parametrize("function", FUNCTIONS)
def test_every_function_has_errors_throttles_and_duration_alarms(function: str) -> None:
    for metric in ("Errors", "Throttles"):
        assert len(_alarms_on(metric, "FunctionName", {"Ref": function})) == 1, (function, metric)
    (duration,) = _alarms_on("Duration", "FunctionName", {"Ref": function})
    assert 0.8 * _timeout(function) * 1000 <= duration["Threshold"] < _timeout(function) * 1000


@pytest.mark.parametrize("queue", QUEUES)
def test_every_queue_has_its_alarm(queue: str) -> None:
    name = {"Fn::GetAtt": [queue, "QueueName"]}
    if queue in _dead_letter_queues():
        (alarm,) = _alarms_on("ApproximateNumberOfMessagesVisible", "QueueName", name)
        assert alarm["Threshold"] == 0 and alarm["ComparisonOperator"] == "GreaterThanThreshold"
    else:
        assert len(_alarms_on("ApproximateAgeOfOldestMessage", "QueueName", name)) == 1


def test_the_api_5xx_rate_has_an_alarm() -> None:
    (alarm,) = [a for a in ALARMS if a["Namespace"] == "AWS/ApiGateway" and a["MetricName"] == "5XXError"]
    assert alarm["Statistic"] == "Average"


def test_every_alarm_notifies_the_topic_given_as_a_parameter() -> None:
    assert TEMPLATE["Parameters"]["AlarmTopicArn"]["Type"] == "String"
    expected = {"Fn::If": ["HasAlarmTopic", [{"Ref": "AlarmTopicArn"}], {"Ref": "AWS::NoValue"}]}
    assert ALARMS and all(a["AlarmActions"] == expected for a in ALARMS)


def test_one_dashboard() -> None:
    assert [r["Type"] for r in RESOURCES.values()].count("AWS::CloudWatch::Dashboard") == 1
