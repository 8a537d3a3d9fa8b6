# macops.cluster: one entry point for people and CI.
#   make lab    the main job: lab cluster up, site.yml against it, the report
#   make test   every test: lint, sanity, unit, e2e, molecule
SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
VENV := .venv
BIN := $(VENV)/bin
export PATH := $(CURDIR)/$(BIN):$(PATH)
export ANSIBLE_CONFIG := $(CURDIR)/ansible.cfg
LAB_NODES ?= 4
PYTEST_ARGS ?=

.PHONY: setup lab lab-up lab-down test lint sanity unit e2e e2e-wip molecule build clean help

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

test: setup
	@$(MAKE) --no-print-directory lint
	@$(MAKE) --no-print-directory sanity
	@$(MAKE) --no-print-directory unit
	@$(MAKE) --no-print-directory e2e
	@$(MAKE) --no-print-directory molecule

lint: setup
	bash scripts/lint.sh

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
INSTALLED_COPY := $(HOME)/.ansible/collections/ansible_collections/macops/cluster
molecule: setup
	@had=no; if [ -e $(INSTALLED_COPY) ]; then had=yes; fi; \
	rc=0; $(BIN)/molecule test --scenario-name default || rc=$$?; \
	if [ "$$had" = no ]; then \
	  rm -rf $(INSTALLED_COPY); rmdir $(dir $(INSTALLED_COPY)) 2>/dev/null || true; \
	fi; \
	exit $$rc

build: setup
	$(BIN)/ansible-galaxy collection build --force --output-path artifacts/

clean: lab-down
	rm -rf artifacts .pytest_cache
