#!/usr/bin/env bash
# The test hook `window.__subflowCy` ships only in the e2e test build:
#   1. the production build (vite build) has no `__subflowCy` in its code (.js, .html; the source
#      maps carry the source text, which names the gated hook, and are not checked);
#   2. the test build (vite build --mode e2e, VITE_E2E_HOOKS=1 from .env.e2e) has it, so the check
#      cannot pass because the hook was renamed or moved.
# Both builds go to temporary folders; dist/ and dist-e2e/ are left alone. `npm run check:bundle`.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$HERE"
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
npx --no-install vite build --logLevel error --outDir "$TMP/prod" --emptyOutDir
npx --no-install vite build --logLevel error --mode e2e --outDir "$TMP/e2e" --emptyOutDir
code() { find "$1" -type f \( -name '*.js' -o -name '*.html' \); }
if code "$TMP/prod" | xargs grep -l "__subflowCy"; then
  echo "check-bundle: the production build contains the test hook __subflowCy (files above)" >&2
  exit 1
fi
if ! code "$TMP/e2e" | xargs grep -q "__subflowCy"; then
  echo "check-bundle: the e2e build (--mode e2e) lacks the test hook __subflowCy" >&2
  exit 1
fi
echo "check-bundle: production build has no __subflowCy; the e2e build has it"
