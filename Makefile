# The two commands of the README.
.PHONY: run test test-compose validation ns3-reference
run:  ## install what is needed and start the whole service on embedded defaults
	./scripts/serve.sh
test: ## run every test (installs/starts PostgreSQL, Redis, Chromium if missing)
	./scripts/test.sh
test-compose: ## build the images, start docker-compose.yml for real, run a comparison, kill the worker, tear down
	./scripts/test_compose.sh
validation: ## regenerate docs/validation (figures of the engine against the papers)
	if [ -x $(NS3_VENV)/bin/python ]; then $(MAKE) ns3-reference; fi
	.venv/bin/python scripts/validation.py --linux
# the ns-3 802.11 reference runs in a venv of its own: python3 -m venv .venv-ns3 && .venv-ns3/bin/pip install ns3==3.44.post0
NS3_VENV ?= .venv-ns3
ns3-reference: ## run the ns-3 802.11 cells missing from docs/validation/wifi_ns3_reference.json (FORCE=--force: all)
	nice -n 19 $(NS3_VENV)/bin/python scripts/ns3_wifi_reference.py --jobs 2 $(FORCE)
