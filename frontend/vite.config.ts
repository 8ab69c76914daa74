/// <reference types="vitest/config" />
import { defineConfig } from "vite";
import react from "@vitejs/plugin-react";

// The backend (FastAPI, port 8000) serves the built app from dist/ and the API at /api.
// During `npm run dev` the dev server forwards /api to it.
const backend = process.env.SUBFLOW_API_URL ?? "http://127.0.0.1:8000";

// `vite build --mode e2e` (npm run build:e2e) is the test build: `.env.e2e` sets VITE_E2E_HOOKS=1,
// which compiles in the test hook `window.__subflowCy`, and it goes to dist-e2e/ so that the
// production build in dist/ (no hook; scripts/check-bundle.sh) is never replaced by it.
export default defineConfig(({ mode }) => ({
  plugins: [react()],
  server: {
    host: "127.0.0.1",
    port: 5173,
    proxy: { "/api": { target: backend, changeOrigin: false } },
  },
  build: {
    outDir: mode === "e2e" ? "dist-e2e" : "dist",
    emptyOutDir: true,
    sourcemap: true,
    chunkSizeWarningLimit: 1200,
  },
  test: {
    environment: "node",
    include: ["src/**/*.test.ts", "src/**/*.test.tsx"],
  },
}));
