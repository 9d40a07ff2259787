"""Authentication: API keys, session tokens, and the caller they identify."""
