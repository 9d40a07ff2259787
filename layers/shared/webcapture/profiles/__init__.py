"""Profiles: a logged-in session kept between requests (docs/profiles.md).

- store: the metadata in the profiles table (create, list, rename, delete, a save's conditional swap);
- state_objects: the states in S3, SSE-KMS, one object per version;
- states: what a state keeps (hosts the egress policy lets the browser reach) and its summary;
- sessions: a request's profile, opened before any work and saved after a successful capture.
"""
