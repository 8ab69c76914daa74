#!/usr/bin/env bash
# Generate the API types from the backend's OpenAPI document:
#   1. dump `subflow_backend.main.app.openapi()` with the repository's virtualenv python
#      to src/api/openapi.json (committed, so CI type-checks without Python);
#   2. openapi-typescript (pinned in package.json) turns it into src/api/schema.d.ts;
#   3. the numeric bounds of every schema property (minimum, maximum, exclusive or not) go to
#      src/api/bounds.json, which the editor's fields read (the whole document is not bundled).
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
"$PY" - "$OUT/openapi.json" "$OUT/bounds.json" <<'PY'
import json, sys
from subflow_backend.main import app
doc = app.openapi()
with open(sys.argv[1], "w") as fh:
    json.dump(doc, fh, indent=1, sort_keys=True)
    fh.write("\n")
KEYS = ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum")
bounds = {}
for name, schema in doc["components"]["schemas"].items():
    for prop, spec in (schema.get("properties") or {}).items():
        b = {}
        for branch in (spec, *spec.get("anyOf", ())):
            b.update({k: branch[k] for k in KEYS if k in branch})
        if b:
            bounds.setdefault(name, {})[prop] = b
with open(sys.argv[2], "w") as fh:
    json.dump(bounds, fh, indent=1, sort_keys=True)
    fh.write("\n")
PY
cd "$HERE"
npx --no-install openapi-typescript "$OUT/openapi.json" --default-non-nullable false -o "$OUT/schema.d.ts" >/dev/null
if [ "${1:-}" = "--check" ]; then
  status=0
  for f in openapi.json schema.d.ts bounds.json; do
    if ! diff -q "$OUT/$f" "$HERE/src/api/$f" >/dev/null; then
      echo "src/api/$f is out of date with the backend: run 'npm run api:generate'" >&2
      status=1
    fi
  done
  [ $status = 0 ] && echo "src/api/openapi.json and schema.d.ts match the backend"
  exit $status
fi
echo "wrote src/api/openapi.json, src/api/schema.d.ts and src/api/bounds.json"
