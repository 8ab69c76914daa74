# The two commands of the README.
.PHONY: run test
run:  ## install what is needed and start the whole service on embedded defaults
	./scripts/serve.sh
test: ## run every test (installs/starts PostgreSQL, Redis, Chromium if missing)
	./scripts/test.sh
