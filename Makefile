# webcapture: `make dev` serves the API locally, `make test` runs every check. Both set up what they need.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
export SAM_CLI_TELEMETRY := 0
export AWS_DEFAULT_REGION ?= us-east-1
# Lambda runs python3.12 and sam's python builder (functions, shared layer) refuses to build without a
# python3.12 on PATH; pyenv's shim only answers when 3.12 is the selected version, so the newest installed
# 3.12 goes first on sam's PATH. The artefact tests run the built handlers with the same interpreter.
PYENV_ROOT ?= $(HOME)/.pyenv
PY312_BIN ?= $(lastword $(sort $(wildcard $(PYENV_ROOT)/versions/3.12*/bin)))
SAM_PATH := $(if $(PY312_BIN),$(PY312_BIN):)$(PATH)
export WEBCAPTURE_PYTHON312 ?= $(if $(PY312_BIN),$(PY312_BIN)/python3.12)

.PHONY: install lock chromium page-filters docs-assets dev test unit lint bench bench-cold bench-warm bench-gl build sizes sizes-docs artifact-test deploy sync validate clean bench-dns bench-recovery
.PHONY: load soak openapi template bench-cache bench-fast-path

# The venv is exactly requirements.lock (hashes checked; --no-deps: the lock already holds every dependency,
# and pip check below proves it), then the project itself and its client (clients/python), both editable.
$(STAMP): requirements.lock clients/python/pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --require-hashes --no-deps -r requirements.lock
	$(BIN)/pip install --quiet --no-deps --no-build-isolation -e .
	$(BIN)/pip install --quiet --no-deps --no-build-isolation -e clients/python
	$(BIN)/pip check
	touch $(STAMP)

# The only step that changes a version: resolve pyproject.toml afresh into requirements.lock and write every
# Lambda package's requirements.txt from it (scripts/lock.py). Commit the lock with the change that needs it.
lock: $(STAMP)
	$(BIN)/python scripts/lock.py

install: $(STAMP) chromium page-filters docs-assets

chromium:
	bash scripts/fetch_chromium.sh

# blockAds' compiled filter engine and blockCookieBanners' consent rules (pinned, hashed; build time only).
page-filters: $(STAMP)
	PYTHON=$(BIN)/python bash scripts/fetch_page_filters.sh

# Swagger UI for GET /v1/docs, into functions/docs/assets (pinned npm package, checked by hash).
docs-assets:
	bash scripts/fetch_docs_assets.sh

# `make dev PORT=3301 AWS_PORT=4601` moves the API and moto (LocalStack holds 4566); the demo key is kept in
# DEMO_KEY_FILE across restarts (`make dev DEMO_KEY_FILE=` for a new one each time). DEV_ARGS: any other
# option of `python -m localapi --help`.
PORT ?= 3000
AWS_PORT ?= 4566
DEMO_KEY_FILE ?= .webcapture/demo-key
dev: install
	$(BIN)/python -m localapi --port $(PORT) --aws-port $(AWS_PORT) \
		$(if $(DEMO_KEY_FILE),--demo-key-file $(DEMO_KEY_FILE)) $(DEV_ARGS)

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/mypy layers/shared/webcapture localapi functions scripts clients/python/webcapture_client
	$(BIN)/cfn-lint template.yaml
	$(BIN)/sam validate --lint

unit: install
	$(BIN)/pytest tests/unit tests/browser -q

# The artefact tests (tests/artifact) run the handlers sam just built; WEBCAPTURE_SAM_BUILT tells them
# not to build again.
# The 25 slowest tests close pytest's report: where the run's time goes, run after run.
# The unit tests run on both cores, a module per worker at a time (xdist; no two unit modules serve on one
# address); the browser, artefact and end-to-end tests run one at a time, as their timings assume.
# Lint, the build (then its sizes) and the client's wheel test share nothing but the venv: they run side by
# side, each one's output kept together.
test: install
	$(MAKE) --no-print-directory -j3 --output-sync=target lint built-sizes client-test
	$(BIN)/pytest -q -n 2 --dist loadfile --durations=10 tests/unit
	WEBCAPTURE_SAM_BUILT=1 $(BIN)/pytest -q --durations=25 --ignore=tests/unit

# template.yaml's six browser functions from their one definition (a unit test fails when it is out of date).
template: $(STAMP)
	$(BIN)/python scripts/write_browser_functions.py

# The client's wheel (clients/python: the `webcapture` CLI, the SDK, the stdio MCP server) into dist/.
.PHONY: client client-test
client: $(STAMP)
	rm -f dist/webcapture_client-*.whl
	$(BIN)/pip wheel --quiet --no-deps --no-build-isolation --wheel-dir dist clients/python

# That wheel in an empty venv (nothing but the standard library), with the client's own tests run there;
# and with its [mcp] extra (from the package index) in another, where `webcapture mcp` lists its tools.
client-test: client
	$(BIN)/python scripts/client_wheel.py

# The MCP tools' input schemas from the request models, into the client (a unit test fails when out of date).
.PHONY: tool-schemas
tool-schemas: $(STAMP)
	$(BIN)/python scripts/write_tool_schemas.py

# docs/openapi.json, the committed copy of GET /v1/openapi.json (a unit test fails when it is out of date).
openapi: $(STAMP)
	$(BIN)/python scripts/write_openapi.py

bench: install
	$(BIN)/python scripts/bench.py

# A cache hit against a miss through the local API (maxAge), into docs/benchmarks/cache.md.
bench-cache: install
	$(BIN)/python scripts/bench_cache.py --write-docs

# Loopback only, bounded: `make load` (50 clients, 300 mixed requests over the local API, LOAD_ARGS to
# change) and `make soak` (10,000 screenshots through one warm handler, SOAK_ARGS="--count 2000" for less);
# both write their section of docs/benchmarks.md.
load: install
	$(BIN)/python scripts/load.py --write-docs docs/benchmarks.md $(LOAD_ARGS)

soak: install
	$(BIN)/python scripts/soak.py --write-docs docs/benchmarks.md $(SOAK_ARGS)

# Documentation pages from Debian's doc packages (served on loopback) as Markdown: how much of each page's
# structure ours, the converter before it and trafilatura, html2text and markdownify keep
# (scripts/bench_docs.py, docs/markdown.md); the two anchors are installed for the benchmark only.
.PHONY: bench-docs
bench-docs: $(STAMP)
	$(BIN)/pip install --quiet --require-hashes --no-deps -r benchmarks/docs/requirements.txt
	$(BIN)/python scripts/bench_docs.py --write-docs $(ARGS)

# Page-control globs: the linear matcher against Playwright's regular expression on the backtracking probe,
# and the matcher alone on ever longer URLs, into docs/benchmarks.md.
.PHONY: bench-globs
bench-globs: install
	$(BIN)/python scripts/bench_globs.py --write-docs $(ARGS)

# Main-content extractors scored and timed on benchmarks/main-content (READABILITY_JS=<path> adds
# Readability.js); `--write-docs` updates docs/benchmarks.md.
.PHONY: bench-main-content
bench-main-content: install
	$(BIN)/python scripts/bench_main_content.py $(ARGS)

# A batch of 100 screenshots against the same 100 sent synchronously, and the last item to its job.completed
# webhook (scripts/bench_jobs.py), into docs/benchmarks/jobs.md.
.PHONY: bench-jobs bench-paging
bench-jobs: install
	$(BIN)/python scripts/bench_jobs.py --write-docs $(ARGS)
# A 1,000-item batch of over 50 MB read back whole at limit 1, 10, 50 and 100 (scripts/bench_paging.py),
# written to docs/benchmarks/jobs.md.
bench-paging: install
	$(BIN)/python scripts/bench_paging.py --write-docs $(ARGS)
# The bot-wall check's cost per page and its false walls on the main-content benchmark pages
# (scripts/bench_walls.py; WALLS_PAGES=<folder with html/*.html.gz> when the repository holds no copy),
# written to docs/benchmarks/walls.md.
.PHONY: bench-walls
bench-walls: install
	$(BIN)/python scripts/bench_walls.py $(WALLS_PAGES) --write-docs

# A browser function's cold start to its first screenshot, from the built layers in a fresh python3.12
# (scripts/bench_cold.py; runs `make build` first when there is no build).
bench-cold: install
	PATH="$(SAM_PATH)" $(BIN)/python scripts/bench_cold.py

# POST /v1/web/map's gathering against requests + lxml on a 10,000-URL sitemap index, into
# docs/benchmarks/map.md.
.PHONY: bench-map
bench-map: install
	$(BIN)/python scripts/bench_map.py --write-docs

# The 500-page sample site crawled for Markdown against a batch of the same pages (scripts/bench_crawl.py),
# into docs/benchmarks/crawl.md.
.PHONY: bench-crawl
bench-crawl: install
	$(BIN)/python scripts/bench_crawl.py --write-docs $(ARGS)

# The fast path against the browser on Debian's python3.11-doc over the local API, and the http engine's page
# work on a 20,000-page synthetic site (scripts/bench_fast_path.py), into docs/benchmarks.md.
bench-fast-path: install
	$(BIN)/python scripts/bench_fast_path.py --write-docs $(ARGS)
	$(BIN)/python scripts/bench_fast_path.py --synthetic 20000 --formats links --write-docs

# The fast path's timed targets on a deployed stack (docs/benchmarks.md#fast-path-on-a-deployed-stack):
# make bench-fast-path-deployed API_URL=https://... API_KEY=wc_... SITE_URL=http://<python3.11-doc's origin>
.PHONY: bench-fast-path-deployed
bench-fast-path-deployed: install
	$(BIN)/python scripts/bench_fast_path_deployed.py --api-url "$(API_URL)" --api-key "$(API_KEY)" \
		--site-url "$(SITE_URL)" --write-docs $(ARGS)

# One crawl of 20,000 pages with engine http over the local API, its pages/s and memory per thousand
# (scripts/bench_crawl_at_size.py), into docs/benchmarks.md.
.PHONY: bench-crawl-size
bench-crawl-size: install
	$(BIN)/python scripts/bench_crawl_at_size.py --write-docs $(ARGS)

# The local API's DynamoDB reading back a 20,000-page crawl's results, key order kept between reads against
# a walk at each read (scripts/bench_moto_queries.py), in turns.
.PHONY: bench-moto-queries
bench-moto-queries: $(STAMP)
	$(BIN)/python scripts/bench_moto_queries.py --write-docs $(ARGS)

# The Markdown step of this tree against a git revision's (BASE=main), CPU and output side by side, on
# Debian's documentation pages (scripts/bench_markdown_step.py); it fails when any page's Markdown differs.
.PHONY: bench-markdown-step
bench-markdown-step: install
	$(BIN)/python scripts/bench_markdown_step.py --base $(or $(BASE),main) $(ARGS)

# The warm capture against a baseline build, f538ae6 (scripts/bench_warm.py), into docs/benchmarks.md.
bench-warm: install
	$(BIN)/python scripts/bench_warm.py --write-docs

# A page with 60 resources on a slow-resolving host against the host in the resolver's cache
# (scripts/bench_dns.py), into docs/benchmarks/dns.md.
bench-dns: install
	$(BIN)/python scripts/bench_dns.py --write-docs
# The first capture after a timed-out page that keeps the browser busy, against a normal capture, over the
# local API (scripts/bench_recovery.py), into docs/benchmarks/recovery.md; RECOVERY_ARGS="--rounds 3" for less.
bench-recovery: install
	$(BIN)/python scripts/bench_recovery.py --all --write-docs $(RECOVERY_ARGS)

# A screenshot monitor's visual diff of two 1280x8000 full-page captures against one such capture
# (benchmarks/bench_visual_diff.py; target <= 0.5x), into docs/benchmarks.md.
.PHONY: bench-visual-diff
bench-visual-diff: install
	$(BIN)/python benchmarks/bench_visual_diff.py --write-docs $(ARGS)

# Chromium's GL modes against capture time and WebGL (scripts/bench_gl.py), into docs/benchmarks.md.
bench-gl: install
	$(BIN)/python scripts/bench_gl.py --write-docs

# `make build FUNCTION=ScreenshotFunction` builds one function and its layers. Then the modules each built
# handler imports get their bytecode (Lambda cannot write it: every cold start would compile them), after
# botocore's models of services no function calls are dropped (27 MB in every function).
build: $(STAMP) docs-assets
	@PATH="$(SAM_PATH)" python3.12 -c "" 2>/dev/null || { echo "sam build needs python3.12 on PATH" >&2; exit 1; }
	PATH="$(SAM_PATH)" $(BIN)/sam build $(FUNCTION)
	$(BIN)/python scripts/trim_botocore.py
	$(BIN)/python scripts/drop_shared_duplicates.py
	PATH="$(SAM_PATH)" $(BIN)/python scripts/precompile_imports.py

# Lambda's 250 MB (function + layers, unzipped) on the last build, with the headroom.
sizes: $(STAMP)
	$(BIN)/python scripts/layer_sizes.py

# The sizes of a build made first (`sizes` alone checks whatever .aws-sam already holds).
.PHONY: built-sizes
built-sizes: build
	$(BIN)/python scripts/layer_sizes.py

# The same plus cold-start unpack times, written to docs/benchmarks.md.
sizes-docs: build
	$(BIN)/python scripts/layer_sizes.py --unpack --write-docs docs/benchmarks.md

artifact-test: install build
	WEBCAPTURE_SAM_BUILT=1 $(BIN)/pytest tests/artifact -q

# `make deploy` (dev) or `make deploy ENV=prod`: a full build, checked deployable, then sam deploy (only
# resources whose code changed are updated). `make sync FUNCTION=ScreenshotFunction`: one function's code
# to the dev stack in seconds, bypassing CloudFormation.
ENV ?= default
deploy: build sizes
	$(BIN)/sam deploy --config-env $(ENV)

sync: $(STAMP)
	PATH="$(SAM_PATH)" $(BIN)/sam sync --code --resource-id $(FUNCTION) --no-watch

clean:
	rm -rf .aws-sam .pytest_cache .mypy_cache .ruff_cache
