import { describe, expect, it } from "vitest";
import type { ScenarioDocument } from "../api/types";
import { describeLoc, humanFieldErrors, humanMessage, liveErrors, rangeProblem, unitOf, validationLines } from "./fieldMessages";

const doc = {
  schema_version: 2,
  name: "t",
  nodes: [
    { id: "ship", kind: "host", label: "Ship A", position: { x_m: 0, y_m: 0 } },
    { id: "sta1", kind: "station", position: { x_m: 0, y_m: 0 }, mobility: { model: "waypoints", points: [{ t_s: 0, x_m: 0, y_m: 0 }, { t_s: 5, x_m: 1, y_m: 0 }] } },
    { id: "uav", kind: "router", label: "UAV", position: { x_m: 1, y_m: 1 } },
  ],
  links: [
    { id: "l1", src: "ship", dst: "uav", bandwidth_mbps: 10, loss: 0 },
    { id: "l4", src: "uav", dst: "sta1", bandwidth_mbps: 10, loss: 1.5 },
  ],
  flows: [{ id: "f1", src: "sta1", dst: "ship" }],
} as unknown as ScenarioDocument;

describe("humanMessage", () => {
  it("puts a loss bound in percent", () => {
    expect(humanMessage("links.1.loss", "Input should be less than 1")).toBe("must be < 100 %");
    expect(humanMessage("nodes.0.wireless_loss", "Input should be greater than or equal to 0")).toBe("must be ≥ 0 %");
  });
  it("adds the unit and thousands separators", () => {
    expect(humanMessage("run.duration_s", "Input should be less than or equal to 86400")).toBe("must be ≤ 86,400 s");
    expect(humanMessage("links.0.bandwidth_mbps", "Input should be less than or equal to 10000")).toBe("must be ≤ 10,000 Mbit/s");
    expect(humanMessage("links.0.bandwidth_mbps", "Input should be greater than 0")).toBe("must be > 0 Mbit/s");
    expect(humanMessage("nodes.0.queue_packets", "Input should be less than or equal to 100000")).toBe("must be ≤ 100,000 packets");
  });
  it("leaves other messages alone", () => {
    expect(humanMessage("links.0.dst", "unknown node 'x'")).toBe("unknown node 'x'");
  });
  it("knows units by suffix", () => {
    expect([unitOf("links.0.delay_ms"), unitOf("flows.0.rate_mbps"), unitOf("nodes.0.range_m"), unitOf("nodes.0.kind")]).toEqual(["ms", "Mbit/s", "m", ""]);
  });
});

describe("describeLoc", () => {
  it("names elements by id and label, never by 0-based index", () => {
    expect(describeLoc(doc, "links.1.loss")).toBe("Link l4 (UAV – sta1) › loss");
    expect(describeLoc(doc, "nodes.0.position")).toBe("Host ship (Ship A) › position");
    expect(describeLoc(doc, "flows.0.dst")).toBe("Flow f1 (sta1 → Ship A) › dst");
  });
  it("counts list items from 1", () => {
    expect(describeLoc(doc, "nodes.1.mobility.points.1.t_s")).toBe("Station sta1 › mobility › waypoint 2 › t_s");
    expect(describeLoc(doc, "link_events.0.t_s")).toBe("Link event 1 › t_s");
    expect(describeLoc(doc, "links.7.loss")).toBe("Link 8 › loss");
    expect(describeLoc(doc, "sweep.values.1")).toBe("Sweep value 2");
    // the sweep's point, then the element it made invalid, named as the editor names it (not "links 2")
    expect(describeLoc(doc, "sweep.values.1.links.1.loss")).toBe("Sweep value 2 › Link l4 (UAV – sta1) › loss");
  });
  it("makes banner lines", () => {
    expect(validationLines(doc, [{ loc: ["body", "links", 1, "loss"], msg: "Input should be less than 1", type: "less_than" }])).toEqual([
      "Link l4 (UAV – sta1) › loss: must be < 100 %",
    ]);
    // a model's check naming its field first goes to that field, without pydantic's prefix
    expect(humanFieldErrors([{ loc: ["body", "flows", 0, "voice"], msg: "Value error, packet_interval_ms: g729a packs whole 10 ms frames", type: "value_error" }])).toEqual({
      "flows.0.voice.packet_interval_ms": "g729a packs whole 10 ms frames",
    });
    expect(humanFieldErrors([{ loc: ["body", "flows", 0, "voice"], msg: "Value error, opus_bitrate_kbps is required for codec opus and only for it", type: "value_error" }])).toEqual({
      "flows.0.voice": "Value error, opus_bitrate_kbps is required for codec opus and only for it",
    });
    expect(humanFieldErrors([{ loc: ["body", "run", "duration_s"], msg: "Input should be less than or equal to 86400", type: "x" }])).toEqual({
      "run.duration_s": "must be ≤ 86,400 s",
    });
  });
});

describe("liveErrors", () => {
  const errors = { "links.1.loss": "must be < 100 %", "flows.0.dst": "unknown" };
  it("drops an error once its value changed, keeps the others", () => {
    const fixed = { ...doc, links: [doc.links![0]!, { ...doc.links![1]!, loss: 0.015 }] } as ScenarioDocument;
    expect(liveErrors(errors, doc, fixed)).toEqual({ "flows.0.dst": "unknown" });
  });
  it("keeps every error while nothing changed", () => {
    expect(liveErrors(errors, doc, { ...doc })).toEqual(errors);
  });
});

describe("rangeProblem", () => {
  it("checks a percent as a percent", () => {
    expect(rangeProblem(150, { min: 0, max: 100, maxExclusive: true }, "%")).toBe("must be < 100 %");
    expect(rangeProblem(100, { min: 0, max: 100, maxExclusive: true }, "%")).toBe("must be < 100 %");
    expect(rangeProblem(-1, { min: 0, max: 100, maxExclusive: true }, "%")).toBe("must be ≥ 0 %");
    expect(rangeProblem(15, { min: 0, max: 100, maxExclusive: true }, "%")).toBeNull();
  });
});
