// @vitest-environment happy-dom
/**
 * TopologyGraph mounted by React in happy-dom: one cytoscape instance per mounted graph, updated
 * by id when the document changes, callbacks read from the latest props, and on unmount no
 * listener left and the instance destroyed.
 *
 * Fake at the renderer boundary (named `headlessCytoscape`): happy-dom has no canvas, so the
 * component's cytoscape factory is the real one with `headless: true` (real elements, events and
 * listeners; nothing drawn). Each instance it makes is kept for the assertions.
 */
import type cytoscape from "cytoscape";
import type { Core, CytoscapeOptions } from "cytoscape";
import { act } from "react";
import { createRoot, type Root } from "react-dom/client";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { ScenarioDocument } from "../api/types";
import { TopologyGraph } from "./TopologyGraph";

const made: Core[] = [];
vi.mock("cytoscape", async (importOriginal) => {
  const real = (await importOriginal<{ default: typeof cytoscape }>()).default;
  const headlessCytoscape = Object.assign((opts: CytoscapeOptions) => {
    const cy = real({ ...opts, container: undefined, headless: true, styleEnabled: true });
    made.push(cy);
    return cy;
  }, real);
  return { default: headlessCytoscape };
});

const listenerCount = (cy: Core) => (cy as unknown as { emitter(): { listeners: unknown[] } }).emitter().listeners.length;

function doc(h2: { x_m: number; y_m: number } = { x_m: 200, y_m: 100 }, withAp = true): ScenarioDocument {
  return {
    name: "mounted",
    nodes: [
      { id: "h1", kind: "host", label: "Host 1", position: { x_m: 0, y_m: 0 } },
      { id: "h2", kind: "host", label: "Host 2", position: h2 },
      ...(withAp ? [{ id: "ap", kind: "access_point", position: { x_m: 400, y_m: 0 }, range_m: 100 }] : []),
    ],
    links: [{ id: "l1", src: "h1", dst: "h2", bandwidth_mbps: 10, delay_ms: 5 }],
    flows: [],
  } as unknown as ScenarioDocument;
}

let host: HTMLDivElement;
let root: Root;
beforeEach(() => {
  (globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;
  made.length = 0;
  host = document.createElement("div");
  document.body.append(host);
  root = createRoot(host);
});
afterEach(() => {
  host.remove();
});

describe("TopologyGraph (mounted)", () => {
  it("one instance per mount, elements updated by id, latest callbacks, nothing left on unmount", () => {
    const first = vi.fn();
    // 0.5 graph units per metre: (x_m, y_m) is drawn at (x_m / 2, -y_m / 2)
    act(() => root.render(<TopologyGraph doc={doc()} label="Topology of mounted" scale={0.5} onSelectNode={first} />));
    expect(made).toHaveLength(1);
    const cy = made[0]!;
    expect(cy.nodes(".node").map((n) => n.id()).sort()).toEqual(["ap", "h1", "h2"]);
    const canvas = host.querySelector('[data-testid="topology"]')!;
    expect(canvas.getAttribute("aria-label")).toBe("Topology of mounted");
    expect(canvas.getAttribute("data-node-count")).toBe("3");
    const h2 = cy.getElementById("h2");
    const ap = cy.getElementById("ap");
    expect(h2.position()).toEqual({ x: 100, y: -50 });

    // a new document: h2 moved, the access point removed; the same instance and element objects
    const second = vi.fn();
    act(() => root.render(<TopologyGraph doc={doc({ x_m: 60, y_m: -40 }, false)} label="Topology of mounted" scale={0.5} onSelectNode={second} />));
    expect(made).toHaveLength(1);
    expect(h2.removed()).toBe(false);
    expect(h2.position()).toEqual({ x: 30, y: 20 });
    expect(ap.removed()).toBe(true);
    expect(canvas.getAttribute("data-node-count")).toBe("2");

    // a tap reaches the callback of the latest props
    h2.emit({ type: "tap", position: { x: 30, y: 20 } } as never);
    expect(first).not.toHaveBeenCalled();
    expect(second.mock.calls).toEqual([["h2"]]);

    expect(listenerCount(cy)).toBeGreaterThan(0);
    act(() => root.unmount());
    expect(listenerCount(cy)).toBe(0);
    expect(cy.destroyed()).toBe(true);
    expect("__subflowCy" in window).toBe(false);
  });

  it("editor: the tool sets panning, box selection and the cursor; edge handles go with the instance", () => {
    const d = doc();
    act(() => root.render(<TopologyGraph doc={d} label="t" scale={0.5} editable tool={{ name: "select" }} />));
    const cy = made[0]!;
    const canvas = host.querySelector<HTMLElement>('[data-testid="topology"]')!;
    expect(cy.boxSelectionEnabled()).toBe(true);
    expect(cy.getElementById("h1").grabbable()).toBe(true);
    act(() => root.render(<TopologyGraph doc={d} label="t" scale={0.5} editable tool={{ name: "bounds" }} />));
    expect(cy.boxSelectionEnabled()).toBe(false);
    expect(cy.userPanningEnabled()).toBe(false);
    expect(cy.autounselectify()).toBe(true);
    expect(canvas.style.cursor).toBe("crosshair");
    expect(canvas.getAttribute("data-tool")).toBe("bounds");
    act(() => root.render(<TopologyGraph doc={d} label="t" scale={0.5} editable tool={{ name: "link" }} />));
    expect(cy.userPanningEnabled()).toBe(true);
    act(() => root.unmount());
    expect(listenerCount(cy)).toBe(0);
    expect(cy.destroyed()).toBe(true);
  });

  it("the route overlay and the parent's selection reach the instance", () => {
    const d = doc();
    act(() => root.render(<TopologyGraph doc={d} label="t" scale={0.5} selection={{ nodes: ["h1"], links: [] }} highlight={null} />));
    const cy = made[0]!;
    expect(cy.$(":selected").map((e) => e.id())).toEqual(["h1"]);
    act(() =>
      root.render(<TopologyGraph doc={d} label="t" scale={0.5} selection={{ nodes: [], links: ["l1"] }} highlight={{ links: { l1: { color: "#ff0000" } }, nodes: {} }} />),
    );
    expect(cy.$(":selected").map((e) => e.id())).toEqual(["link:l1"]);
    expect(cy.getElementById("link:l1").hasClass("route")).toBe(true);
    act(() => root.unmount());
    expect(cy.destroyed()).toBe(true);
  });
});
