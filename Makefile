# Two entry points the README promises: `make demo` and `make test`. Each builds what it needs.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
UV := $(VENV)/bin/uv
SPARK_ONLY_VENV := .venv-spark-only
SPARK_PROVIDER_VENV := .venv-spark-provider
export UV_LINK_MODE := copy

.PHONY: setup demo test test-fast lint bench services spark-only-env spark-provider-env clean

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

# Airflow's Spark provider (for @task.pyspark tests) requires `pyspark-client`, which overwrites pyspark's
# files: it goes into its own environment, installed without dependencies plus its other requirements.
$(SPARK_PROVIDER_VENV)/.installed: pyproject.toml $(VENV)/.installed
	@test -x $(SPARK_PROVIDER_VENV)/bin/python || $(UV) venv --quiet --python $(PY) $(SPARK_PROVIDER_VENV)
	$(UV) pip install --quiet --python $(SPARK_PROVIDER_VENV)/bin/python -e ".[spark,openlineage]" \
		"grpcio-status>=1.67.0" "requests>=2.32.0" "tenacity>=8.3.0"
	$(UV) pip install --quiet --python $(SPARK_PROVIDER_VENV)/bin/python --no-deps "apache-airflow-providers-apache-spark>=5"
	@touch $@

spark-provider-env: $(SPARK_PROVIDER_VENV)/.installed

services:
	@bash scripts/ensure_test_services.sh

demo: setup
	$(PY) scripts/demo.py

test: setup spark-only-env spark-provider-env services
	LINEAGE_SPARK_ONLY_PYTHON=$(CURDIR)/$(SPARK_ONLY_VENV)/bin/python \
	LINEAGE_SPARK_PROVIDER_PYTHON=$(CURDIR)/$(SPARK_PROVIDER_VENV)/bin/python $(PY) -m pytest

lint: setup
	$(VENV)/bin/ruff check src tests benchmarks example_dags scripts
	$(VENV)/bin/ruff format --check src tests benchmarks example_dags scripts
	$(VENV)/bin/mypy

bench: setup services
	$(PY) -m benchmarks.run

clean:
	rm -rf .build $(VENV) $(SPARK_ONLY_VENV) $(SPARK_PROVIDER_VENV)
