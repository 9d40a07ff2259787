"""The client CLI: `webcapture shot|links|extract|markdown|content|pdf URL`, for users of a deployed API."""
