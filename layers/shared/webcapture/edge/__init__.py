"""The HTTP edge of every function: middleware (request id, error envelopes, counting what failed before
metering), the Lambda entry and its SQS dispatch, what a request carries, and the answers.

Handlers import from here and from the use cases (operations/, jobs/, site/); nothing here imports them.
"""
