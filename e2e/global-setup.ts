/**
 * Before any spec: the service answers and serves the e2e test build of the frontend
 * (`npm run build:e2e` → frontend/dist-e2e, served with FRONTEND_DIST; scripts/test.sh does both).
 * Specs read the cytoscape instance through `window.__subflowCy`, which only that build has;
 * against a production build every spec would fail on an undefined hook, so fail once, clearly.
 */
import type { FullConfig } from "@playwright/test";

export default async function globalSetup(config: FullConfig): Promise<void> {
  const baseURL = config.projects[0]?.use.baseURL ?? "http://127.0.0.1:8000";
  const index = await fetch(new URL("/", baseURL));
  if (!index.ok) throw new Error(`GET ${baseURL}/ answered ${index.status}: is the service running and its frontend built?`);
  const html = await index.text();
  const scripts = [...html.matchAll(/<script[^>]+src="([^"]+\.js)"/g)].map((m) => m[1]!);
  if (scripts.length === 0) throw new Error(`GET ${baseURL}/ has no script: not the built frontend`);
  for (const src of scripts) {
    const js = await fetch(new URL(src, baseURL));
    if (js.ok && (await js.text()).includes("__subflowCy")) return;
  }
  throw new Error(
    `the frontend served at ${baseURL} is not the e2e test build (no window.__subflowCy hook): ` +
      "build it with `cd frontend && npm run build:e2e` and serve it with FRONTEND_DIST=frontend/dist-e2e (scripts/test.sh does)",
  );
}
