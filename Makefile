# webcapture: `make dev` serves the API locally, `make test` runs every check. Both set up what they need.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
export SAM_CLI_TELEMETRY := 0
export AWS_DEFAULT_REGION ?= us-east-1

.PHONY: install chromium dev test unit lint bench build validate clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $(STAMP)

install: $(STAMP) chromium

chromium:
	bash scripts/fetch_chromium.sh

dev: install
	$(BIN)/python -m localapi

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/mypy layers/shared/webcapture localapi functions scripts
	$(BIN)/cfn-lint template.yaml
	$(BIN)/sam validate --lint

unit: install
	$(BIN)/pytest tests/unit -q

test: install lint
	$(BIN)/pytest -q

bench: install
	$(BIN)/python scripts/bench.py

build: $(STAMP)
	$(BIN)/sam build

clean:
	rm -rf .aws-sam .pytest_cache .mypy_cache .ruff_cache
