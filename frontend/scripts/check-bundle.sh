#!/usr/bin/env bash
# The test hooks `window.__subflowCy` and `window.__subflowMap` ship only in the e2e test build:
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
# window.__subflowCy (cytoscape canvas, topologyCy.ts) and window.__subflowMap (Leaflet map, geoLeaflet.ts)
for hook in __subflowCy __subflowMap; do
  if code "$TMP/prod" | xargs grep -l "$hook"; then
    echo "check-bundle: the production build contains the test hook $hook (files above)" >&2
    exit 1
  fi
  if ! code "$TMP/e2e" | xargs grep -q "$hook"; then
    echo "check-bundle: the e2e build (--mode e2e) lacks the test hook $hook" >&2
    exit 1
  fi
done
echo "check-bundle: production build has no __subflowCy or __subflowMap; the e2e build has both"
