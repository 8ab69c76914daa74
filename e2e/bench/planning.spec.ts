/**
 * Time to first routes overlay on Kdl, reported and not asserted (`npm run bench`):
 * Kdl (Topology Zoo, 754 nodes, 567 762 ordered pairs) imported through the API, the routes panel set
 * to all pairs (a summary: per-link route counts and the costliest routes, computed by the worker with
 * progress), and the time from the click on "Compute routes" to every link of the map carrying the
 * overlay. Named peer in the same run: the same request made by the test over REST (submit, poll
 * `GET /api/jobs/{id}` every 250 ms as the page does, until succeeded), without the browser.
 * Figures are printed and written to test-results/bench/planning.json.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { expect, test } from "@playwright/test";
import { SHARED_DIR, uniqueName } from "../tests/helpers";

const KDL = path.join(SHARED_DIR, "data", "topology-zoo", "Kdl.graphml");
const figures: Record<string, unknown> = {};

function report(key: string, value: unknown) {
  figures[key] = value;
  console.log(`[bench] ${key}: ${JSON.stringify(value)}`);
  const out = path.resolve(__dirname, "..", "test-results", "bench", "planning.json");
  fs.mkdirSync(path.dirname(out), { recursive: true });
  fs.writeFileSync(out, JSON.stringify(figures, null, 2));
}

test("Kdl all-pairs routes: time to first overlay", async ({ page, request }) => {
  if (!fs.existsSync(KDL)) throw new Error(`${KDL} missing: set SUBFLOW_SHARED_DIR to the shared data folder`);
  const res = await request.post("/api/imports", {
    multipart: { file: { name: "Kdl.graphml", mimeType: "application/xml", buffer: fs.readFileSync(KDL) }, name: uniqueName("kdl-routes") },
  });
  if (res.status() !== 201) throw new Error(`could not import Kdl: ${res.status()} ${await res.text()}`);
  const { id: sid, scenario } = (await res.json()) as { id: string; scenario: { links: unknown[] } };
  const links = scenario.links.length;

  for (const metric of ["hop", "tcpbp"]) {
    // peer: the API alone
    const rest: number[] = [];
    for (let i = 0; i < 2; i++) {
      const t0 = Date.now();
      const job = await (await request.post(`/api/scenarios/${sid}/routes`, { data: { metric, summary_limit: 100, background: true } })).json();
      for (;;) {
        const j = await (await request.get(`/api/jobs/${job.job_id}`)).json();
        if (j.status === "succeeded") break;
        if (j.status === "failed") throw new Error(j.error);
        await new Promise((r) => setTimeout(r, 250));
      }
      rest.push(Date.now() - t0);
    }
    // the page
    const browser: number[] = [];
    let progressSeen = 0;
    for (let i = 0; i < 2; i++) {
      await page.goto(`/scenarios/${sid}`);
      await page.waitForFunction(() => document.querySelector('[data-testid="geo-map"]')?.getAttribute("data-node-count") === "754", null, { timeout: 60_000 });
      await page.getByRole("tab", { name: "Plan: routes and allocation" }).click();
      const panel = page.getByTestId("routes-panel");
      await panel.getByLabel("Metric").selectOption(metric);
      await panel.getByLabel("Pairs", { exact: true }).selectOption("all");
      const t0 = await page.evaluate(() => performance.now());
      await panel.getByRole("button", { name: "Compute routes" }).click();
      const seen = await page.evaluate(
        (n) =>
          new Promise<{ t: number; progress: number }>((resolve) => {
            let progress = 0;
            const tick = () => {
              const bar = document.querySelector('[data-testid="routes-progress"] [role="progressbar"]');
              const v = Number(bar?.getAttribute("aria-valuenow") ?? 0);
              if (v > 0 && v < 100) progress += 1;
              const styles = (window as unknown as { __subflowMap: any }).__subflowMap.linkStyles() as Record<string, { label: string | null }>;
              const drawn = Object.values(styles);
              // every link drawn carries the overlay (a link the map cannot draw is not waited for)
              if (drawn.length >= n * 0.99 && drawn.every((s) => s.label !== null)) resolve({ t: performance.now(), progress });
              else requestAnimationFrame(tick);
            };
            tick();
          }),
        links,
      );
      browser.push(Math.round(seen.t - t0));
      progressSeen += seen.progress;
      await expect(panel.getByTestId("route-summary")).toBeVisible();
    }
    report(`kdl_all_pairs_${metric}`, {
      first_overlay_ms: browser,
      peer_rest_job_ms: rest,
      ratio_best: Math.round((Math.min(...browser) / Math.min(...rest)) * 100) / 100,
      frames_with_partial_progress: progressSeen,
    });
  }
});
