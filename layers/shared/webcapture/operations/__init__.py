"""One module per endpoint: the work behind it, from a validated request to the response's `data`."""
