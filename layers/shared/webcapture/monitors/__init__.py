"""Monitors: a page checked on a schedule (docs/monitors.md).

- schedule_expressions: `rate(...)` and EventBridge `cron(...)` expressions, checked and their next run;
- monitor_request: the create and update bodies, validated field by field (422 issues);
- store: the monitors table (one item per monitor under its user, and each user's count of them);
- schedules: one EventBridge Scheduler schedule per monitor, in the stack's schedule group.
"""
