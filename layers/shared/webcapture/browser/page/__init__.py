"""Preparing a page: its context, the page-control fields, navigation and the waits, the spare context."""
