# Two entry points the README promises: `make demo` and `make test`. Each builds what it needs.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
UV := $(VENV)/bin/uv
SPARK_ONLY_VENV := .venv-spark-only
export UV_LINK_MODE := copy

.PHONY: setup demo test test-fast lint bench services spark-only-env clean

$(VENV)/.installed: pyproject.toml
	@bash scripts/check_java.sh
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	@test -x $(UV) || $(PY) -m pip install --quiet uv
	$(UV) pip install --quiet --python $(PY) -e ".[spark,openlineage,connect]" --group dev
	@touch $@

setup: $(VENV)/.installed

# An environment with only `.[spark]`: proves tasks run without any OpenLineage package.
$(SPARK_ONLY_VENV)/.installed: pyproject.toml $(VENV)/.installed
	@test -x $(SPARK_ONLY_VENV)/bin/python || $(UV) venv --quiet --python $(PY) $(SPARK_ONLY_VENV)
	$(UV) pip install --quiet --python $(SPARK_ONLY_VENV)/bin/python -e ".[spark]"
	@touch $@

spark-only-env: $(SPARK_ONLY_VENV)/.installed

services:
	@bash scripts/ensure_test_services.sh

demo: setup
	$(PY) scripts/demo.py

test: setup spark-only-env services
	LINEAGE_SPARK_ONLY_PYTHON=$(CURDIR)/$(SPARK_ONLY_VENV)/bin/python $(PY) -m pytest

lint: setup
	$(VENV)/bin/ruff check src tests benchmarks example_dags scripts
	$(VENV)/bin/ruff format --check src tests benchmarks example_dags scripts
	$(VENV)/bin/mypy

bench: setup services
	$(PY) -m benchmarks.run

clean:
	rm -rf .build $(VENV) $(SPARK_ONLY_VENV)
