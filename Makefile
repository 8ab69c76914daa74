# The two commands of the README.
.PHONY: run test test-compose validation ns3-reference mininet-wifi-testbed
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
# Mininet-WiFi in a Debian VM (mmdebstrap + QEMU), built from the user's source trees, beside fluid and linux:
#   make mininet-wifi-testbed MININET_SRC=~/src/mininet MININET_WIFI_SRC=~/src/mininet-wifi \
#        WMEDIUMD_SRC=~/src/wmediumd HWSIM_MGMT_SRC=~/src/mac80211_hwsim_mgmt [EXAMPLES="naval-direct-move:sptcp"]
mininet-wifi-testbed: ## run the examples on Mininet-WiFi in a VM and print them next to fluid and linux (docs/validation)
	@test -n "$(MININET_SRC)" -a -n "$(MININET_WIFI_SRC)" -a -n "$(WMEDIUMD_SRC)" -a -n "$(HWSIM_MGMT_SRC)" || \
	  { echo "set MININET_SRC, MININET_WIFI_SRC, WMEDIUMD_SRC and HWSIM_MGMT_SRC to the source trees"; exit 2; }
	.venv/bin/python -m subflow_testbeds.vm.mininet_wifi --mininet "$(MININET_SRC)" \
	  --mininet-wifi "$(MININET_WIFI_SRC)" --wmediumd "$(WMEDIUMD_SRC)" --hwsim-mgmt "$(HWSIM_MGMT_SRC)" \
	  $(foreach e,$(EXAMPLES),--example $(e)) --json docs/validation/mininet_wifi_vm.json
