import { describe, expect, it } from "vitest";
import type { ScenarioDocument } from "../api/types";
import { displayValue, parameterLabel, parameterScale, parameterUnit } from "./parameters";
import { nodeChoices } from "./topology";

const DOC = {
  name: "n",
  nodes: [
    { id: "uav", kind: "access_point", range_m: 300 },
    { id: "ship", kind: "host" },
    { id: "sta1", kind: "station" },
  ],
  links: [{ id: "l3", src: "uav", dst: "ship", bandwidth_mbps: 10, delay_ms: 5 }],
  flows: [{ id: "f1", src: "sta1", dst: "ship" }],
} as unknown as ScenarioDocument;

describe("sweep parameter names", () => {
  it("names links by their endpoints and gives the unit", () => {
    expect(parameterLabel(DOC, "links.l3.delay_ms")).toBe("Link l3 (uav–ship) delay, ms");
    expect(parameterLabel(DOC, "links.l3.bandwidth_mbps")).toBe("Link l3 (uav–ship) bandwidth, Mbit/s");
    expect(parameterLabel(DOC, "links.l3.loss")).toBe("Link l3 (uav–ship) loss, %");
    // one unit per quantity: a swept loss reads in % as in the editor's field, stored as a fraction
    expect(parameterScale("links.l3.loss")).toBe(100);
    expect(displayValue("links.l3.loss", 0.015)).toBe("1.5");
    expect(displayValue("nodes.uav.wireless_loss", 0.07)).toBe("7");
    expect(displayValue("links.l3.delay_ms", 0.015)).toBe("0.015");
    expect(parameterLabel(DOC, "nodes.uav.association_delay_s")).toBe("Access point uav association delay, s");
  });
  it("names nodes by kind, flows by endpoints, and run fields", () => {
    expect(parameterLabel(DOC, "nodes.uav.range_m")).toBe("Access point uav range, m");
    expect(parameterLabel(DOC, "nodes.uav.queue_packets")).toBe("Access point uav queue, packets");
    expect(parameterLabel(DOC, "flows.f1.rate_mbps")).toBe("Flow f1 (sta1 → ship) rate, Mbit/s");
    expect(parameterLabel(DOC, "run.duration_s")).toBe("Run duration, s");
    expect(parameterLabel(DOC, "run.seed")).toBe("Run seed");
    expect(parameterUnit("transport.min_rto_s")).toBe("s");
  });
  it("keeps what it cannot place", () => {
    expect(parameterLabel(DOC, "links.gone.delay_ms")).toBe("Link gone delay, ms");
    expect(parameterLabel(null, "a.b.c.d")).toBe("a.b.c.d");
  });
});

describe("nodes by label", () => {
  it("offers nodes as 'Label (id)' sorted by what the planner reads", () => {
    const doc = {
      name: "n",
      nodes: [
        { id: "n10", kind: "router", label: "Zagreb" },
        { id: "n2", kind: "router", label: "Amsterdam" },
        { id: "sta1", kind: "station" },
        { id: "h1", kind: "host", label: "h1" },
      ],
    } as unknown as ScenarioDocument;
    expect(nodeChoices(doc)).toEqual([
      { id: "n2", text: "Amsterdam (n2)" },
      { id: "h1", text: "h1" },
      { id: "sta1", text: "sta1" },
      { id: "n10", text: "Zagreb (n10)" },
    ]);
  });
});
