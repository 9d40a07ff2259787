"""Authentication: API keys, session tokens, and the caller they identify."""

# Clock skew tolerated on a session token's `exp`, by the authorizer (session_tokens) and again by the
# function (caller). Here, not in session_tokens: the browser functions would import PyJWT and cryptography
# (~50-100 ms of their cold start) for this one number.
EXPIRY_LEEWAY_S = 30
