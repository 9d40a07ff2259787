"""The Docker-free local API: API Gateway played from template.yaml, AWS played by moto's server."""
