"""localapi/cfn_foreach.py expands Fn::ForEach as the AWS::LanguageExtensions transform does, into the forms
the rest of the template writes directly."""

from __future__ import annotations

from localapi.cfn_foreach import expand_for_each


def test_a_loop_writes_one_resource_per_item_with_its_references_resolved() -> None:
    template = {
        "Mappings": {"Limits": {"A": {"Ms": 900}, "B": {"Ms": 1800}}},
        "Resources": {
            "Kept": {"Type": "AWS::SQS::Queue", "Properties": {"Name": {"Fn::Sub": "plain"}}},
            "Fn::ForEach::Alarms": ["Name", ["A", "B"], {"${Name}Alarm": {
                "Type": "AWS::CloudWatch::Alarm",
                "Properties": {
                    "Description": {"Fn::Sub": "${${Name}Function} is slow"},
                    "Function": {"Ref": {"Fn::Sub": "${Name}Function"}},
                    "Queue": {"Fn::GetAtt": [{"Fn::Sub": "${Name}Queue"}, "QueueName"]},
                    "Threshold": {"Fn::FindInMap": ["Limits", "${Name}", "Ms"]},
                    "Item": {"Ref": "Name"},
                }}}],
        },
    }
    resources = expand_for_each(template)["Resources"]
    assert list(resources) == ["Kept", "AAlarm", "BAlarm"]
    assert resources["Kept"]["Properties"]["Name"] == {"Fn::Sub": "plain"}  # outside a loop: untouched
    assert resources["BAlarm"]["Properties"] == {
        "Description": {"Fn::Sub": "${BFunction} is slow"}, "Function": {"Ref": "BFunction"},
        "Queue": {"Fn::GetAtt": ["BQueue", "QueueName"]}, "Threshold": 1800, "Item": "B"}


def test_nested_loops_and_the_alphanumeric_form() -> None:
    template = {"Resources": {"Fn::ForEach::Outer": ["Env", ["dev", "pr-od"], {
        "Fn::ForEach::Inner": ["Kind", ["Errors", "Throttles"], {"&{Env}${Kind}Alarm": {
            "Type": "AWS::CloudWatch::Alarm", "Properties": {"Env": "${Env}"}}}]}]}}
    resources = expand_for_each(template)["Resources"]
    assert sorted(resources) == ["devErrorsAlarm", "devThrottlesAlarm", "prodErrorsAlarm", "prodThrottlesAlarm"]
    assert resources["prodErrorsAlarm"]["Properties"] == {"Env": "pr-od"}
