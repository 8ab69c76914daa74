import { describe, expect, it } from "vitest";
import type { ScenarioDocument } from "../api/types";
import {
  moveWaypoint,
  copySelection,
  pasteClipboard,
  addFlow,
  addLink,
  addLinkEvent,
  addRateStep,
  addNode,
  appendWaypoint,
  boundsFromCorners,
  canonicalJson,
  deleteElements,
  deleteLinkEvent,
  deleteRateStep,
  emptyScenario,
  errorsUnder,
  errorTarget,
  fieldErrors,
  mobilityOf,
  moveNodes,
  nextId,
  parseNumberList,
  renameNode,
  sweepParameters,
  timesFromSpeed,
  updateLinkEvent,
  updateRateStep,
} from "./editor";
import { canRedo, canUndo, createHistory, HISTORY_LIMIT, push, redo, undo } from "./history";

function built(): ScenarioDocument {
  let d = emptyScenario("t");
  d = addNode(d, "host", { x_m: 0, y_m: 0 }).doc;
  d = addNode(d, "switch", { x_m: 100, y_m: 0 }).doc;
  d = addNode(d, "access_point", { x_m: 200, y_m: 0 }).doc;
  d = addNode(d, "station", { x_m: 300, y_m: 0 }).doc;
  d = addLink(d, "h1", "sw1")!.doc;
  d = addLink(d, "sw1", "ap1")!.doc;
  return addFlow(d).doc;
}

describe("editor operations", () => {
  it("gives each kind its own id sequence, filling gaps", () => {
    expect(nextId("h", ["h1", "h3"])).toBe("h2");
    const d = built();
    expect(d.nodes.map((n) => n.id)).toEqual(["h1", "sw1", "ap1", "sta1"]);
    const ap = d.nodes[2]!;
    expect(ap.kind === "access_point" && ap.range_m).toBe(100);
  });

  it("never mutates its input", () => {
    const d = built();
    const frozen = JSON.stringify(d);
    moveNodes(d, { h1: { x_m: 5, y_m: 6 } });
    deleteElements(d, ["sw1"], []);
    renameNode(d, "h1", "ship");
    expect(JSON.stringify(d)).toBe(frozen);
  });

  it("moves nodes and returns the same document when nothing moves", () => {
    const d = built();
    expect(moveNodes(d, { h1: { x_m: 0, y_m: 0 } })).toBe(d);
    const m = moveNodes(d, { h1: { x_m: 5, y_m: -6 }, nope: { x_m: 1, y_m: 1 } });
    expect(m.nodes[0]!.position).toEqual({ x_m: 5, y_m: -6 });
  });

  it("refuses self links, unknown ends and a second link between the same pair", () => {
    const d = built();
    expect(addLink(d, "h1", "h1")).toBeNull();
    expect(addLink(d, "h1", "zz")).toBeNull();
    expect(addLink(d, "sw1", "h1")).toBeNull();
    const r = addLink(d, "h1", "ap1")!;
    expect(r.id).toBe("l3");
    expect(r.doc.links!.at(-1)).toMatchObject({ src: "h1", dst: "ap1", bandwidth_mbps: 100, loss: 0 });
  });

  it("deletes a node with its links and flows", () => {
    const d = built();
    expect(d.flows).toEqual([expect.objectContaining({ id: "f1", src: "sta1", dst: "h1", rate_mbps: null })]);
    const out = deleteElements(d, ["sw1"], []);
    expect(out.nodes.map((n) => n.id)).toEqual(["h1", "ap1", "sta1"]);
    expect(out.links).toEqual([]);
    expect(out.flows).toHaveLength(1);
    expect(deleteElements(d, ["h1"], []).flows).toEqual([]);
    expect(deleteElements(d, [], ["l2"]).links!.map((l) => l.id)).toEqual(["l1"]);
  });

  it("renames a node and every reference to it", () => {
    const out = renameNode(built(), "h1", "ship");
    expect(out.links![0]).toMatchObject({ src: "ship", dst: "sw1" });
    expect(out.flows![0]).toMatchObject({ dst: "ship" });
  });
});

describe("mobility helpers", () => {
  it("times waypoints from a speed, strictly increasing", () => {
    const pts = timesFromSpeed([{ x_m: 0, y_m: 0 }, { x_m: 300, y_m: 400 }, { x_m: 300, y_m: 400 }], 10);
    expect(pts.map((p) => p.t_s)).toEqual([0, 50, 50.001]);
    const appended = appendWaypoint(pts, { x_m: 300, y_m: 500 }, 20);
    expect(appended.at(-1)).toEqual({ t_s: 55.001, x_m: 300, y_m: 500 });
    expect(appendWaypoint([], { x_m: 1, y_m: 2 }, 5)).toEqual([{ t_s: 0, x_m: 1, y_m: 2 }]);
  });

  it("orders drawn rectangle corners into bounds", () => {
    expect(boundsFromCorners({ x_m: 10, y_m: -5 }, { x_m: -20.04, y_m: 30 })).toEqual({ x_min_m: -20, y_min_m: -5, x_max_m: 10, y_max_m: 30 });
  });

  it("switches models keeping the bounds", () => {
    const rw = mobilityOf("random_walk", { x_m: 0, y_m: 0 });
    expect(rw).toMatchObject({ model: "random_walk", bounds: { x_min_m: -100, x_max_m: 100 } });
    const gm = mobilityOf("gauss_markov", { x_m: 50, y_m: 50 }, { ...rw, bounds: { x_min_m: 0, y_min_m: 0, x_max_m: 9, y_max_m: 9 } } as never);
    expect(gm).toMatchObject({ model: "gauss_markov", bounds: { x_max_m: 9 } });
    expect(mobilityOf("waypoints", { x_m: 3, y_m: 4 })).toEqual({ model: "waypoints", points: [{ t_s: 0, x_m: 3, y_m: 4 }] });
  });
});

describe("validation errors → fields", () => {
  const detail = [
    { loc: ["body", "links", 0, "loss"], msg: "Input should be less than 1", type: "less_than" },
    { loc: ["body", "links", 0, "loss"], msg: "second", type: "x" },
    { loc: ["body", "nodes", 2, "range_m"], msg: "Input should be greater than 0", type: "x" },
    { loc: ["body", "name"], msg: "too short", type: "x" },
  ];
  it("keys messages by dotted path without the body prefix", () => {
    expect(fieldErrors(detail)).toEqual({
      "links.0.loss": "Input should be less than 1; second",
      "nodes.2.range_m": "Input should be greater than 0",
      name: "too short",
    });
  });
  it("selects the errors of one element and finds the element", () => {
    const fe = fieldErrors(detail);
    expect(errorsUnder(fe, "links.0")).toEqual({ loss: "Input should be less than 1; second" });
    expect(errorsUnder(fe, "links.1")).toEqual({});
    const d = built();
    expect(errorTarget(d, "links.0.loss")).toEqual({ kind: "link", id: "l1" });
    expect(errorTarget(d, "nodes.2.range_m")).toEqual({ kind: "node", id: "ap1" });
    expect(errorTarget(d, "name")).toEqual({ kind: "scenario", id: null });
  });
});

describe("sweeps and change detection", () => {
  it("lists sweepable parameters as dotted paths with ids", () => {
    const p = sweepParameters(built());
    expect(p).toContain("nodes.ap1.range_m");
    expect(p).toContain("links.l1.loss");
    expect(p).toContain("flows.f1.rate_mbps");
    expect(p).toContain("run.duration_s");
    expect(p).not.toContain("nodes.h1.range_m");
  });
  it("parses value lists", () => {
    expect(parseNumberList("100, 200 ;300 1e3")).toEqual([100, 200, 300, 1000]);
    expect(parseNumberList("1, x")).toBeNull();
    expect(parseNumberList("  ")).toBeNull();
  });
  it("compares documents regardless of key order", () => {
    expect(canonicalJson({ a: 1, b: { d: 2, c: [1, { y: 1, x: 2 }] } })).toBe(canonicalJson({ b: { c: [1, { x: 2, y: 1 }], d: 2 }, a: 1 }));
    expect(canonicalJson({ a: 1 })).not.toBe(canonicalJson({ a: 2 }));
  });
});

describe("undo history", () => {
  it("undoes and redoes, and a new edit drops the redo branch", () => {
    let h = createHistory(0);
    h = push(h, 1);
    h = push(h, 2);
    expect(canUndo(h)).toBe(true);
    h = undo(h);
    expect(h.present).toBe(1);
    expect(canRedo(h)).toBe(true);
    h = redo(h);
    expect(h.present).toBe(2);
    h = undo(undo(h));
    expect(h.present).toBe(0);
    h = push(h, 5);
    expect(canRedo(h)).toBe(false);
    expect(undo(h).present).toBe(0);
  });
  it("coalesces consecutive edits of one field into one step", () => {
    let h = createHistory("");
    h = push(h, "a", "name");
    h = push(h, "ab", "name");
    h = push(h, "abc", "name");
    expect(undo(h).present).toBe("");
    h = push(h, "abcd", "other");
    expect(undo(h).present).toBe("abc");
  });
  it("keeps at most HISTORY_LIMIT steps and ignores no-op pushes", () => {
    let h = createHistory(0);
    for (let i = 1; i <= HISTORY_LIMIT + 10; i++) h = push(h, i);
    expect(h.past).toHaveLength(HISTORY_LIMIT);
    expect(push(h, h.present)).toBe(h);
  });
});

describe("link events and rate tables", () => {
  it("adds a link event on the first link at half the run, edits and removes it without touching the input", () => {
    const d = built();
    const withEv = addLinkEvent(d);
    expect(d.link_events ?? []).toEqual([]);
    expect(withEv.link_events).toEqual([{ t_s: (d.run?.duration_s ?? 100) / 2, link: "l1", state: "down" }]);
    const up = updateLinkEvent(addLinkEvent(withEv), 1, { t_s: 70, state: "up", link: "l2" });
    expect(up.link_events).toEqual([withEv.link_events![0], { t_s: 70, link: "l2", state: "up" }]);
    expect(deleteLinkEvent(up, 0).link_events).toEqual([{ t_s: 70, link: "l2", state: "up" }]);
  });

  it("drops the events of a deleted link with it", () => {
    const d = updateLinkEvent(addLinkEvent(built()), 0, { link: "l2" });
    const after = deleteElements(d, [], ["l2"]);
    expect(after.link_events).toEqual([]);
  });

  it("drops a deleted link from the packet capture, keeping the others", () => {
    const d = { ...built(), capture: ["l1", "l2"] };
    expect(deleteElements(d, [], ["l2"]).capture).toEqual(["l1"]);
    expect(deleteElements(built(), [], ["l2"]).capture).toBeUndefined();
  });

  it("grows a rate table 100 m at a time and removes it entirely with its last row", () => {
    const one = addRateStep(null, 54);
    expect(one).toEqual([{ distance_m: 100, bandwidth_mbps: 54 }]);
    const two = updateRateStep(addRateStep(one), 1, { bandwidth_mbps: 6 });
    expect(two).toEqual([{ distance_m: 100, bandwidth_mbps: 54 }, { distance_m: 200, bandwidth_mbps: 6 }]);
    expect(one).toHaveLength(1);
    expect(deleteRateStep(two, 0)).toEqual([{ distance_m: 200, bandwidth_mbps: 6 }]);
    expect(deleteRateStep(one, 0)).toBeNull();
  });
});

describe("copy and paste of nodes", () => {
  const doc = {
    name: "c", nodes: [
      { id: "h1", kind: "host", label: "Shore", position: { x_m: 0, y_m: 0 } },
      { id: "ap1", kind: "access_point", position: { x_m: 100, y_m: 0 }, range_m: 150 },
      { id: "ap2", kind: "access_point", position: { x_m: 300, y_m: 0 }, range_m: 150, uplink: "ap1" },
      { id: "g1", kind: "host", position: { lat_deg: 51.1, lon_deg: 1.3 } },
    ],
    links: [{ id: "l1", src: "h1", dst: "ap1", bandwidth_mbps: 10 }, { id: "l2", src: "ap1", dst: "g1", bandwidth_mbps: 5 }],
    flows: [],
  } as unknown as ScenarioDocument;
  it("copies the selected nodes and the links among them, pastes them shifted with fresh ids", () => {
    const clip = copySelection(doc, ["h1", "ap1", "ap2"])!;
    expect(clip.links.map((l) => l.id)).toEqual(["l1"]); // l2 leaves the selection
    const r = pasteClipboard(doc, clip);
    expect(r.nodeIds).toEqual(["h2", "ap3", "ap4"]);
    expect(r.linkIds).toEqual(["l3"]);
    const byId = Object.fromEntries(r.doc.nodes.map((n) => [n.id, n]));
    expect(byId.h2).toMatchObject({ kind: "host", label: "Shore (copy)", position: { x_m: 60, y_m: 60 } });
    expect(byId.ap4).toMatchObject({ uplink: "ap3", position: { x_m: 360, y_m: 60 } }); // follows the copied uplink
    expect(r.doc.links!.at(-1)).toMatchObject({ id: "l3", src: "h2", dst: "ap3", bandwidth_mbps: 10 });
    expect(doc.nodes).toHaveLength(4); // the original is untouched
    expect(copySelection(doc, [])).toBeNull();
  });
  it("shifts a node placed by latitude and longitude in degrees, and keeps an uplink that was not copied", () => {
    const r = pasteClipboard(doc, copySelection(doc, ["g1", "ap2"])!);
    const g = r.doc.nodes.find((n) => n.id === "h2")!.position as { lat_deg: number; lon_deg: number };
    expect(g.lat_deg).toBeCloseTo(51.1005, 9);
    expect(g.lon_deg).toBeCloseTo(1.3005, 9);
    expect(r.doc.nodes.find((n) => n.id === "ap3")).toMatchObject({ uplink: "ap1" });
  });
});

describe("moving a path corner", () => {
  it("moves a linear path's end, or start (and the node with it), or a waypoint keeping its time", () => {
    const doc = {
      name: "m", nodes: [
        { id: "sta1", kind: "station", position: { x_m: 0, y_m: 0 }, mobility: { model: "linear", start: { x_m: 0, y_m: 0 }, end: { x_m: 100, y_m: 0 }, speed_mps: 5 } },
        { id: "sta2", kind: "station", position: { x_m: 0, y_m: 0 }, mobility: { model: "waypoints", points: [{ t_s: 0, x_m: 0, y_m: 0 }, { t_s: 10, x_m: 50, y_m: 0 }] } },
      ], links: [], flows: [],
    } as unknown as ScenarioDocument;
    const a = moveWaypoint(doc, "sta1", 1, { x_m: 150.04, y_m: 20 });
    expect(a.nodes[0]).toMatchObject({ position: { x_m: 0, y_m: 0 }, mobility: { end: { x_m: 150, y_m: 20 } } });
    const b = moveWaypoint(doc, "sta1", 0, { x_m: -10, y_m: 5 });
    expect(b.nodes[0]).toMatchObject({ position: { x_m: -10, y_m: 5 }, mobility: { start: { x_m: -10, y_m: 5 } } });
    const c = moveWaypoint(doc, "sta2", 1, { x_m: 60, y_m: 30 });
    expect((c.nodes[1] as { mobility: { points: unknown[] } }).mobility.points[1]).toEqual({ t_s: 10, x_m: 60, y_m: 30 });
    expect(moveWaypoint(doc, "sta2", 5, { x_m: 1, y_m: 1 })).toBe(doc);
  });
});
