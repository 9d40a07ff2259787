"""Monitors: pages watched on a schedule, and what changed between checks."""
