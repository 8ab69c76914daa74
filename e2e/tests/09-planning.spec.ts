/**
 * Planning in the browser: routes drawn on the topology (cytoscape and the
 * Leaflet map), Flow Deviation utilisation colours, planned vs measured rates of an mptcp-fdm run.
 * Every check compares what is drawn with what the REST API answers for the same request.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { expect, test, type APIRequestContext, type Page, type TestInfo } from "@playwright/test";
import { SHARED_DIR, snap, uniqueName, writeScenario } from "./helpers";

const GEANT = path.join(SHARED_DIR, "data", "topology-zoo", "Geant2012.graphml");
/** The rank colours the routes panel documents (#1 blue, #2 red, #3 green). */
const RANK = ["#2563eb", "#dc2626", "#059669"];

type Doc = { links: { id: string; src: string; dst: string }[]; nodes: { id: string; label?: string }[] };
type Path = { nodes: string[]; hops: number; delay_ms: number; loss: number; cost: number };
type Routes = { routes: { src: string; dst: string; reachable: boolean; paths: Path[] }[]; greedy_differs: { src: string; dst: string; exact_nodes: string[]; greedy_nodes: string[] }[] };

async function store(request: APIRequestContext, testInfo: TestInfo, example: string): Promise<{ sid: string; doc: Doc }> {
  const file = writeScenario(testInfo, example, uniqueName(example.replace(".json", "")));
  const r = await request.post("/api/scenarios", { data: JSON.parse(fs.readFileSync(file, "utf8")) });
  expect(r.status(), await r.text()).toBe(201);
  const body = await r.json();
  return { sid: body.id, doc: body.scenario };
}

/** The link id joining a and b (either direction; the first one, as the overlay draws it). */
function linkOf(doc: Doc, a: string, b: string): string | undefined {
  return doc.links.find((l) => (l.src === a && l.dst === b) || (l.src === b && l.dst === a))?.id;
}

/** Expected overlay: link id → {colour of the best rank crossing it, ranks "#1 #2"}. */
function expectedOverlay(doc: Doc, paths: { rank: number; nodes: string[]; tag?: string }[]): Record<string, { color: string; label: string }> {
  const out: Record<string, { color: string; tags: string[] }> = {};
  for (const p of [...paths].sort((a, b) => a.rank - b.rank)) {
    for (let i = 1; i < p.nodes.length; i++) {
      const id = linkOf(doc, p.nodes[i - 1]!, p.nodes[i]!);
      if (!id) continue;
      out[id] ??= { color: RANK[p.rank]!, tags: [] };
      const tag = p.tag ?? `#${p.rank + 1}`;
      if (!out[id]!.tags.includes(tag)) out[id]!.tags.push(tag);
    }
  }
  return Object.fromEntries(Object.entries(out).map(([id, v]) => [id, { color: v.color, label: v.tags.join(" ") }]));
}

/** The cytoscape overlay as drawn: link id → colour and label of every link with the route / util class. */
async function drawnCy(page: Page, cls: "route" | "util"): Promise<Record<string, { color: string; label: string }>> {
  return page.evaluate((c) => {
    const cy = (window as unknown as { __subflowCy: any }).__subflowCy;
    const out: Record<string, { color: string; label: string }> = {};
    cy.edges(`.${c}`).forEach((e: any) => {
      out[String(e.id()).replace(/^link:/, "")] = { color: e.data("color"), label: e.data("label") };
    });
    return out;
  }, cls);
}

async function openEditor(page: Page, sid: string): Promise<void> {
  await page.goto(`/scenarios/${sid}`);
  // the planning panels sit beside the canvas, in the side column's Plan tab
  await page.getByRole("tab", { name: "Plan: routes and allocation" }).click();
  await expect(page.getByTestId("routes-panel")).toBeVisible({ timeout: 30_000 });
}

test("routes overlay on naval-direct-move: several pairs drawn as the REST routes", async ({ page, request }, testInfo) => {
  const { sid, doc } = await store(request, testInfo, "naval-direct-move.json");
  await openEditor(page, sid);
  await expect(page.getByTestId("topology")).toHaveAttribute("data-rendered", "true");
  const panel = page.getByTestId("routes-panel");
  await panel.getByLabel("Metric").selectOption("delay");
  await panel.getByLabel("Pairs", { exact: true }).selectOption("several");
  // (sta2 → uav would cross the host ship, which carries no transit traffic: unreachable; docs/radio.md)
  await panel.getByLabel(/^Pairs \(SRC:DST/).fill("sta1:ship, sta2:ship, uav:ship");
  await panel.getByRole("button", { name: "Compute routes" }).click();
  const pairs = [["sta1", "ship"], ["sta2", "ship"], ["uav", "ship"]];
  const rest = (await (await request.post(`/api/scenarios/${sid}/routes`, { data: { metric: "delay", pairs } })).json()) as Routes;
  expect(rest.routes.every((r) => r.reachable)).toBe(true);
  // the table holds the REST paths, hops, delay and cost
  const table = panel.getByTestId("routes-table");
  for (const r of rest.routes) {
    const row = table.locator(`tr[data-pair="${r.src}>${r.dst}"][data-rank="1"]`);
    await expect(row).toHaveAttribute("data-path", r.paths[0]!.nodes.join(" "));
    await expect(row).toContainText(String(r.paths[0]!.hops));
    await expect(row).toContainText(String(Number(r.paths[0]!.delay_ms.toPrecision(4))));
  }
  // the routes are the network's at the run's start, and the panel says where over the run they change: at 63 s
  // the stations reach the UAV's range and route through it (the REST windows; the run's plan agrees,
  // tests/unit/analysis/test_network_over_time.py)
  const windows = (rest as unknown as { windows: { t_start_s: number; routes: { paths: { nodes: string[] }[] }[] }[] }).windows;
  expect(windows.map((w) => w.t_start_s)).toEqual([0, 63]);
  expect(windows[1]!.routes[0]!.paths[0]!.nodes).toEqual(["sta1", "uav", "ship"]);
  await expect(panel.getByTestId("routes-time")).toHaveText("At the run's start (t = 0 of 100 s); the answer changes at 63 s.");
  // drawn: exactly the links of the REST paths, in the rank-1 colour
  const want = expectedOverlay(doc, rest.routes.map((r) => ({ rank: 0, nodes: r.paths[0]!.nodes })));
  expect(Object.keys(want).length).toBeGreaterThan(2);
  await expect.poll(() => drawnCy(page, "route")).toEqual(want);
  await snap(page, testInfo, "naval-routes");
  // clearing the overlay gives the links their own labels back
  await panel.getByRole("button", { name: "Clear overlay" }).click();
  await expect.poll(() => drawnCy(page, "route")).toEqual({});
});

test("greedy TCPBP against the exact optimum: both routes listed and drawn (hsln-10node s2 → s6)", async ({ page, request }, testInfo) => {
  const { sid, doc } = await store(request, testInfo, "hsln-10node.json");
  await openEditor(page, sid);
  const panel = page.getByTestId("routes-panel");
  await panel.getByLabel("Metric").selectOption("tcpbp");
  await panel.getByLabel("From").selectOption("s2");
  await panel.getByLabel("To").selectOption("s6");
  await panel.getByRole("button", { name: "Compute routes" }).click();
  const rest = (await (await request.post(`/api/scenarios/${sid}/routes`, { data: { metric: "tcpbp", pairs: [["s2", "s6"]] } })).json()) as Routes;
  expect(rest.greedy_differs.length).toBe(1);
  const g = rest.greedy_differs[0]!;
  const diff = panel.getByTestId("greedy-differs").locator('tr[data-pair="s2>s6"]');
  // routes read as the canvas names the nodes (hsln-10node's switches are labelled "OVS 2" …), not by id
  const named = (ids: string[]) => ids.map((id) => doc.nodes.find((n) => n.id === id)?.label || id).join(" → ");
  expect(named(g.exact_nodes)).toMatch(/^OVS \d+ → /);
  await expect(diff).toContainText(named(g.exact_nodes));
  await expect(diff).toContainText(named(g.greedy_nodes));
  await diff.getByRole("button", { name: "Draw both" }).click();
  const want = expectedOverlay(doc, [
    { rank: 0, nodes: g.exact_nodes, tag: "exact" },
    { rank: 1, nodes: g.greedy_nodes, tag: "greedy" },
  ]);
  await expect.poll(() => drawnCy(page, "route")).toEqual(want);
  // the two routes differ somewhere: some link is greedy only (red)
  expect(Object.values(want).some((v) => v.color === RANK[1])).toBe(true);
  await snap(page, testInfo, "greedy-vs-exact");
});

test("routes overlay on imported Geant2012 (map): k = 3 ranked paths, then all pairs through the worker", async ({ page, request }, testInfo) => {
  expect(fs.existsSync(GEANT), `${GEANT} is not there (set SUBFLOW_SHARED_DIR)`).toBe(true);
  const imported = await request.post("/api/imports", {
    multipart: { file: { name: "Geant2012.graphml", mimeType: "application/xml", buffer: fs.readFileSync(GEANT) }, name: uniqueName("geant-routes") },
  });
  expect(imported.status(), await imported.text()).toBe(201);
  const { id: sid, scenario: doc } = (await imported.json()) as { id: string; scenario: Doc & { nodes: { id: string }[] } };
  await openEditor(page, sid);
  const map = page.getByTestId("geo-map");
  await expect(map).toHaveAttribute("data-node-count", String(doc.nodes.length));
  const src = doc.nodes[0]!.id;
  const dst = doc.nodes[doc.nodes.length - 1]!.id;
  const panel = page.getByTestId("routes-panel");
  await panel.getByLabel("Metric").selectOption("delay");
  await panel.getByLabel("From").selectOption(src);
  await panel.getByLabel("To").selectOption(dst);
  await panel.getByLabel("Paths per pair (k)").fill("3");
  await panel.getByRole("button", { name: "Compute routes" }).click();
  const rest = (await (await request.post(`/api/scenarios/${sid}/routes`, { data: { metric: "delay", k: 3, pairs: [[src, dst]] } })).json()) as Routes;
  const paths = rest.routes[0]!.paths;
  expect(paths.length).toBe(3);
  await expect(panel.getByTestId("routes-table").locator("tr[data-rank]")).toHaveCount(3);
  const want = expectedOverlay(doc, paths.map((p, i) => ({ rank: i, nodes: p.nodes })));
  const drawnMap = () =>
    page.evaluate(() => {
      const styles = (window as unknown as { __subflowMap: any }).__subflowMap.linkStyles() as Record<string, { color: string; label: string | null }>;
      return Object.fromEntries(Object.entries(styles).filter(([, s]) => s.label !== null).map(([id, s]) => [id, { color: s.color, label: s.label }]));
    });
  await expect.poll(drawnMap).toEqual(want);
  // ranked and distinguishable: paths 2 and 3 leave path 1 somewhere, in their own colours
  expect(new Set(Object.values(want).map((v) => v.color)).size).toBeGreaterThan(1);
  await snap(page, testInfo, "geant-k3");

  // all pairs: the worker computes them, the page shows the pairs done and then the overlay
  await panel.getByLabel("Pairs", { exact: true }).selectOption("all");
  await panel.getByLabel("Paths per pair (k)").fill("1");
  await panel.getByRole("button", { name: "Compute routes" }).click();
  const n = doc.nodes.length;
  await expect(panel.getByText(`First 300 of ${n * (n - 1)} pairs shown.`)).toBeVisible({ timeout: 60_000 });
  const all = (await (await request.post(`/api/scenarios/${sid}/routes`, { data: { metric: "delay" } })).json()) as Routes;
  const wantAll = expectedOverlay(doc, all.routes.filter((r) => r.reachable).map((r) => ({ rank: 0, nodes: r.paths[0]!.nodes })));
  const drawn = await drawnMap();
  expect(Object.keys(drawn).sort()).toEqual(Object.keys(wantAll).sort());
  expect(Object.values(drawn).every((v) => v.color === RANK[0])).toBe(true);
  await snap(page, testInfo, "geant-all-pairs");
});

/** The utilisation colours the allocation panel's legend documents. */
function utilColor(u: number): string {
  if (!(u > 0)) return "#94a3b8";
  if (u < 0.5) return "#16a34a";
  if (u < 0.8) return "#ca8a04";
  if (u < 1) return "#ea580c";
  return "#dc2626";
}

test("FDM utilisation colours on naval-direct-move match the REST allocation", async ({ page, request }, testInfo) => {
  const { sid, doc } = await store(request, testInfo, "naval-direct-move.json");
  await openEditor(page, sid);
  const panel = page.getByTestId("allocation-panel");
  await panel.getByLabel("Demand scale").fill("7");
  await panel.getByRole("button", { name: "Allocate" }).click();
  await expect(panel.getByTestId("allocation-result")).toBeVisible();
  const alloc = await (await request.post(`/api/scenarios/${sid}/allocations`, { data: { method: "fdm", demand_scale: 7 } })).json();
  const util: Record<string, number> = {};
  for (const l of alloc.links as { link: string; utilization: number }[]) util[l.link] = Math.max(util[l.link] ?? 0, l.utilization);
  const want = Object.fromEntries(doc.links.map((l) => [l.id, { color: utilColor(util[l.id] ?? 0), label: `${Math.round((util[l.id] ?? 0) * 100)}%` }]));
  // two 21 Mbit/s demands over one 50 Mbit/s SATCOM downlink: 84 % there, 42 % on each station's link
  expect(want["satcom-ship"]).toEqual({ color: "#ea580c", label: "84%" });
  expect(want["sta1-satcom"]).toEqual({ color: "#16a34a", label: "42%" });
  await expect.poll(() => drawnCy(page, "util")).toEqual(want);
  await expect(panel.getByTestId("alloc-mean-delay")).toContainText(String(Number((alloc.mean_delay_s * 1000).toPrecision(4))));
  await expect(panel.getByTestId("alloc-objective")).toContainText(String(Number(alloc.sum_flow_over_residual.toPrecision(4))));
  await expect(panel.getByRole("list", { name: "Utilisation legend" })).toContainText("80–100 %");
  for (const d of alloc.demands as { id: string; paths: { nodes: string[]; rate: number }[] }[]) {
    await expect(panel.locator(`tr[data-demand="${d.id}"]`).first()).toHaveAttribute("data-path", d.paths[0]!.nodes.join(" "));
  }
  await snap(page, testInfo, "fdm-utilisation");
  // demands that do not fit are tempered, and the panel says so
  await panel.getByLabel("Demand scale").fill("10");
  await panel.getByRole("button", { name: "Allocate" }).click();
  const big = await (await request.post(`/api/scenarios/${sid}/allocations`, { data: { method: "fdm", demand_scale: 10 } })).json();
  expect(big.tempered).toBeLessThan(1);
  await expect(panel.getByTestId("alloc-tempered")).toContainText(String(Number(big.tempered.toPrecision(4))));
});

test("planned vs measured on an mptcp-fdm run: planned lines and the link table are the REST plan", async ({ page, request }, testInfo) => {
  const { sid } = await store(request, testInfo, "naval-direct-move.json");
  const r = await request.post(`/api/scenarios/${sid}/comparisons`, { data: { strategies: ["mptcp-fdm", "mptcp"], engine: "fluid" } });
  expect(r.status(), await r.text()).toBe(202);
  const cid = (await r.json()).id as string;
  await expect.poll(async () => (await (await request.get(`/api/scenarios/${sid}/comparisons/${cid}`)).json()).status, { timeout: 90_000 }).toBe("succeeded");
  const result = (await (await request.get(`/api/scenarios/${sid}/comparisons/${cid}`)).json()).result;
  await page.goto(`/scenarios/${sid}/comparisons/${cid}`);
  const section = page.getByTestId("planned-vs-measured");
  await expect(section).toBeVisible({ timeout: 30_000 });
  // only mptcp-fdm has a plan
  await expect(section.locator("[data-strategy]")).toHaveCount(1);
  const plan = result.strategies["mptcp-fdm"].planned as { subflows: { subflow: string; planned_mbps: (number | null)[] }[] };
  expect(plan.subflows.length).toBe(4);
  const chart = section.getByTestId("planned-chart");
  for (const s of plan.subflows) {
    const max = Math.max(0, ...s.planned_mbps.map((v) => v ?? 0));
    await expect(chart.locator(`path[data-kind="planned"][data-subflow="${s.subflow}"]`)).toHaveAttribute("data-max-mbps", String(max));
    const measured = result.strategies["mptcp-fdm"].flows.flatMap((f: any) => f.subflows).find((x: any) => x.id === s.subflow).throughput_mbps as number[];
    await expect(chart.locator(`path[data-kind="measured"][data-subflow="${s.subflow}"]`)).toHaveAttribute("data-max-mbps", String(Math.max(0, ...measured)));
  }
  // the UAV subflows are planned only after the handover (63 s): a rate > 0, below the 1 Mbit/s link
  const uav = plan.subflows.find((s) => s.subflow === "f1/uav")!;
  expect(uav.planned_mbps[10]).toBeNull();
  expect(uav.planned_mbps[80]!).toBeGreaterThan(0.1);
  // window 70–90 s: the table is GET .../planned for that window
  await section.getByLabel("Window from (s)").fill("70");
  await section.getByLabel("to (s)").fill("90");
  const table = section.getByTestId("planned-links");
  await expect(table).toHaveAttribute("data-t0", "70");
  await expect(table).toHaveAttribute("data-t1", "90");
  const windowed = await (await request.get(`/api/scenarios/${sid}/comparisons/${cid}/planned?strategy=mptcp-fdm&t0_s=70&t1_s=90`)).json();
  for (const l of windowed.links as { link: string; planned_utilization: number; measured_utilization: number }[]) {
    const row = table.locator(`tr[data-link="${l.link}"]`);
    await expect(row).toHaveAttribute("data-planned", String(l.planned_utilization));
    await expect(row).toHaveAttribute("data-measured", String(l.measured_utilization));
  }
  const uavLink = (windowed.links as { link: string; planned_utilization: number }[]).find((l) => l.link === "uav-ship")!;
  expect(uavLink.planned_utilization).toBeGreaterThan(0.1);
  await section.scrollIntoViewIfNeeded();
  await snap(page, testInfo, "planned-vs-measured");
});
