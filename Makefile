# macops.cluster: one entry point for people and CI.
#   make lab    the main job: lab cluster up, site.yml against it, the report
#   make test   every test: lint, collection checks, sanity, unit, e2e, molecule
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

.PHONY: setup lab lab-up lab-down test lint collection-checks docs ee changelog sanity unit e2e e2e-wip molecule \
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

lab-down:
	@if [ -x lab/maclab ]; then lab/maclab down; fi

# e2e leaves its converged lab up for molecule (MACLAB_KEEP_UP), which converges it again, checks
# idempotence and verifies instead of building a second lab from bare (the e2e suite has converged one
# from bare already); molecule's destroy takes it down. A failed e2e run takes it down itself.
test: setup
	@$(MAKE) --no-print-directory lint
	@$(MAKE) --no-print-directory collection-checks
	@$(MAKE) --no-print-directory sanity
	@$(MAKE) --no-print-directory unit
	@MACLAB_KEEP_UP=1 $(MAKE) --no-print-directory e2e || { $(MAKE) --no-print-directory lab-down; exit 1; }
	@MOLECULE_REUSE_LAB=1 $(MAKE) --no-print-directory molecule

lint: setup
	bash scripts/lint.sh

# What the collection ships besides its code, none of it using the lab: the changelog (lint, and
# the next release previewed on a copy), the execution environment's context
# (docs/awx/execution-environment.yml) and the documentation site, each failing on a real defect.
collection-checks: setup
	@$(MAKE) --no-print-directory changelog
	@$(MAKE) --no-print-directory ee
	@$(MAKE) --no-print-directory docs

changelog: setup
	bash scripts/changelog.sh

ee: setup
	$(BIN)/python scripts/ee_context.py

docs: setup
	bash scripts/docs_site.sh

sanity: setup
	bash scripts/sanity.sh

unit: setup
	$(BIN)/pytest tests/unit -q -p no:cacheprovider \
	  --cov=plugins/module_utils --cov=plugins/plugin_utils --cov=plugins/filter \
	  --cov-report=term-missing:skip-covered --cov-fail-under=90 $(PYTEST_ARGS)

e2e: setup
	$(BIN)/pytest tests/e2e -q -p no:cacheprovider -rfE -m "not wip" --durations=15 $(PYTEST_ARGS)

e2e-wip: setup
	$(BIN)/pytest tests/e2e -q -p no:cacheprovider -rfE -m wip $(PYTEST_ARGS)

# The molecule scenario `default` (molecule/default): create = lab up, converge = site.yml,
# idempotence, verify = testinfra over paramiko, destroy = lab down. Uses the lab like e2e does.
# Molecule installs the collection under test into ~/.ansible/collections; a copy left there
# would shadow this working tree for later runs (ansible-lint finds it first), so it goes again
# unless it was there before. (The recipe runs under -e: every failing test is guarded.)
# With MOLECULE_REUSE_LAB=1 (make test, after e2e) the steps run one by one on the lab that is up:
# converge (its create finds the lab up), idempotence, verify, then destroy whatever happened.
INSTALLED_COPY := $(HOME)/.ansible/collections/ansible_collections/macops/cluster
MOLECULE_REUSE_LAB ?=
molecule: setup
	@had=no; if [ -e $(INSTALLED_COPY) ]; then had=yes; fi; \
	rc=0; \
	if [ "$(MOLECULE_REUSE_LAB)" = 1 ]; then \
	  for step in converge idempotence verify; do \
	    $(BIN)/molecule $$step --scenario-name default || { rc=$$?; break; }; \
	  done; \
	  $(BIN)/molecule destroy --scenario-name default || rc=$$?; \
	else \
	  $(BIN)/molecule test --scenario-name default || rc=$$?; \
	fi; \
	if [ "$$had" = no ]; then \
	  rm -rf $(INSTALLED_COPY); rmdir $(dir $(INSTALLED_COPY)) 2>/dev/null || true; \
	fi; \
	exit $$rc

build: setup
	$(BIN)/ansible-galaxy collection build --force --output-path artifacts/

clean: lab-down
	rm -rf artifacts .pytest_cache
