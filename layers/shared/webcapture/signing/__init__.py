"""Signed links (docs/cache-and-signed-links.md#cache-and-signed-links): a screenshot URL that carries its own
proof, for `<img src>` and previews.

- `signatures`: the canonical query and its HMAC (also what the CLI's `webcapture sign` writes);
- `secrets_store`: each user's signing secret, in its own table;
- `query_fields`: query parameters, dotted for nested fields, as the request model's JSON body;
- `links`: a link's verification, from the query to the caller it is charged to.
"""
