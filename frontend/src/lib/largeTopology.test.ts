/**
 * Large topologies: nodes without coordinates are laid out (fCoSE) near their neighbours instead
 * of piling at the origin, labels are decluttered by priority, and node labels keep their screen
 * size at every zoom. A real headless cytoscape instance through the one owner (TopologyCy).
 */
import { describe, expect, it, vi } from "vitest";
import type { ScenarioDocument } from "../api/types";
import { LABEL_PX, TopologyCy } from "../components/topologyCy";
import { declutter, modelExtent, nodeChoices, topologyElements, unplacedIds } from "./topology";

/** A ring of 8 routers 1 km apart around (10 km, 10 km) with coordinates, and 3 without, linked to ring routers. */
function partlyPlaced(): ScenarioDocument {
  const nodes: Record<string, unknown>[] = [];
  const links: Record<string, unknown>[] = [];
  for (let i = 0; i < 8; i++) {
    const a = (i / 8) * 2 * Math.PI;
    nodes.push({ id: `r${i}`, kind: "router", label: `Ring ${i}`, position: { x_m: 10_000 + 1000 * Math.cos(a), y_m: 10_000 + 1000 * Math.sin(a) } });
    links.push({ id: `ring${i}`, src: `r${i}`, dst: `r${(i + 1) % 8}`, bandwidth_mbps: 10 });
  }
  for (let j = 0; j < 3; j++) {
    nodes.push({ id: `u${j}`, kind: "router", label: `Unplaced ${j}` });
    links.push({ id: `lu${j}`, src: `u${j}`, dst: `r${j * 2}`, bandwidth_mbps: 10 });
  }
  return { name: "partly placed", nodes, links, flows: [] } as unknown as ScenarioDocument;
}

describe("nodes without coordinates", () => {
  it("are those without a position, or at exactly the origin when every other wired node is far from it", () => {
    const stored = partlyPlaced();
    for (const n of stored.nodes) if (!n.position) (n as { position?: unknown }).position = { x_m: 0, y_m: 0 };
    expect([...unplacedIds(stored)].sort()).toEqual(["u0", "u1", "u2"]);
    // a router at the origin in the middle of the others is placed there on purpose
    const centred = { name: "c", nodes: [
      { id: "o", kind: "router", position: { x_m: 0, y_m: 0 } },
      ...[0, 1, 2].map((i) => ({ id: `r${i}`, kind: "router", position: { x_m: 100 * Math.cos(i * 2), y_m: 100 * Math.sin(i * 2) } })),
    ] } as unknown as ScenarioDocument;
    expect(unplacedIds(centred).size).toBe(0);
  });
  it("are left out of the drawing's extent (no squeeze towards the origin)", () => {
    const box = modelExtent(partlyPlaced());
    expect(box.xMin).toBeCloseTo(9000, 0);
    expect(box.yMin).toBeCloseTo(9000, 0);
    expect(box.xMax).toBeCloseTo(11000, 0);
  });
  it("are placed by the fCoSE layout within reach of the placed nodes, which stay where they are", () => {
    const doc = partlyPlaced();
    const owner = new TopologyCy({ editable: false, callbacks: () => ({}), tool: () => ({ name: "select" }), scale: () => 1 });
    const topo = topologyElements(doc);
    owner.syncScenario(topo.elements, doc.nodes.length);
    const cy = owner.cy;
    const ring = cy.nodes(".node").not(".unplaced");
    const bb = ring.boundingBox();
    const r0 = topo.elements.find((e) => e.data.id === "r0")!.position!;
    expect(cy.getElementById("r0").position()).toEqual(r0);
    const margin = Math.max(bb.w, bb.h);
    for (let j = 0; j < 3; j++) {
      const p = cy.getElementById(`u${j}`).position();
      expect(p.x, `u${j}.x`).toBeGreaterThan(bb.x1 - margin);
      expect(p.x, `u${j}.x`).toBeLessThan(bb.x2 + margin);
      expect(p.y, `u${j}.y`).toBeGreaterThan(bb.y1 - margin);
      expect(p.y, `u${j}.y`).toBeLessThan(bb.y2 + margin);
    }
    // not piled on one another
    const u = [0, 1, 2].map((j) => cy.getElementById(`u${j}`).position());
    expect(Math.hypot(u[0]!.x - u[1]!.x, u[0]!.y - u[1]!.y)).toBeGreaterThan(1);
    // a later sync (an edit elsewhere) leaves them where the layout put them
    const before = cy.getElementById("u1").position();
    owner.syncScenario(topologyElements(doc, topo.scale).elements, doc.nodes.length);
    expect(cy.getElementById("u1").position()).toEqual(before);
    owner.destroy();
  });
  it("keep node labels at a fixed screen size whatever the zoom", () => {
    const doc = partlyPlaced();
    const owner = new TopologyCy({ editable: false, callbacks: () => ({}), tool: () => ({ name: "select" }), scale: () => 1 });
    owner.syncScenario(topologyElements(doc).elements, doc.nodes.length);
    for (const z of [0.25, 1, 4]) {
      owner.cy.zoom(z);
      owner.sizeLabels();
      const fs = parseFloat(String(owner.cy.getElementById("r1").style("font-size")));
      expect(fs * z).toBeCloseTo(LABEL_PX, 5);
    }
    owner.destroy();
  });
});

describe("label declutter", () => {
  it("keeps the higher-priority label of two that overlap, and every label that is free", () => {
    const kept = declutter([
      { id: "low", x: 100, y: 100, w: 60, h: 18, priority: 1 },
      { id: "high", x: 120, y: 105, w: 60, h: 18, priority: 9 },
      { id: "far", x: 400, y: 100, w: 60, h: 18, priority: 0 },
      { id: "edge", x: 181, y: 100, w: 60, h: 18, priority: 0 },
    ]);
    expect([...kept].sort()).toEqual(["edge", "far", "high"]);
  });
  it("breaks priority ties by id, so the result does not depend on the input order", () => {
    const a = { id: "a", x: 0, y: 0, w: 50, h: 10, priority: 1 };
    const b = { id: "b", x: 10, y: 0, w: 50, h: 10, priority: 1 };
    expect([...declutter([b, a])]).toEqual(["a"]);
    expect([...declutter([a, b])]).toEqual(["a"]);
  });
});

describe("node choices of a 754-node topology (Kdl-sized)", () => {
  it("sort with one shared collator, never a collator per comparison, in natural order", () => {
    const doc = { name: "kdl", nodes: Array.from({ length: 754 }, (_, i) => ({ id: `n${753 - i}`, kind: "router", label: `City ${(i * 37) % 754}` })) } as never;
    const spy = vi.spyOn(String.prototype, "localeCompare");
    const t0 = performance.now();
    const choices = nodeChoices(doc);
    const ms = performance.now() - t0;
    expect(spy, "localeCompare builds a collator per call: ~0.7 s for Kdl in the editor").not.toHaveBeenCalled();
    spy.mockRestore();
    expect(choices.slice(0, 3).map((c) => c.text)).toEqual(["City 0 (n753)", "City 1 (n162)", "City 2 (n325)"]);
    expect(choices[choices.length - 1]!.text).toBe("City 753 (n590)");
    console.log(`nodeChoices(754 nodes): ${ms.toFixed(1)} ms`);
  });
});
