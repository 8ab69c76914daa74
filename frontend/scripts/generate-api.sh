#!/usr/bin/env bash
# Generate the API types from the backend's OpenAPI document:
#   1. dump `subflow_backend.main.app.openapi()` with the repository's virtualenv python
#      to src/api/openapi.json (committed, so CI type-checks without Python);
#   2. openapi-typescript (pinned in package.json) turns it into src/api/schema.d.ts.
# Run after any change to the backend's routes or schemas: `npm run api:generate`.
# `--check` (npm run api:check) regenerates into a temporary folder and fails if the
# committed files differ from what the backend produces now.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ROOT="$(cd "$HERE/.." && pwd)"
PY="${SUBFLOW_PYTHON:-$ROOT/.venv/bin/python}"
OUT="$HERE/src/api"
if [ "${1:-}" = "--check" ]; then
  OUT="$(mktemp -d)"
  trap 'rm -rf "$OUT"' EXIT
fi
"$PY" - "$OUT/openapi.json" <<'PY'
import json, sys
from subflow_backend.main import app
with open(sys.argv[1], "w") as fh:
    json.dump(app.openapi(), fh, indent=1, sort_keys=True)
    fh.write("\n")
PY
cd "$HERE"
npx --no-install openapi-typescript "$OUT/openapi.json" --default-non-nullable false -o "$OUT/schema.d.ts" >/dev/null
if [ "${1:-}" = "--check" ]; then
  status=0
  for f in openapi.json schema.d.ts; do
    if ! diff -q "$OUT/$f" "$HERE/src/api/$f" >/dev/null; then
      echo "src/api/$f is out of date with the backend: run 'npm run api:generate'" >&2
      status=1
    fi
  done
  [ $status = 0 ] && echo "src/api/openapi.json and schema.d.ts match the backend"
  exit $status
fi
echo "wrote src/api/openapi.json and src/api/schema.d.ts"
