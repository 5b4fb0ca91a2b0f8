# Two entry points the README promises: `make demo` and `make test`. Each builds what it needs.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
UV := $(VENV)/bin/uv
SPARK_ONLY_VENV := .venv-spark-only
SPARK_PROVIDER_VENV := .venv-spark-provider
LOWEST_VENV := .venv-lowest
LOWEST_SPARK_VENV := .venv-lowest-spark
# The suite validates events against the schemas in ../shared/openlineage-spec when it exists;
# without it validate_events downloads them (and caches them in the user's cache dir).
SPEC_DIR := $(abspath $(CURDIR)/../shared/openlineage-spec)
SPEC_ENV := $(if $(wildcard $(SPEC_DIR)/OpenLineage.json),OPENLINEAGE_SPEC_DIR=$(SPEC_DIR),)
# pyspark comes as a source archive only: scripts/pyspark_wheels.sh builds each release once into a wheelhouse
# uv installs from, and every environment hard-links one unpacked copy from uv's cache (no copy per venv).
PYSPARK_WHEELHOUSE ?= $(HOME)/.cache/lineage-operators/pyspark-wheels
export PYSPARK_WHEELHOUSE
export UV_FIND_LINKS := $(PYSPARK_WHEELHOUSE)
export UV_LINK_MODE := hardlink
pyspark_wheels = bash scripts/pyspark_wheels.sh $(PY) $(1)
# The lowest pyspark each lower-bound environment resolves to (pyproject.toml: `connect`, `spark` extras).
LOWEST_PYSPARK := 4.0.0
LOWEST_SPARK_PYSPARK := 3.5.0

# The tests' Spark JVMs (drivers and the Connect server: whatever pyspark's spark-submit launches, in the tests'
# processes and in the Airflow tasks they start) compile with C1 only and collect with the serial collector:
# JVMs that live seconds to minutes spend much of their CPU in the C2 compiler's and G1's threads, and
# `make test` keeps both cores busy. Measured on the Spark tests: 30% less CPU; system tests 20%, Delta 26%
# (docs/contributing.md). Test targets only: `make bench` and `make demo` run the JVM's defaults.
TEST_JAVA_OPTS ?= -XX:TieredStopAtLevel=1 -XX:+UseSerialGC
test test-% peer: export SPARK_SUBMIT_OPTS := $(strip $(filter-out $(TEST_JAVA_OPTS),$(SPARK_SUBMIT_OPTS)) $(TEST_JAVA_OPTS))
# The tests' Python processes (pytest, `airflow dags test`, the scheduler and its task processes, the wheel's
# environment) keep the bytecode they compile: where the shell sets PYTHONDONTWRITEBYTECODE (as some CI images
# do) and the environments were installed without .pyc files (uv's default), every process compiled Airflow,
# pyspark and the providers from source again: ~6 CPU-s per process importing Airflow, 19% of an
# `airflow dags test` test (docs/contributing.md). An empty value is "unset" for Python.
test test-% peer: export PYTHONDONTWRITEBYTECODE :=
# The tests' Spark JVMs read Spark's classes from a class-data-sharing archive per environment, which the first
# test process of the environment makes when it is missing (tests/support/jvm_launch.py: ~30 CPU-s once per machine
# and environment, ~190 MB in ~/.cache/lineage-operators/class-archives; 15.9 -> 8.7 CPU-s for a JVM's session, a
# write and a read). Test targets only.
test test-% peer: export LINEAGE_CLASS_ARCHIVE := make

.PHONY: setup demo marquez docs test test-main test-benchmarks test-fast test-lowest test-lowest-spark test-spark-lines test-iceberg test-delta test-peer test-peer-lakehouse test-s3 test-hive test-kafka peer lint bench services spark-only-env spark-provider-env clean test-envs jars

$(VENV)/.installed: pyproject.toml
	@bash scripts/check_java.sh
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	@test -x $(UV) || $(PY) -m pip install --quiet uv
	@$(call pyspark_wheels,"pyspark<5")
	$(UV) pip install --quiet --python $(PY) -e ".[spark,openlineage,connect]" --group dev --group docs
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

# The lowest versions pyproject.toml allows for its direct dependencies (Airflow, the providers,
# openlineage-python, openlineage-sql, pyspark with its Connect client; the `connect` extra makes that
# pyspark 4.0.0, the `spark` extra's own bound 3.5.0 is `make test-lowest-spark`): proves the declared lower bounds
# (README's "Supported versions") really produce lineage. Part of `make test`, so CI runs it.
# Its tests: every system test (Airflow, the provider, openlineage-python and pyspark end to end, classic and
# Connect). They are also Spark 4.0's system tests: `make test-spark-4.0` runs that line's Spark tests only
# (SYSTEM_TESTS_ELSEWHERE), so each line runs each test once. Left to `make test` (newest versions): the tests
# that run in the other environments (`.[spark]`-only, Airflow's Spark provider; both built from the newest
# versions), the browser view and Marquez (the provider's HTTP transport is the lowest provider's in
# tests/system/test_fault_matrix.py and test_assertion_dag.py), and the standalone cluster (a `spark://` master is
# Spark's part, the same operator and Airflow as the other system tests: ~70 s). `make test-lowest LOWEST_TESTS="tests/spark tests/system"` runs everything
# (Spark tests first, as in `make test`: their shared session must be the first one of the process).
LOWEST_TESTS ?= tests/system --ignore=tests/system/test_without_openlineage.py --ignore=tests/system/test_lineage_view.py \
	--ignore=tests/system/test_marquez.py --ignore=tests/system/test_marquez_faults.py --ignore=$(FAULT_SYSTEM_TESTS) \
	--ignore=tests/system/test_standalone_cluster.py \
	--deselect=tests/system/test_unmodified_tasks_cli.py::test_unmodified_task_pyspark_in_an_environment_with_airflows_spark_provider \
	$(LOG_MASKING_ELSEWHERE) $(FORKS_CLI_ELSEWHERE)

$(LOWEST_VENV)/.installed: pyproject.toml $(VENV)/.installed
	@rm -rf $(LOWEST_VENV)
	$(UV) venv --quiet --python $(PY) $(LOWEST_VENV)
	@$(call pyspark_wheels,"pyspark==$(LOWEST_PYSPARK)")
	$(UV) pip install --quiet --python $(LOWEST_VENV)/bin/python --resolution lowest-direct -e ".[spark,openlineage,connect]"
	$(UV) pip install --quiet --python $(LOWEST_VENV)/bin/python --group dev
	@touch $@

test-lowest: $(LOWEST_VENV)/.installed $(SERVICES)
	$(UV) pip list --python $(LOWEST_VENV)/bin/python 2>/dev/null | grep -E "^(apache-airflow |apache-airflow-providers-(openlineage|standard|common-compat) |openlineage-(python|sql) |pyspark )"
	$(SPEC_ENV) $(LOWEST_VENV)/bin/python -m pytest -p no:cacheprovider --durations=10 $(LOWEST_TESTS)

# One environment per older Spark line (README "Install"): `spark` and `openlineage` extras beside the
# newest pyspark of the line (pyspark 3.5 bundles Scala 2.12 jars, 4.x Scala 2.13), plus the `connect` extra on
# CONNECT_LINES: 4.0's and 4.1's jars ship the Connect server the tests start (spark-connect_2.13), 3.5's have
# none, so Connect is 4.x only and the 3.5 environment has no Connect client. Every line runs LINE_TESTS: the
# Spark tests of the JVM-facing capture code (plan reading, commands, catalog tables, JDBC and RDD jobs,
# statistics, attribution, threads, the compiled Java classes, the execution queue and its per-line settling,
# column lineage of writes and the optimizer's entries in it), the example DAGs' golden files and mixed tasks
# in one process (tests/system/test_one_process.py). The Connect lines add the Connect tests (CONNECT_SPARK_TESTS and
# CONNECT_SYSTEM_TESTS; Spark tests before system tests, as the shared session must be the process's
# first): the client internals the interceptor uses, the classic/Connect parity of datasets and of
# DataFrame column lineage (the Relation protobufs the client sends), the SQL corpus's column lineage (TPC-H
# and our own statements, classic vs Connect: 75-115 s a line on 2 cores, all 60 statements in one
# capture a side), and the operator and an unmodified task on a Connect server: about 3 minutes more per
# line, all of them kept. The newest line
# runs them in `make test`. On SYSTEM_TESTS_ELSEWHERE the line's system tests run in the lower-bound environment of
# the same line instead (3.5.0 in `make test-lowest-spark`, 4.0.0 in `make test-lowest`), so that no line runs the
# same test twice; `make test-spark-3.5 SYSTEM_TESTS_ELSEWHERE=` runs them all on one line.
# Per-line expectations are explicit in tests/support/spark_lines.py.
SPARK_LINES := 3.5 4.0 4.1
CONNECT_LINES := 4.0 4.1
LINE_SPARK_TESTS ?= tests/spark/test_capture_files.py tests/spark/test_capture_lifecycle.py \
	tests/spark/test_capture_tables.py tests/spark/test_column_lineage_writes.py \
	tests/spark/test_jdbc_statistics.py tests/spark/test_rdd_reader.py tests/spark/test_capture_threads.py \
	tests/spark/test_column_lineage_compact_plans.py tests/spark/test_column_lineage_inferred.py \
	tests/spark/test_attribution_records.py \
	tests/spark/test_plan_batch_parity.py tests/spark/test_execution_queue.py tests/spark/test_capture_streaming.py \
	tests/spark/test_quality_observe.py
LINE_SYSTEM_TESTS ?= tests/system/test_example_dags.py tests/system/test_one_process.py tests/system/test_data_quality.py
# Two one-process tests run at the two ends rather than on every line (each line still runs mixed tasks in one
# `airflow dags test` process): the same tasks through dag.test() at Airflow's two bounds (the main suite and
# `make test-lowest`), and the masking of Spark's own log4j lines at pyspark's two ends (the main suite, 4.3, and
# `make test-lowest-spark`, 3.5.0).
ONE_PROCESS := tests/system/test_one_process.py
DAG_TEST_ELSEWHERE := --deselect=$(ONE_PROCESS)::test_mixed_tasks_in_dag_test_keep_their_own_lineage
LOG_MASKING_ELSEWHERE := --deselect=$(ONE_PROCESS)::test_spark_log_lines_of_a_session_the_operator_launched_are_masked
# A session opened at DAG parse time, across the provider's forks: each way of running (`airflow dags test`,
# dag.test()) once, at one of Airflow's two bounds: the CLI in the main suite, dag.test() in `make test-lowest`.
MODULE_SESSION := tests/system/test_unmodified_tasks_cli.py::test_a_session_opened_when_the_dag_file_is_parsed_survives_the_providers_forks
FORKS_CLI_ELSEWHERE := --deselect=$(MODULE_SESSION)[airflow_dags_test]
FORKS_DAG_TEST_ELSEWHERE := --deselect=$(MODULE_SESSION)[dag_test]
LINE_TESTS ?= $(LINE_SPARK_TESTS) $(LINE_SYSTEM_TESTS)
CONNECT_SPARK_TESTS ?= tests/spark/test_connect_capture.py tests/spark/test_connect_parity.py \
	tests/spark/test_connect_column_lineage.py tests/spark/test_connect_sql_corpus.py
CONNECT_SYSTEM_TESTS ?= tests/system/test_connect_lineage.py tests/system/test_unmodified_connect.py
SYSTEM_TESTS_ELSEWHERE ?= 3.5 4.0
comma := ,
is_connect_line = $(filter $(1),$(CONNECT_LINES))
line_extras = spark$(comma)openlineage$(if $(call is_connect_line,$(1)),$(comma)connect)
line_tests = $(LINE_SPARK_TESTS) $(if $(call is_connect_line,$(1)),$(CONNECT_SPARK_TESTS)) \
	$(if $(filter $(1),$(SYSTEM_TESTS_ELSEWHERE)),,$(LINE_SYSTEM_TESTS) $(if $(call is_connect_line,$(1)),$(CONNECT_SYSTEM_TESTS)) \
	$(DAG_TEST_ELSEWHERE) $(LOG_MASKING_ELSEWHERE))

.venv-spark-%/.installed: pyproject.toml $(VENV)/.installed
	@test -x .venv-spark-$*/bin/python || $(UV) venv --quiet --python $(PY) .venv-spark-$*
	@$(call pyspark_wheels,"pyspark==$*.*")
	$(UV) pip install --quiet --python .venv-spark-$*/bin/python -e ".[$(call line_extras,$*)]" "pyspark==$*.*" --group dev
	@touch $@

test-spark-%: .venv-spark-%/.installed $(SERVICES)
	@.venv-spark-$*/bin/python -c "import pyspark; print('pyspark', pyspark.__version__)"
	$(SPEC_ENV) .venv-spark-$*/bin/python -m pytest -p no:cacheprovider --durations=5 $(call line_tests,$*)

test-spark-lines: $(addprefix test-spark-,$(SPARK_LINES))

.PRECIOUS: .venv-spark-%/.installed

# Issue 52's faults of the data systems, each where its Spark conf allows, on Spark 3.5 and the newest line: the S3
# server stopped mid-write in tests/s3 and the Kafka broker stopped mid-stream in tests/kafka (their suites' sessions
# and servers), the Hive metastore unreachable at session start here (each task starts its own session with Hive
# support, which pyspark's own jars carry): the main suite runs it on the newest line, `make test-lowest-spark` on
# 3.5 (`make test-lowest` leaves it out).
FAULT_SYSTEM_TESTS := tests/system/test_hive_faults.py

# The lower bound of the `spark` extra alone (pyspark 3.5.0, with the lowest Airflow, providers and
# openlineage-python): `make test-lowest` cannot show it, as the `connect` extra lifts pyspark to 4.0.0. It runs
# Spark 3.5's system tests (LINE_SYSTEM_TESTS); the line's Spark tests run on the newest 3.5 (`make test-spark-3.5`).
$(LOWEST_SPARK_VENV)/.installed: pyproject.toml $(VENV)/.installed
	@rm -rf $(LOWEST_SPARK_VENV)
	$(UV) venv --quiet --python $(PY) $(LOWEST_SPARK_VENV)
	@$(call pyspark_wheels,"pyspark==$(LOWEST_SPARK_PYSPARK)")
	$(UV) pip install --quiet --python $(LOWEST_SPARK_VENV)/bin/python --resolution lowest-direct -e ".[spark,openlineage]"
	$(UV) pip install --quiet --python $(LOWEST_SPARK_VENV)/bin/python --group dev
	@touch $@

test-lowest-spark: $(LOWEST_SPARK_VENV)/.installed $(SERVICES)
	$(UV) pip list --python $(LOWEST_SPARK_VENV)/bin/python 2>/dev/null | grep -E "^(apache-airflow |apache-airflow-providers-openlineage |openlineage-python |pyspark )"
	$(SPEC_ENV) $(LOWEST_SPARK_VENV)/bin/python -m pytest -p no:cacheprovider --durations=5 $(LINE_SYSTEM_TESTS) $(FAULT_SYSTEM_TESTS) \
		$(DAG_TEST_ELSEWHERE)

# Apache Iceberg on every Spark line it publishes a runtime for (ICEBERG_LINES): its official runtime jar, pinned and
# verified, fetched with mvn into ~/.cache/lineage-operators/maven (tests/support/maven_jars.py, test-only), then
# tests/iceberg runs in a pytest process of its own per line: the jar must be on the classpath when its JVM starts.
ICEBERG_LINES := 3.5 4.0 4.1

# Each format's test of the operator in an Airflow DAG run runs on FORMAT_DAG_LINE only: what it adds to the line's
# capture tests is Airflow's part, the same on every line (~50 s for Iceberg and ~70 s for Delta a line).
FORMAT_DAG_LINE := 4.1
format_dag_elsewhere = $(if $(filter $(1),$(FORMAT_DAG_LINE)),,--deselect=$(2))

test-iceberg-%: .venv-spark-%/.installed $(JARS) $(SERVICES)
	$(SPEC_ENV) .venv-spark-$*/bin/python -m pytest -p no:cacheprovider -rs --durations=5 tests/iceberg \
		$(call format_dag_elsewhere,$*,tests/iceberg/test_airflow_dag.py)

test-iceberg: $(addprefix test-iceberg-,$(ICEBERG_LINES))

# Delta Lake on every Spark line it publishes a release for (DELTA_LINES): delta-spark and delta-storage, pinned
# and verified like the Iceberg runtime; tests/delta runs in a pytest process of its own per line for the same reason.
DELTA_LINES := 3.5 4.0 4.1

test-delta-%: .venv-spark-%/.installed $(JARS) $(SERVICES)
	$(SPEC_ENV) .venv-spark-$*/bin/python -m pytest -p no:cacheprovider --durations=5 tests/delta \
		$(call format_dag_elsewhere,$*,tests/delta/test_delta_airflow_dag.py)

test-delta: $(addprefix test-delta-,$(DELTA_LINES))

# openlineage-spark (the peer) beside our capture on the corpus of tests/peer, in a pytest process of its own per
# Spark line (the jar's listener is set when the JVM starts). The jar is fetched with mvn, pinned and verified, into
# ~/.cache/lineage-operators/maven (tests/support/maven_jars.py). `make test` runs it on 3.5 and the newest line
# (PEER_TEST_LINES); `make peer` runs every line the jar supports and writes the report (PEER_REPORT_DIR).
PEER_LINES := 3.5 4.0 4.1 newest
PEER_TEST_LINES := 3.5 newest
PEER_REPORT_DIR ?= .build/peer
peer_python = $(if $(filter newest,$(1)),$(PY),.venv-spark-$(1)/bin/python)
peer_venv = $(if $(filter newest,$(1)),$(VENV)/.installed,.venv-spark-$(1)/.installed)

# The line's environment is a prerequisite (expanded a second time, once the stem is known), not a nested make: the
# parallel `make test` builds each environment once, whichever suite needs it first.
.SECONDEXPANSION:
test-peer-%: $$(call peer_venv,$$*) $(JARS) $(SERVICES)
	$(SPEC_ENV) $(call peer_python,$*) -m pytest -p no:cacheprovider --durations=3 tests/peer --ignore=tests/peer/lakehouse $(PEER_ARGS)

test-peer: $(addprefix test-peer-,$(PEER_TEST_LINES))

# The peer on Delta Lake and Iceberg tables (tests/peer/lakehouse): a session with the jar, Delta and Iceberg, in a
# pytest process of its own per line where all three exist. The same session also has S3A against S3Proxy on
# loopback (tests/support/s3_server.py) for the corpus's tables on s3a:// (tests/peer/corpus_lakehouse_s3.py), so the
# lakehouse lines are lines with pinned S3A jars too. `make test` runs LAKEHOUSE_PEER_TEST_LINES.
LAKEHOUSE_PEER_LINES := 3.5 4.1
LAKEHOUSE_PEER_TEST_LINES := 3.5 4.1

test-peer-lakehouse-%: .venv-spark-%/.installed $(JARS)
	$(SPEC_ENV) .venv-spark-$*/bin/python -m pytest -p no:cacheprovider --durations=3 tests/peer/lakehouse $(PEER_ARGS)

test-peer-lakehouse: $(addprefix test-peer-lakehouse-,$(LAKEHOUSE_PEER_TEST_LINES))

# Spark on a real S3 API (tests/s3): S3Proxy on loopback over a filesystem backend (tests/support/s3_server.py), Spark's
# S3A with the hadoop-aws and AWS SDK modules of the line's Hadoop, openlineage-spark beside our capture in the same
# session; every jar pinned and verified (tests/support/s3_pins.py, s3proxy_pins.py). A pytest process of its own per
# line: S3A and the jar's listener go on the JVM's classpath at its start. S3_TEST_LINES run in `make test`; S3_LINES
# are the lines with pinned S3A jars (4.0's SDK modules are not served by the registry: tests/support/s3_pins.py).
S3_LINES := 3.5 4.1 newest
S3_TEST_LINES := 3.5 newest

test-s3-%: $$(call peer_venv,$$*) $(JARS)
	$(SPEC_ENV) $(call peer_python,$*) -m pytest -p no:cacheprovider --durations=3 tests/s3

test-s3: $(addprefix test-s3-,$(S3_TEST_LINES))

# Spark with Hive support on a real Hive metastore (tests/hive): the standalone metastore 3.1.3 on loopback over
# embedded Derby, its schema made by its schema tool (tests/support/hive_metastore.py; 4.0.1 no longer serves the
# Thrift call Spark's built-in Hive client reads tables with: tests/support/hive_metastore_pins.py), openlineage-spark
# beside our capture in the same session. A pytest process of its own per line: Hive support and the jar's listener
# are set at the JVM's start. HIVE_TEST_LINES run in `make test`.
HIVE_LINES := 3.5 4.1 newest
HIVE_TEST_LINES := 3.5 newest

test-hive-%: $$(call peer_venv,$$*) $(JARS)
	$(SPEC_ENV) $(call peer_python,$*) -m pytest -p no:cacheprovider --durations=3 tests/hive

test-hive: $(addprefix test-hive-,$(HIVE_TEST_LINES))

# Spark on a real Kafka broker (tests/kafka): one KRaft node on loopback (tests/support/kafka_broker.py), Spark's Kafka
# source and sink (spark-sql-kafka-0-10, pinned per line: tests/support/kafka_pins.py) in batch and Structured
# Streaming, openlineage-spark beside our capture in the same session. A pytest process of its own per line: the
# connector and the jar's listener go on the JVM's classpath at its start. KAFKA_TEST_LINES run in `make test`.
KAFKA_TEST_LINES := 3.5 newest

test-kafka-%: $$(call peer_venv,$$*) $(JARS)
	$(SPEC_ENV) $(call peer_python,$*) -m pytest -p no:cacheprovider --durations=3 tests/kafka

test-kafka: $(addprefix test-kafka-,$(KAFKA_TEST_LINES))

peer: setup services
	@for line in $(PEER_LINES); do \
		$(MAKE) --no-print-directory test-peer-$$line PEER_ARGS="--peer-report=$(CURDIR)/$(PEER_REPORT_DIR)" || status=1; \
	done; for line in $(LAKEHOUSE_PEER_LINES); do \
		$(MAKE) --no-print-directory test-peer-lakehouse-$$line PEER_ARGS="--peer-report=$(CURDIR)/$(PEER_REPORT_DIR)" || status=1; \
	done; ls $(PEER_REPORT_DIR)/peer-*.md; exit $${status:-0}

services:
	@bash scripts/ensure_test_services.sh

demo: setup
	$(PY) scripts/demo.py

# The main suite and the other environments' suites run TEST_JOBS at a time (each pytest process has its own
# PostgreSQL, Airflow home, Spark and Connect server; their output is printed per suite when it ends). The
# environments and test-only jars are made first, one at a time, so that no two jobs build the same one.
# make starts the suites in the order SUITES lists them only when none waits on a target still to run: the
# suites' phony prerequisites (`services`, `jars`: run again by every make) are emptied in that call
# (SERVICES= JARS=, `test` ran them once), or make starts whichever suite is ready first and the main suite, the
# longest, could start last with the other job idle at the end (measured: an environment built as a suite's
# prerequisite in that call let make run three later suites before test-lowest). Longest first (times:
# docs/contributing.md).
TEST_JOBS ?= 2
SERVICES := services
JARS := jars
SUITES := test-main test-lowest test-spark-4.1 test-benchmarks test-delta-4.1 test-spark-4.0 test-delta-4.0 test-delta-3.5 \
	test-lowest-spark test-peer-newest test-peer-3.5 test-peer-lakehouse-4.1 test-peer-lakehouse-3.5 \
	test-iceberg-4.1 test-iceberg-4.0 test-iceberg-3.5 test-s3-newest test-s3-3.5 test-hive-newest \
	test-hive-3.5 test-kafka-newest test-kafka-3.5 test-spark-3.5

test-envs: $(LOWEST_VENV)/.installed $(LOWEST_SPARK_VENV)/.installed $(foreach l,$(SPARK_LINES),.venv-spark-$(l)/.installed) jars

# The pinned test-only jars (tests/support/maven_jars.py: Delta, Iceberg, openlineage-spark), fetched and verified
# once, before the first suite that puts them on a JVM's classpath; and the Marquez server the main suite sends
# events to, built from upstream's source in ../shared/marquez (pinned by its hash) into ~/.cache/lineage-operators/
# marquez (tests/support/marquez.py): ~1 minute the first time, nothing afterwards; and its web UI, built with npm
# from the same folder into ~/.cache/lineage-operators/marquez-web (tests/support/marquez_web.py): ~4 minutes the
# first time, nothing afterwards.
jars: setup
	$(PY) -m tests.support.maven_jars --all > /dev/null
	$(PY) -m tests.support.marquez build > /dev/null

# A running Marquez (API on port 5000, UI on port 3000, when they are free) with the demo DAG's lineage in it,
# until Ctrl-C.
marquez: setup jars
	$(PY) -m tests.support.marquez serve

# The docs site (docs/: MyST pages, autodoc of the public API) with warnings as errors, read afresh (-E) so
# that no warning hides in a cached page; ~10 s, part of `make test`. The site lands in .build/docs/.
docs: setup
	$(VENV)/bin/sphinx-build -W --keep-going -E -q -b html docs .build/docs

test: setup spark-only-env spark-provider-env services docs
	$(MAKE) test-envs
	$(MAKE) -j$(TEST_JOBS) --output-sync=target SERVICES= JARS= $(SUITES)

# The main suite (everything but the other environments' suites and the benchmarks' smoke test), on the default
# environment.
BENCHMARK_TESTS := tests/unit/test_benchmarks_smoke.py
test-main: setup spark-only-env spark-provider-env $(SERVICES) $(JARS)
	$(SPEC_ENV) LINEAGE_SPARK_ONLY_PYTHON=$(CURDIR)/$(SPARK_ONLY_VENV)/bin/python \
	LINEAGE_SPARK_PROVIDER_PYTHON=$(CURDIR)/$(SPARK_PROVIDER_VENV)/bin/python $(PY) -m pytest --durations=15 \
	--ignore=tests/peer --ignore=tests/s3 --ignore=tests/hive --ignore=tests/kafka --ignore=$(BENCHMARK_TESTS) \
	$(FORKS_DAG_TEST_ELSEWHERE)

# Every benchmark once at a tiny size (tests/unit/test_benchmarks_smoke.py: the figures come out, nothing is
# recorded), a suite of its own beside the main one: ~8 minutes of child processes.
test-benchmarks: setup $(SERVICES)
	$(SPEC_ENV) $(PY) -m pytest -p no:cacheprovider --durations=3 $(BENCHMARK_TESTS)

lint: setup
	$(VENV)/bin/ruff check src tests benchmarks example_dags scripts $(wildcard docs/*.py)
	$(VENV)/bin/ruff format --check src tests benchmarks example_dags scripts $(wildcard docs/*.py)
	$(VENV)/bin/mypy

bench: setup services
	$(PY) -m benchmarks.run

# The overhead benchmarks against an older Spark line, e.g. `make bench-spark-3.5` (recorded in RESULTS.md
# like `make bench`; the environment says which pyspark ran).
bench-spark-%: .venv-spark-%/.installed services
	.venv-spark-$*/bin/python -m benchmarks.run --only task_overhead large_plans

clean:
	rm -rf .build $(VENV) $(SPARK_ONLY_VENV) $(SPARK_PROVIDER_VENV) $(LOWEST_VENV) $(LOWEST_SPARK_VENV) .venv-spark-*
