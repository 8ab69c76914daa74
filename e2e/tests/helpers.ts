import * as fs from "node:fs";
import * as path from "node:path";
import type { Page, TestInfo } from "@playwright/test";

export const REPO_ROOT = path.resolve(__dirname, "..", "..");

/**
 * The project's shared data folder: the repository's sibling `shared/` (never copied into the
 * repository); override with SUBFLOW_SHARED_DIR (e.g. from a git worktree elsewhere).
 */
export const SHARED_DIR = process.env.SUBFLOW_SHARED_DIR || path.resolve(REPO_ROOT, "..", "shared");

/** The signed-in admin's browser state (session cookie), written by auth.setup.ts. */
export const AUTH_FILE = path.resolve(__dirname, "..", ".auth", "admin.json");

/**
 * The first admin's credentials: the `username:password` file `make run` writes to its data
 * folder (SUBFLOW_ADMIN_CREDENTIALS; default `<repo>/.subflow/admin-credentials`).
 */
export function adminCredentials(): { username: string; password: string } {
  const file = process.env.SUBFLOW_ADMIN_CREDENTIALS || path.join(REPO_ROOT, ".subflow", "admin-credentials");
  const line = fs.readFileSync(file, "utf8").trim();
  const colon = line.indexOf(":");
  return { username: line.slice(0, colon), password: line.slice(colon + 1) };
}

/** Where step screenshots go: e2e/test-results/screenshots (override: SUBFLOW_E2E_SCREENSHOTS). */
export const SCREENSHOT_DIR =
  process.env.SUBFLOW_E2E_SCREENSHOTS || path.resolve(__dirname, "..", "test-results", "screenshots");

/** Save a full-page screenshot of the current step and attach it to the report. */
export async function snap(page: Page, testInfo: TestInfo, step: string): Promise<string> {
  fs.mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const slug = testInfo.title.replace(/[^A-Za-z0-9]+/g, "-").replace(/^-|-$/g, "").toLowerCase();
  const file = path.join(SCREENSHOT_DIR, `${slug}--${step}.png`);
  await page.screenshot({ path: file, fullPage: true });
  await testInfo.attach(step, { path: file, contentType: "image/png" });
  return file;
}

/** Write `doc` (an example scenario, renamed) to the test's output folder; returns the file path. */
export function writeScenario(testInfo: TestInfo, example: string, name: string, edit?: (doc: any) => void): string {
  const doc = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, "examples", example), "utf8"));
  doc.name = name;
  edit?.(doc);
  const file = testInfo.outputPath(`${example.replace(/\.json$/, "")}-${Date.now()}.json`);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, JSON.stringify(doc, null, 2));
  return file;
}

/** Unique scenario name so reruns against the same database never collide. */
export function uniqueName(base: string): string {
  return `${base} e2e ${new Date().toISOString().replace(/[:.]/g, "-")}-${Math.floor(Math.random() * 1e4)}`;
}

/** axe-core on the page as it is: every violation, and the serious or critical ones (id, impact, first nodes). */
export async function seriousAxeViolations(page: Page) {
  const { AxeBuilder } = await import("@axe-core/playwright");
  const results = await new AxeBuilder({ page }).analyze();
  return {
    all: results.violations,
    bad: results.violations
      .filter((v) => v.impact === "serious" || v.impact === "critical")
      .map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.slice(0, 5).map((n) => n.target.join(" ")) })),
  };
}
