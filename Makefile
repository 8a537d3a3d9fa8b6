# macops.cluster: one entry point for people and CI.
#   make lab    the main job: lab cluster up, site.yml against it, the report
#   make test   every test: lint, collection checks, sanity, unit, e2e, molecule, benchmark smoke runs
#   make docs   the documentation site in artifacts/docs-site/ (fails on any warning)
#   make ee     the execution environment's build context in artifacts/ee/, checked
SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
VENV := .venv
BIN := $(VENV)/bin
export PATH := $(CURDIR)/$(BIN):$(PATH)
export ANSIBLE_CONFIG := $(CURDIR)/ansible.cfg
LAB_NODES ?= 4
PYTEST_ARGS ?=

.PHONY: setup lab lab-up lab-down test lint collection-checks controller docs ee changelog sanity unit e2e e2e-wip molecule \
  molecule-destroy bench-smoke \
  build clean help

help:
	@sed -n 's/^#   //p' Makefile

setup:
	@bash scripts/setup.sh

lab: setup lab-up
	$(BIN)/ansible-playbook site.yml
	@echo "report: $(CURDIR)/artifacts/report/index.html (JSON: artifacts/report/report.json)"

lab-up: setup
	lab/maclab up --nodes $(LAB_NODES)

# Every lab make starts: lab 0 (make lab, molecule), lab 1 (make e2e's lab 1 stream, then molecule and the
# benchmark smoke runs), lab 2 (its serving stream) and lab 3 (its reboot suite).
lab-down:
	@if [ -x lab/maclab ]; then for id in 0 1 2 3; do MACLAB_ID=$$id lab/maclab down; done; fi

# Every stage in order, each timed with a JUnit file in artifacts/junit/, then each stage's wall
# time and the 20 slowest tests (scripts/test_stages.sh; compare two runs with
# `scripts/test_times.py compare OLD NEW`). Molecule and the benchmark smoke runs go on lab 1 once
# e2e's lab 1 stream passed, beside lab 0's; lab-down (molecule's destroy of each) ends the run.
test: setup
	@bash scripts/test_stages.sh

lint: setup
	bash scripts/lint.sh

# What the collection ships besides its code, none of it using the lab: the changelog (lint, and
# the next release previewed on a copy), the execution environment's context
# (docs/awx/execution-environment.yml), the documentation site, and the owner's controller (pip alone
# into a fresh venv, every playbook syntax-checked from it), each failing on a real defect.
collection-checks: setup
	@$(MAKE) --no-print-directory controller
	@$(MAKE) --no-print-directory changelog
	@$(MAKE) --no-print-directory ee
	@$(MAKE) --no-print-directory docs

# requirements/controller.txt with pip alone into a fresh venv, as on a macOS controller (no apt),
# then every playbook's --syntax-check from that venv.
controller:
	bash scripts/controller_check.sh

changelog: setup
	bash scripts/changelog.sh

ee: setup
	$(BIN)/python scripts/ee_context.py

docs: setup
	bash scripts/docs_site.sh

sanity: setup
	bash scripts/sanity.sh

# JUNIT_DIR (set by make test) makes the pytest stages write their JUnit files there.
JUNIT_DIR ?=
junit = $(if $(JUNIT_DIR),--junitxml=$(JUNIT_DIR)/$(1).xml)

# Coverage through sys.monitoring (Python 3.12 and later; an older Python falls back to its tracer):
# the same figures at about two thirds of the tracer's CPU time. Four processes (pytest-xdist, UNIT_WORKERS):
# many tests wait on real timers (supervisors, streams, timeouts), so one process used half a core
# (146 s of CPU in 276 s); four take 115 s.
UNIT_WORKERS ?= 4
unit: setup
	COVERAGE_CORE=sysmon $(BIN)/pytest tests/unit -q -p no:cacheprovider -n $(UNIT_WORKERS) $(call junit,unit) \
	  --cov=plugins/module_utils --cov=plugins/plugin_utils --cov=plugins/filter \
	  --cov-report=term-missing:skip-covered --cov-fail-under=90 $(PYTEST_ARGS)

# Four streams on four labs side by side (lab 1: the lab, shims, modules, roles, collection; lab 0:
# site.yml and the playbooks on the lab it converges; lab 2: serve-model.yml and the day-2 operations;
# lab 3: reboot-cluster.yml's suite), then the secrets scan over every stream's logs (scripts/e2e_streams.sh).
e2e: setup
	PYTEST_ARGS="$(PYTEST_ARGS)" bash scripts/e2e_streams.sh

e2e-wip: setup
	$(BIN)/pytest tests/e2e -q -p no:cacheprovider -rfE -m wip $(PYTEST_ARGS)

# The molecule scenario `default` (molecule/default): create = lab up, converge = site.yml,
# idempotence, verify = testinfra over paramiko, destroy = lab down, with the collection copy molecule
# installs in ~/.ansible removed afterwards (scripts/molecule.sh). With MOLECULE_REUSE_LAB=1 (make
# test, in e2e's lab 1 lane) the steps run one by one on the lab that is up (MOLECULE_STEPS; make test
# leaves idempotence to the converge smoke run that follows), and with MACLAB_KEEP_UP=1 a lab that
# passed stays up for the benchmark smoke runs (make test ends with molecule-destroy).
# The lab molecule uses: $MACLAB_ID's inventory and root (lab/macsim/layout.py names them).
lab_suffix = $(if $(filter-out 0,$(MACLAB_ID)),$(MACLAB_ID))
molecule molecule-destroy: export MACLAB_INVENTORY_NAME = lab$(lab_suffix)
molecule molecule-destroy: export MACLAB_ROOT ?= /var/lib/maclab$(lab_suffix)
molecule: setup
	@bash scripts/molecule.sh

molecule-destroy: setup
	@bash scripts/molecule.sh destroy

# A smoke run of each benchmark on the converged lab that is up, lab $MACLAB_ID (make test: lab 1,
# after molecule's verify):
# each prints its figures and fails only when it breaks, never on a target a busy machine misses.
BENCH_SMOKE := converge doctor reboot bench_accuracy update
bench-smoke: setup
	@for bench in $(BENCH_SMOKE); do \
	  echo "== benchmarks/$$bench --smoke"; \
	  $(BIN)/python benchmarks/$$bench --smoke || exit 1; \
	done
	@echo "== benchmarks/shards --smoke --reuse-lab"
	@$(BIN)/python benchmarks/shards --smoke --reuse-lab

build: setup
	$(BIN)/ansible-galaxy collection build --force --output-path artifacts/

clean: lab-down
	rm -rf artifacts .pytest_cache
