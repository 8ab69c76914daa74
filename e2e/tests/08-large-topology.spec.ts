/**
 * Large topologies: Kdl (Topology Zoo, 754 nodes, some without coordinates)
 * is a geographic import: it opens on the map with every node inside the view, labels at
 * a readable size that do not overlap (decluttered by zoom and priority), and a node can be found by
 * its label, which selects it and centres the map on it. Read through the e2e build's test hook
 * `window.__subflowMap` (geoLeaflet.ts). The planar canvas's declutter is covered by Vitest
 * (frontend/src/lib/largeTopology.test.ts).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { expect, test, type Page } from "@playwright/test";
import { SHARED_DIR, snap, uniqueName } from "./helpers";

const KDL = path.join(SHARED_DIR, "data", "topology-zoo", "Kdl.graphml");

type Drawn = {
  w: number;
  h: number;
  zoom: number;
  nodes: Record<string, [number, number]>;
  outside: string[];
  spanX: number;
  spanY: number;
  shown: number;
  minLabelPx: number;
  overlaps: string[];
  selected: string[];
};

/** The map as drawn: node container points, shown labels, their overlaps (1 px slack for anti-aliasing). */
function drawn(page: Page): Promise<Drawn> {
  return page.evaluate(() => {
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    const hook = (window as any).__subflowMap;
    const map = hook.map;
    const size = map.getSize();
    const nodes = hook.nodes() as Record<string, [number, number]>;
    const pts = Object.entries(nodes).map(([id, ll]) => ({ id, p: map.latLngToContainerPoint(ll) }));
    const outside = pts.filter(({ p }) => p.x < 0 || p.y < 0 || p.x > size.x || p.y > size.y).map((x) => x.id);
    const xs = pts.map(({ p }) => p.x);
    const ys = pts.map(({ p }) => p.y);
    const labels = hook.labels() as Record<string, { shown: boolean; box: [number, number, number, number]; fontPx: number }>;
    const shown = Object.entries(labels).filter(([, l]) => l.shown);
    const overlaps: string[] = [];
    for (let i = 0; i < shown.length; i++) {
      for (let j = i + 1; j < shown.length; j++) {
        const a = shown[i]![1].box;
        const b = shown[j]![1].box;
        if (a[0] < b[2] - 1 && b[0] < a[2] - 1 && a[1] < b[3] - 1 && b[1] < a[3] - 1) overlaps.push(`${shown[i]![0]}/${shown[j]![0]}`);
      }
    }
    return {
      w: size.x,
      h: size.y,
      zoom: map.getZoom(),
      nodes,
      outside,
      spanX: Math.max(...xs) - Math.min(...xs),
      spanY: Math.max(...ys) - Math.min(...ys),
      shown: shown.length,
      minLabelPx: Math.min(...shown.map(([, l]) => l.fontPx)),
      overlaps: overlaps.slice(0, 10),
      selected: hook.selected() as string[],
    };
  });
}

test("Kdl opens on the map with every node inside the view, readable labels that do not overlap, and search by label", async ({ page, request }, testInfo) => {
  expect(fs.existsSync(KDL), `${KDL} (set SUBFLOW_SHARED_DIR)`).toBe(true);
  const graphml = fs.readFileSync(KDL);
  // Kdl has nodes without coordinates: the import lays them out among the others (networkx)
  const xml = graphml.toString("utf8");
  const latKey = /<key attr\.name="Latitude"[^>]*id="([^"]+)"/.exec(xml)?.[1];
  expect(latKey, "Kdl's Latitude key").toBeTruthy();
  const nodeElems = xml.match(/<node [\s\S]*?<\/node>/g) ?? [];
  expect(nodeElems.length).toBe(754);
  expect(nodeElems.filter((n) => !n.includes(`key="${latKey}"`)).length, "Kdl nodes without coordinates").toBeGreaterThan(0);
  const res = await request.post("/api/imports", {
    multipart: { file: { name: "Kdl.graphml", mimeType: "application/xml", buffer: graphml }, name: uniqueName("kdl") },
  });
  expect(res.status(), await res.text()).toBe(201);
  const id = (await res.json()).id as string;
  const doc = (await (await request.get(`/api/scenarios/${id}`)).json()).scenario;
  type DocNode = { id: string; label?: string; position?: { lat_deg?: number; lon_deg?: number } };
  const unplaced = doc.nodes.filter((n: DocNode) => typeof n.position?.lat_deg !== "number" || typeof n.position?.lon_deg !== "number");
  expect(unplaced, "every node has a latitude and longitude").toEqual([]);

  await page.goto(`/scenarios/${id}`);
  const map = page.getByTestId("geo-map");
  await expect(map).toHaveAttribute("data-node-count", String(doc.nodes.length), { timeout: 60_000 });
  await expect(map).toHaveAttribute("data-basemap", "ready");
  // the label declutter runs on the next frame after the view settles
  await expect.poll(async () => (await drawn(page)).shown, { timeout: 10_000 }).toBeGreaterThan(20);
  const first = await drawn(page);
  await snap(page, testInfo, "kdl-map");
  expect(Object.keys(first.nodes).length).toBe(doc.nodes.length);
  expect(first.outside, "nodes outside the view").toEqual([]);
  // not squeezed into a corner by a node far from the others
  expect(Math.max(first.spanX / first.w, first.spanY / first.h)).toBeGreaterThan(0.6);
  expect(first.minLabelPx).toBeGreaterThanOrEqual(11);
  expect(first.overlaps).toEqual([]);
  // not every label fits at the default view: some are hidden (the declutter works, not a blank canvas)
  expect(first.shown).toBeLessThan(doc.nodes.length);

  // zoomed in two levels: the declutter is recomputed, more labels fit and still none overlap
  await page.evaluate(() => {
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    const m = (window as any).__subflowMap.map;
    m.setZoom(m.getZoom() + 2, { animate: false });
  });
  await expect.poll(async () => (await drawn(page)).zoom).toBe(first.zoom + 2);
  await expect.poll(async () => (await drawn(page)).overlaps).toEqual([]);
  const zoomed = await drawn(page);
  expect(zoomed.minLabelPx).toBeGreaterThanOrEqual(11);
  expect(zoomed.shown).toBeGreaterThan(0);
  await snap(page, testInfo, "kdl-zoomed");

  // find a node by its label: it is selected, shown in the inspector, and the map is centred on it
  const labels = doc.nodes.map((n: DocNode) => n.label);
  // a node with a label no other node has, far from where the zoomed view is centred
  const centre = await page.evaluate(() => {
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    const c = (window as any).__subflowMap.map.getCenter();
    return [c.lat, c.lng] as [number, number];
  });
  const candidates = (doc.nodes as DocNode[]).filter((n) => n.label && n.label !== n.id && labels.filter((l: string | undefined) => l === n.label).length === 1);
  const far = (n: DocNode) => Math.abs(n.position!.lat_deg! - centre[0]) + Math.abs(n.position!.lon_deg! - centre[1]);
  const target = candidates.sort((a, b) => far(b) - far(a))[0] as { id: string; label: string };
  const search = page.getByLabel("Find a node by label");
  await search.fill(target.label);
  await search.press("Enter");
  await expect(page.getByRole("heading", { name: `Router ${target.id}` })).toBeVisible();
  await expect.poll(async () => (await drawn(page)).selected).toEqual([target.id]);
  const found = () =>
    page.evaluate((nid) => {
      // eslint-disable-next-line @typescript-eslint/no-explicit-any
      const hook = (window as any).__subflowMap;
      const size = hook.map.getSize();
      const p = hook.map.latLngToContainerPoint(hook.nodes()[nid]);
      return { centred: Math.abs(p.x - size.x / 2) < 2 && Math.abs(p.y - size.y / 2) < 2, label: hook.labels()[nid].shown as boolean };
    }, target.id);
  // centred (the view pans there, animated) with its label shown
  await expect.poll(found).toEqual({ centred: true, label: true });
  await expect.poll(async () => (await drawn(page)).overlaps).toEqual([]);
  await snap(page, testInfo, "kdl-found");
});
