/**
 * End-to-end tests of the running Subflow service (backend + worker + agent +
 * built frontend). They do not start the service: `scripts/test.sh` does.
 *
 *   SUBFLOW_BASE_URL   service address (default http://127.0.0.1:8000)
 *   SUBFLOW_ADMIN_CREDENTIALS  the first admin's `username:password` file (default
 *                      <repo>/.subflow/admin-credentials); the "setup" project signs in with it
 *                      once and every other spec reuses the session (storageState, .auth/)
 *   CHROMIUM_PATH      browser binary (default /usr/bin/chromium, Debian's package;
 *                      Playwright's own browser downloads are not used)
 *   SUBFLOW_BENCH=1    also define the "bench" project (bench/: reported figures, no
 *                      timing assertions); run it with `npm run bench`
 *
 * The service must serve the frontend's e2e test build (`npm run build:e2e` → frontend/dist-e2e,
 * FRONTEND_DIST pointing there), the only build with the test hook `window.__subflowCy`;
 * global-setup.ts checks it first.
 *
 * Step screenshots and failure artifacts go to e2e/test-results/.
 */
import { defineConfig, devices } from "@playwright/test";
import { AUTH_FILE } from "./tests/helpers";

const baseURL = process.env.SUBFLOW_BASE_URL || "http://127.0.0.1:8000";
const executablePath = process.env.CHROMIUM_PATH || "/usr/bin/chromium";

const chromium = {
  ...devices["Desktop Chrome"],
  viewport: { width: 1440, height: 900 },
  launchOptions: {
    executablePath,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  },
};

export default defineConfig({
  // fails at once unless the service serves the e2e test build (window.__subflowCy)
  globalSetup: "./global-setup.ts",
  outputDir: "./test-results",
  timeout: 180_000,
  expect: { timeout: 15_000 },
  fullyParallel: false,
  workers: 1,
  retries: 0,
  forbidOnly: !!process.env.CI,
  reporter: [["list"], ["html", { open: "never", outputFolder: "playwright-report" }]],
  use: {
    baseURL,
    screenshot: "only-on-failure",
    trace: "retain-on-failure",
    viewport: { width: 1440, height: 900 },
    actionTimeout: 15_000,
    navigationTimeout: 30_000,
  },
  projects: [
    { name: "setup", testDir: "./tests", testMatch: /auth\.setup\.ts/, use: chromium },
    { name: "chromium", testDir: "./tests", use: { ...chromium, storageState: AUTH_FILE }, dependencies: ["setup"] },
    ...(process.env.SUBFLOW_BENCH
      ? [{
          name: "bench", testDir: "./bench", outputDir: "./test-results/bench",
          // no trace: its DOM snapshots at each action run on the page's main thread inside the measured times
          // (100-200 ms each on the comparison page)
          use: { ...chromium, storageState: AUTH_FILE, trace: "off" as const, screenshot: "off" as const },
          dependencies: ["setup"], timeout: 600_000,
        }]
      : []),
  ],
});
