"""`webcapture mcp`: a Model Context Protocol server over stdio, whose tools call the API.

It runs where an agent runs (a laptop, an IDE), with only the client installed: it talks to a deployed or
local API over HTTP (`WEBCAPTURE_API_URL`, `WEBCAPTURE_API_KEY`) through `webcapture_client`, and imports
nothing of the service itself (boto3, Playwright, Powertools). Its tools' input schemas are the request
models' JSON Schemas, made as the OpenAPI document makes them and written into tool_schemas.json by the
repository's `make tool-schemas`, which a test there keeps equal to the models.
"""
