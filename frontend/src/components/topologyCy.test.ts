/**
 * The cytoscape owner of TopologyGraph against a real headless cytoscape instance (no DOM, no
 * renderer): elements created once and then updated by id, the canvas' handlers reporting to the
 * parent's callbacks, and every listener removed when the owner goes away.
 *
 * Expected values are written out from the conventions (graph units = metres × scale, y flipped;
 * link edges are `link:<id>`), never computed by the code under test.
 */
import cytoscape, { type Core } from "cytoscape";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { ScenarioDocument } from "../api/types";
import { topologyElements } from "../lib/topology";
import { attachHandlers, TopologyCy, type TopologyCallbacks, type Tool } from "./topologyCy";

/** 0.5 graph units per metre: (x_m, y_m) is drawn at (x_m / 2, -y_m / 2). */
const SCALE = 0.5;

function scenario(): ScenarioDocument {
  return {
    name: "owner-test",
    nodes: [
      { id: "h1", kind: "host", label: "Host 1", position: { x_m: 0, y_m: 0 } },
      { id: "h2", kind: "host", label: "Host 2", position: { x_m: 200, y_m: 100 } },
      { id: "ap", kind: "access_point", label: "AP", position: { x_m: 400, y_m: 0 }, range_m: 100 },
    ],
    links: [
      { id: "l1", src: "h1", dst: "h2", bandwidth_mbps: 10, delay_ms: 5 },
      { id: "l2", src: "h2", dst: "ap", bandwidth_mbps: 20, delay_ms: 1 },
    ],
    flows: [],
  } as unknown as ScenarioDocument;
}

type Spies = { [K in keyof Required<TopologyCallbacks>]: ReturnType<typeof vi.fn> };

function spies(): Spies {
  return {
    onSelect: vi.fn(),
    onSelectNode: vi.fn(),
    onAddNode: vi.fn(),
    onMoveNodes: vi.fn(),
    onMoveWaypoint: vi.fn(),
    onAddLink: vi.fn(),
    onPoint: vi.fn(),
    onRectangle: vi.fn(),
  };
}

function owner(editable: boolean, cb: Spies, tool: { current: Tool } = { current: { name: "select" } }, onViewport?: () => void) {
  return new TopologyCy({
    editable,
    callbacks: () => cb as TopologyCallbacks,
    tool: () => tool.current,
    scale: () => SCALE,
    onViewport,
  });
}

/** Let the owner's coalescing timers (setTimeout 0) run. */
const settle = () => new Promise((r) => setTimeout(r, 5));

beforeEach(() => {
  // node has no animation frames; the owner reports viewport changes once per frame
  vi.stubGlobal("requestAnimationFrame", (f: () => void) => setTimeout(f, 0) as unknown as number);
  vi.stubGlobal("cancelAnimationFrame", (h: number) => clearTimeout(h));
});
afterEach(() => vi.unstubAllGlobals());

describe("TopologyCy: elements by id", () => {
  it("adds every element once on the first drawing, at the scaled, y-flipped positions", () => {
    const o = owner(true, spies());
    const add = vi.spyOn(o.cy, "add");
    o.syncScenario(topologyElements(scenario(), SCALE).elements, 3);
    expect(add).toHaveBeenCalledTimes(1);
    expect(o.cy.nodes(".node").map((n) => n.id()).sort()).toEqual(["ap", "h1", "h2"]);
    expect(o.cy.edges(".link").map((e) => e.id()).sort()).toEqual(["link:l1", "link:l2"]);
    expect(o.cy.getElementById("h2").position()).toEqual({ x: 100, y: -50 });
    expect(o.cy.getElementById("h2").data("label")).toBe("Host 2");
    // the access point's range circle: 2 × 100 m wide at 0.5 units per metre
    expect(o.cy.getElementById("range:ap").data("w")).toBe(100);
    expect(o.cy.getElementById("range:ap").position()).toEqual({ x: 200, y: 0 });
    expect(o.cy.getElementById("h1").grabbable()).toBe(true);
    o.destroy();
  });

  it("updates existing elements in place: a node moved, a label changed, a node and its link removed", () => {
    const o = owner(true, spies());
    o.syncScenario(topologyElements(scenario(), SCALE).elements, 3);
    const h1 = o.cy.getElementById("h1");
    const h2 = o.cy.getElementById("h2");
    const ap = o.cy.getElementById("ap");
    const l1 = o.cy.getElementById("link:l1");
    const l2 = o.cy.getElementById("link:l2");
    h1.select();

    const doc = scenario();
    doc.nodes[0]!.position = { x_m: 40, y_m: -20 }; // h1 moved
    doc.nodes[1]!.label = "Relay"; // h2 relabelled
    doc.nodes.splice(2, 1); // ap removed ...
    doc.links!.splice(1, 1); // ... with its link
    const add = vi.spyOn(o.cy, "add");
    o.syncScenario(topologyElements(doc, SCALE).elements, 2);

    expect(add).not.toHaveBeenCalled();
    // the same element objects, updated
    expect(h1.removed()).toBe(false);
    expect(h1.position()).toEqual({ x: 20, y: 10 });
    expect(h1.selected()).toBe(true);
    expect(h2.removed()).toBe(false);
    expect(h2.data("label")).toBe("Relay");
    expect(l1.removed()).toBe(false);
    // gone: the access point, its range circle and its link
    expect(ap.removed()).toBe(true);
    expect(l2.removed()).toBe(true);
    expect(o.cy.getElementById("range:ap").empty()).toBe(true);
    expect(o.cy.nodes(".node").length).toBe(2);
    o.destroy();
  });

  it("adds a new node without re-adding the others, and re-creates a link whose ends changed", () => {
    const o = owner(true, spies());
    o.syncScenario(topologyElements(scenario(), SCALE).elements, 3);
    const h1 = o.cy.getElementById("h1");
    const doc = scenario();
    doc.nodes.push({ id: "h3", kind: "host", position: { x_m: -100, y_m: 0 } } as ScenarioDocument["nodes"][number]);
    doc.links![0] = { ...doc.links![0]!, dst: "h3" };
    const add = vi.spyOn(o.cy, "add");
    o.syncScenario(topologyElements(doc, SCALE).elements, 4);
    const added = add.mock.calls.map((c) => (c[0] as { data: { id: string } }).data.id).sort();
    expect(added).toEqual(["h3", "link:l1"]);
    expect(h1.removed()).toBe(false);
    expect(o.cy.getElementById("link:l1").data("target")).toBe("h3");
    expect(o.cy.getElementById("h3").position()).toEqual({ x: -50, y: 0 });
    o.destroy();
  });

  it("overlays live apart from the scenario: ghosts and associations come and go, routes are highlighted", () => {
    const o = owner(false, spies());
    o.syncScenario(topologyElements(scenario(), SCALE).elements, 3);
    o.setGhosts({ positions: { sta: { x_m: 300, y_m: 0 } }, associations: [{ station: "sta", access_point: "ap", state: "associating" }] }, SCALE);
    expect(o.cy.getElementById("ghost:sta").position()).toEqual({ x: 150, y: 0 });
    const assoc = o.cy.getElementById("assoc:sta:ap");
    expect(assoc.data("target")).toBe("ap");
    expect(assoc.hasClass("associating")).toBe(true);
    // a later scenario sync leaves the overlay alone
    o.syncScenario(topologyElements(scenario(), SCALE).elements, 3);
    expect(o.cy.getElementById("ghost:sta").nonempty()).toBe(true);
    o.setGhosts(null, SCALE);
    expect(o.cy.elements(".ghost, .assoc").length).toBe(0);
    expect(o.cy.nodes(".node").length).toBe(3);

    o.setHighlight({ links: { l1: { color: "#ff0000", width: 6, label: "3.2 Mbit/s" } }, nodes: { h1: "route" }, dim: true });
    const l1 = o.cy.getElementById("link:l1");
    expect(l1.hasClass("route")).toBe(true);
    expect(l1.hasClass("dimmed")).toBe(false);
    expect(l1.data()).toMatchObject({ color: "#ff0000", width: 6, label: "3.2 Mbit/s" });
    expect(o.cy.getElementById("link:l2").hasClass("dimmed")).toBe(true);
    expect(o.cy.getElementById("h2").hasClass("dimmed")).toBe(true);
    expect(o.cy.getElementById("h1").hasClass("route")).toBe(true);
    o.setHighlight(null);
    expect(o.cy.elements(".route, .dimmed").length).toBe(0);
    o.destroy();
  });

  it("shows the parent's selection on the canvas (link ids without the prefix)", () => {
    const o = owner(true, spies());
    o.syncScenario(topologyElements(scenario(), SCALE).elements, 3);
    o.setSelection({ nodes: ["h2"], links: ["l1"] });
    expect(o.cy.$(":selected").map((e) => e.id()).sort()).toEqual(["h2", "link:l1"]);
    o.setSelection({ nodes: ["h1"], links: [] });
    expect(o.cy.$(":selected").map((e) => e.id())).toEqual(["h1"]);
    o.destroy();
  });
});

describe("TopologyCy: handlers report to the parent", () => {
  it("selection: one report per burst, nodes and link ids", async () => {
    const cb = spies();
    const o = owner(true, cb);
    o.syncScenario(topologyElements(scenario(), SCALE).elements, 3);
    o.cy.getElementById("h1").select();
    o.cy.getElementById("link:l2").select();
    await settle();
    expect(cb.onSelect).toHaveBeenCalledTimes(1);
    expect(cb.onSelect).toHaveBeenLastCalledWith({ nodes: ["h1"], links: ["l2"] });
    o.cy.getElementById("h1").unselect();
    await settle();
    expect(cb.onSelect).toHaveBeenCalledTimes(2);
    expect(cb.onSelect).toHaveBeenLastCalledWith({ nodes: [], links: ["l2"] });
    o.destroy();
  });

  it("drag: one report per gesture with every moved node, in metres", async () => {
    const cb = spies();
    const o = owner(true, cb);
    o.syncScenario(topologyElements(scenario(), SCALE).elements, 3);
    const h1 = o.cy.getElementById("h1");
    const h2 = o.cy.getElementById("h2");
    h1.position({ x: 10, y: -20 });
    h2.position({ x: 110, y: -60 });
    h1.emit("dragfree");
    h2.emit("dragfree");
    await settle();
    expect(cb.onMoveNodes).toHaveBeenCalledTimes(1);
    expect(cb.onMoveNodes).toHaveBeenCalledWith({ h1: { x_m: 20, y_m: 40 }, h2: { x_m: 220, y_m: 120 } });
    o.destroy();
  });

  it("drag of a path corner: the linear path's end reported in metres", () => {
    const cb = spies();
    const o = owner(true, cb);
    const doc = scenario();
    doc.nodes.push({ id: "sta1", kind: "station", position: { x_m: 0, y_m: 0 },
                     mobility: { model: "linear", start: { x_m: 0, y_m: 0 }, end: { x_m: 100, y_m: 0 }, speed_mps: 10 } } as never);
    o.syncScenario(topologyElements(doc, SCALE).elements, 3);
    const end = o.cy.getElementById("wp:sta1:1");
    expect(end.grabbable()).toBe(true);
    end.position({ x: 75, y: -10 }); // graph units: (150 m, 20 m)
    end.emit("dragfree");
    expect(cb.onMoveWaypoint).toHaveBeenCalledWith("sta1", 1, { x_m: 150, y_m: 20 });
    o.destroy();
  });

  it("drag of an access point moves its range circle with it", () => {
    const o = owner(true, spies());
    o.syncScenario(topologyElements(scenario(), SCALE).elements, 3);
    const ap = o.cy.getElementById("ap");
    ap.position({ x: 250, y: 30 });
    ap.emit("drag");
    expect(o.cy.getElementById("range:ap").position()).toEqual({ x: 250, y: 30 });
    o.destroy();
  });

  it("read-only taps name the node, or null for the background", () => {
    const cb = spies();
    const o = owner(false, cb);
    o.syncScenario(topologyElements(scenario(), SCALE).elements, 3);
    o.cy.getElementById("h2").emit({ type: "tap", position: { x: 100, y: -50 } } as never);
    o.cy.emit({ type: "tap", position: { x: 0, y: 0 } } as never);
    expect(cb.onSelectNode.mock.calls).toEqual([["h2"], [null]]);
    expect(cb.onAddNode).not.toHaveBeenCalled();
    o.destroy();
  });

  it("editor taps follow the current tool: add a node, append a waypoint, nothing in select", () => {
    const cb = spies();
    const tool: { current: Tool } = { current: { name: "add", kind: "switch" } };
    const o = owner(true, cb, tool);
    o.cy.emit({ type: "tap", position: { x: 30, y: -40 } } as never);
    tool.current = { name: "waypoints" };
    o.cy.emit({ type: "tap", position: { x: -5, y: 5 } } as never);
    tool.current = { name: "select" };
    o.cy.emit({ type: "tap", position: { x: 1, y: 1 } } as never);
    expect(cb.onAddNode.mock.calls).toEqual([["switch", { x_m: 60, y_m: 80 }]]);
    expect(cb.onPoint.mock.calls).toEqual([[{ x_m: -10, y_m: -10 }]]);
    expect(cb.onSelectNode).not.toHaveBeenCalled();
    o.destroy();
  });

  it("bounds tool: a preview while dragging, the rectangle's corners in metres at the end", () => {
    const cb = spies();
    const o = owner(true, cb, { current: { name: "bounds" } });
    o.cy.emit({ type: "tapstart", position: { x: 0, y: 0 } } as never);
    o.cy.emit({ type: "tapdrag", position: { x: 50, y: -25 } } as never);
    const preview = o.cy.getElementById("bounds-preview");
    expect(preview.data()).toMatchObject({ w: 50, h: 25 });
    expect(preview.position()).toEqual({ x: 25, y: -12.5 });
    o.cy.emit({ type: "tapend", position: { x: 50, y: -25 } } as never);
    expect(o.cy.getElementById("bounds-preview").empty()).toBe(true);
    expect(cb.onRectangle.mock.calls).toEqual([[{ x_m: 0, y_m: 0 }, { x_m: 100, y_m: 50 }]]);
    // a click (under 2 units) draws nothing
    o.cy.emit({ type: "tapstart", position: { x: 0, y: 0 } } as never);
    o.cy.emit({ type: "tapend", position: { x: 1, y: 1 } } as never);
    expect(cb.onRectangle).toHaveBeenCalledTimes(1);
    o.destroy();
  });

  it("a link drawn with edge handles is reported as (source, target) and its temporary edge removed", () => {
    const cb = spies();
    const o = owner(true, cb, { current: { name: "link" } });
    o.syncScenario(topologyElements(scenario(), SCALE).elements, 3);
    const drawn = o.cy.add({ group: "edges", data: { id: "eh-1", source: "h1", target: "ap" }, classes: "eh-new" });
    o.cy.emit("ehcomplete", [o.cy.getElementById("h1"), o.cy.getElementById("ap"), drawn]);
    expect(cb.onAddLink.mock.calls).toEqual([["h1", "ap"]]);
    expect(drawn.removed()).toBe(true);
    o.destroy();
  });

  it("links by click-click: the first node tapped is marked as the source, the second is the target", () => {
    const cb = spies();
    const tool: { current: Tool } = { current: { name: "link" } };
    const o = owner(true, cb, tool);
    o.syncScenario(topologyElements(scenario(), SCALE).elements, 3);
    const tap = (id: string) => o.cy.getElementById(id).emit({ type: "tap", position: { x: 0, y: 0 } } as never);
    tap("h1");
    expect(o.cy.getElementById("h1").hasClass("link-source")).toBe(true);
    expect(cb.onAddLink).not.toHaveBeenCalled();
    tap("ap");
    expect(cb.onAddLink.mock.calls).toEqual([["h1", "ap"]]);
    expect(o.cy.$("node.link-source").length).toBe(0);
    // the background (or the source again) cancels; so does a change of tool
    tap("h2");
    o.cy.emit({ type: "tap", position: { x: 1, y: 1 } } as never);
    tap("ap");
    expect(o.cy.getElementById("ap").hasClass("link-source")).toBe(true);
    o.setTool({ name: "select" });
    expect(o.cy.$("node.link-source").length).toBe(0);
    tool.current = { name: "link" };
    tap("h2");
    expect(cb.onAddLink.mock.calls).toEqual([["h1", "ap"]]);
    o.destroy();
  });

  it("the add tool (which stays on) places on the background, not on an existing node", () => {
    const cb = spies();
    const o = owner(true, cb, { current: { name: "add", kind: "host" } });
    o.syncScenario(topologyElements(scenario(), SCALE).elements, 3);
    o.cy.getElementById("h1").emit({ type: "tap", position: { x: 0, y: 0 } } as never);
    expect(cb.onAddNode).not.toHaveBeenCalled();
    o.cy.emit({ type: "tap", position: { x: 10, y: 10 } } as never);
    o.cy.emit({ type: "tap", position: { x: 20, y: 10 } } as never);
    expect(cb.onAddNode.mock.calls).toEqual([["host", { x_m: 20, y_m: -20 }], ["host", { x_m: 40, y_m: -20 }]]);
    o.destroy();
  });

  it("viewport changes are reported once per frame", async () => {
    const onViewport = vi.fn();
    const o = owner(false, spies(), undefined, onViewport);
    o.cy.zoom(2);
    o.cy.pan({ x: 10, y: 20 });
    await settle();
    expect(onViewport).toHaveBeenCalledTimes(1);
    expect(onViewport.mock.calls[0]![0]).toMatchObject({ zoom: 2, pan: { x: 10, y: 20 } });
    o.destroy();
  });
});

describe("TopologyCy: one owner, every listener removed", () => {
  /** cytoscape's own count of the listeners registered on the instance */
  const listenerCount = (cy: Core) => (cy as unknown as { emitter(): { listeners: unknown[] } }).emitter().listeners.length;

  it("attachHandlers registers on the instance and its detach removes every one of them", async () => {
    // a fresh headless instance with nothing registered
    const bare = cytoscape({ headless: true, styleEnabled: true });
    expect(listenerCount(bare)).toBe(0);
    const cb = spies();
    const detach = attachHandlers(bare, { editable: true, callbacks: () => cb as TopologyCallbacks, tool: () => ({ name: "add", kind: "host" }), scale: () => SCALE, onViewport: vi.fn() });
    expect(listenerCount(bare)).toBeGreaterThanOrEqual(9);
    bare.add({ group: "nodes", data: { id: "n" }, position: { x: 0, y: 0 }, classes: "node kind-access_point" });
    detach();
    expect(listenerCount(bare)).toBe(0);
    // nothing reaches the parent any more
    bare.emit({ type: "tap", position: { x: 1, y: 1 } } as never);
    bare.getElementById("n").select().emit("dragfree");
    bare.emit("ehcomplete", [bare.getElementById("n"), bare.getElementById("n"), bare.collection()]);
    await settle();
    for (const f of Object.values(cb)) expect(f).not.toHaveBeenCalled();
    bare.destroy();
  });

  it("destroy leaves no listener on the instance and destroys it; pending reports are dropped", async () => {
    for (const editable of [false, true]) {
      const cb = spies();
      const o = owner(editable, cb);
      o.syncScenario(topologyElements(scenario(), SCALE).elements, 3);
      expect(listenerCount(o.cy)).toBeGreaterThan(0);
      o.cy.getElementById("h1").select(); // a selection report is pending
      o.destroy();
      expect(listenerCount(o.cy)).toBe(0);
      expect(o.cy.destroyed()).toBe(true);
      await settle();
      expect(cb.onSelect).not.toHaveBeenCalled();
    }
  });

  it("ships no test hook outside the e2e build", () => {
    const o = owner(false, spies());
    expect("__subflowCy" in globalThis).toBe(false);
    o.destroy();
  });
});
