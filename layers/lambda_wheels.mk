# What the Makefiles `sam build` runs (BuildMethod: makefile) share: the Python whose pip installs, and the
# wheels that run on Lambda. Each includes this after setting REPO from its own place.
PYTHON ?= $(firstword $(wildcard $(REPO)/.venv/bin/python) python3)
# Lambda's python3.12 runs on Amazon Linux 2023 (glibc 2.34); any wheel up to manylinux_2_34 runs there.
WHEEL_TARGET := --only-binary=:all: --implementation cp --python-version 3.12 --abi cp312 \
	--platform manylinux2014_x86_64 --platform manylinux_2_28_x86_64 --platform manylinux_2_34_x86_64
