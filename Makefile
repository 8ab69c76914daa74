# The two commands of the README.
.PHONY: run test test-compose validation
run:  ## install what is needed and start the whole service on embedded defaults
	./scripts/serve.sh
test: ## run every test (installs/starts PostgreSQL, Redis, Chromium if missing)
	./scripts/test.sh
test-compose: ## build the images, start docker-compose.yml for real, run a comparison, kill the worker, tear down
	./scripts/test_compose.sh
validation: ## regenerate docs/validation (figures of the engine against the papers)
	.venv/bin/python scripts/validation.py --linux
