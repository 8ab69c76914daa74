// @vitest-environment happy-dom
/**
 * The capacity search's form and result, mounted in happy-dom with the API client replaced: the targets
 * typed in the displayed units reach the request in the API's (loss and the allowed share typed in %,
 * sent as fractions; an empty field sends null), no target is refused before asking the server, the
 * server's 422 shows on the field it names, and the per-flow table shows MOS, delay and loss where judged.
 */
import { act } from "react";
import { createRoot, type Root } from "react-dom/client";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { analysisApi, type CapacityResult } from "../../api/analysis";
import { ApiError, api } from "../../api/client";
import type { ScenarioPublic } from "../../api/types";
import { CapacityTraceChart } from "../../components/AnalysisCharts";
import { answerStep, CapacityFlowsTable, CapacitySection } from "./CapacitySection";

const scenario = {
  id: "s1",
  name: "call",
  scenario: {
    name: "call",
    nodes: [
      { id: "h1", kind: "host", position: { x_m: 0, y_m: 0 } },
      { id: "h2", kind: "host", position: { x_m: 10, y_m: 0 } },
    ],
    links: [{ id: "l1", src: "h1", dst: "h2", bandwidth_mbps: 10 }],
    flows: [{ id: "call", src: "h1", dst: "h2", kind: "voice", voice: { codec: "g711" } }],
    run: { duration_s: 60 },
  },
} as unknown as ScenarioPublic;

let host: HTMLDivElement;
let root: Root;
beforeEach(() => {
  (globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;
  vi.spyOn(api, "listStrategies").mockResolvedValue([{ name: "mptcp", description: "" }] as never);
  host = document.createElement("div");
  document.body.append(host);
  root = createRoot(host);
});
afterEach(() => {
  act(() => root.unmount());
  host.remove();
  vi.restoreAllMocks();
});

const input = (id: string) => host.querySelector<HTMLInputElement>(`#${id}`)!;
const type = (id: string, text: string) =>
  act(() => {
    Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, "value")!.set!.call(input(id), text);
    input(id).dispatchEvent(new Event("input", { bubbles: true }));
  });
const find = async () => {
  const button = [...host.querySelectorAll("button")].find((b) => b.textContent === "Find capacity")!;
  await act(async () => button.click());
};
const mount = async () => {
  await act(async () => root.render(<CapacitySection scenario={scenario} />));
};

describe("capacity search form", () => {
  it("sends the targets in the API's units: MOS and ms as typed, loss and the allowed share as fractions, empty as null", async () => {
    const post = vi.spyOn(analysisApi, "startCapacitySearch").mockRejectedValue(new ApiError(500, "stop here"));
    await mount();
    type("cap-mean", "");
    type("cap-mos", "3.6");
    type("cap-delay", "150");
    type("cap-loss", "1.5");
    type("cap-allowed", "5");
    await find();
    expect(post).toHaveBeenCalledTimes(1);
    const [sid, body] = post.mock.calls[0]!;
    expect(sid).toBe("s1");
    expect(body).toMatchObject({
      parameter: "links.l1.bandwidth_mbps",
      low: 0.5,
      high: 10,
      min_mean_mbps: null,
      max_zero_s: null,
      min_mos: 3.6,
      max_delay_ms: 150,
      max_loss: 0.015, // 1.5 % of the bits sent
      allowed_fraction: 0.05, // 5 % of the judged intervals
      strategy: "mptcp",
      window_s: null,
    });
    expect(host.querySelector('[role="alert"]')!.textContent).toContain("stop here");
  });

  it("a mean alone sends no quality bound and the allowed share 0", async () => {
    const post = vi.spyOn(analysisApi, "startCapacitySearch").mockRejectedValue(new ApiError(500, "stop here"));
    await mount();
    await find();
    expect(post.mock.calls[0]![1]).toMatchObject({ min_mean_mbps: 2.5, min_mos: null, max_delay_ms: null, max_loss: null, allowed_fraction: 0 });
  });

  it("refuses a search without a target before asking the server", async () => {
    const post = vi.spyOn(analysisApi, "startCapacitySearch");
    await mount();
    type("cap-mean", "");
    type("cap-allowed", "10"); // the allowed share alone is no target
    await find();
    expect(post).not.toHaveBeenCalled();
    const targets = host.querySelector('[aria-label="Targets"]')!;
    expect(targets.getAttribute("aria-invalid")).toBe("true");
    expect(targets.textContent).toContain("Give at least one target");
  });

  it("shows the server's 422 on the field it names; the rest in the alert", async () => {
    vi.spyOn(analysisApi, "startCapacitySearch").mockRejectedValue(
      new ApiError(422, "invalid", [
        { loc: ["min_mos"], msg: "voice flow 'call' uses opus, which ITU-T G.113 Appendix I gives no Ie or Bpl for", type: "value_error" },
        { loc: ["body", "max_loss"], msg: "Input should be less than or equal to 1", type: "less_than_equal" },
        { loc: ["body"], msg: "Value error, give at least one target: min_mean_mbps, max_zero_s, min_mos, max_delay_ms, max_loss", type: "value_error" },
        { loc: ["window_s"], msg: "starts at 70 s, at or after the run's end (60 s)", type: "value_error" },
      ]),
    );
    await mount();
    type("cap-mos", "4");
    await find();
    const mos = input("cap-mos");
    expect(mos.getAttribute("aria-invalid")).toBe("true");
    expect(host.querySelector(`#${mos.getAttribute("aria-describedby")}`)!.textContent).toContain("uses opus");
    expect(input("cap-loss").getAttribute("aria-invalid")).toBe("true");
    expect(host.querySelector("#cap-loss-err")!.textContent).toBe("Input should be less than or equal to 1");
    expect(input("cap-delay").getAttribute("aria-invalid")).toBeNull();
    expect(host.querySelector("#cap-targets-err")!.textContent).toContain("give at least one target");
    const alert = host.querySelector('[role="alert"]')!;
    expect([...alert.querySelectorAll("li")].map((li) => li.textContent)).toEqual(["window_s: starts at 70 s, at or after the run's end (60 s)"]);
  });
});

const flow = (f: object) => ({ flow: "f", mean_mbps: 0, zero_s: 0, passed: true, ...f });
const result = (trace: CapacityResult["trace"], value: number | null): CapacityResult =>
  ({ parameter: "links.l1.bandwidth_mbps", status: value === null ? "not_found" : "found", value, bracket: null, trace, runs: trace.length, strategy: "mptcp", min_mean_mbps: 0, max_zero_s: null, window_s: [0, 60] }) as CapacityResult;

describe("capacity result table", () => {
  it("shows each flow's MOS, delay and loss (in %) where judged, a dash where not", () => {
    const step = {
      step: 2, value: 0.25, passed: true, runs: 2,
      flows: [
        flow({ flow: "call", kind: "voice", mean_mbps: 0.08, mos: 4.1234, delay_ms: 123.4, loss: 0.012, intervals: 120, silent_intervals: 3 }),
        flow({ flow: "bulk", kind: "tcp", mean_mbps: 1.5, zero_s: 2, passed: false }),
      ],
    };
    act(() => root.render(<CapacityFlowsTable step={step} caption="at 0.25" />));
    const rows = [...host.querySelectorAll("[data-testid=capacity-flows] tr")].map((tr) => [...tr.children].map((c) => c.textContent));
    expect(rows).toEqual([
      ["flow", "kind", "mean Mbit/s", "time at zero s", "MOS", "delay ms", "loss %", "intervals (silent)", "meets the target"],
      ["call", "voice", "0.080", "0.000", "4.12", "123.4", "1.2", "120 (3)", "yes"],
      ["bulk", "tcp", "1.500", "2.000", "—", "—", "—", "—", "no"],
    ]);
  });

  it("has no quality columns when no flow was judged for them", () => {
    act(() => root.render(<CapacityFlowsTable step={{ step: 0, value: 5, passed: true, runs: 1, flows: [flow({ flow: "bulk", mean_mbps: 3 })] }} caption="at 5" />));
    const head = [...host.querySelectorAll("[data-testid=capacity-flows] th")].map((th) => th.textContent);
    expect(head).toEqual(["flow", "kind", "mean Mbit/s", "time at zero s", "meets the target"]);
  });

  it("the trace chart draws the throughput rule only when the search had a throughput bound", () => {
    const points = [{ step: 0, value: 1, worstMeanMbps: 0.08, worstZeroS: 0, passed: true }];
    act(() => root.render(<CapacityTraceChart points={points} target={null} parameter="l1" answer={1} />));
    expect(host.querySelector("[data-testid=capacity-target]")).toBeNull();
    expect(host.textContent).not.toContain("target: every flow");
    act(() => root.render(<CapacityTraceChart points={points} target={2.5} parameter="l1" answer={1} />));
    expect(host.querySelector("[data-testid=capacity-target]")).not.toBeNull();
    expect(host.textContent).toContain("target: every flow ≥ 2.500 Mbit/s");
  });

  it("the table's step: the answer's, or the highest value tried when none passed", () => {
    const s = (step: number, value: number) => ({ step, value, passed: false, runs: 1, flows: [] });
    expect(answerStep(result([s(0, 0.5), s(1, 10), s(2, 5.25), s(3, 2.875)], 5.25))!.step).toBe(2);
    expect(answerStep(result([s(0, 0.5), s(1, 10)], null))!.step).toBe(1);
    expect(answerStep(result([], null))).toBeNull();
  });
});
