// @vitest-environment happy-dom
/**
 * The flows table and the scenario's queueing section mounted by React in happy-dom: a flow's kind and DiffServ
 * class, the kind's settings below its row, the rate hidden for voice and video and required for udp, the
 * server's 422 errors on the field they name, and the queueing discipline with RFC 8325's classes or edited ones.
 */
import { act } from "react";
import { createRoot, type Root } from "react-dom/client";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Flow, ScenarioDocument } from "../api/types";
import { dscpHint, kindPatch, voiceWireRateKbps } from "../lib/flowKinds";
import { FlowsEditor } from "./FlowsEditor";
import { parseDscpList, QueueingFields } from "./QueueingFields";

const base: ScenarioDocument = {
  name: "voice",
  nodes: [
    { id: "h1", kind: "host", position: { x_m: 0, y_m: 0 } },
    { id: "h2", kind: "host", position: { x_m: 10, y_m: 0 } },
  ],
  links: [{ id: "l1", src: "h1", dst: "h2", bandwidth_mbps: 10 }],
  flows: [{ id: "f1", src: "h1", dst: "h2", rate_mbps: null }],
} as ScenarioDocument;

const withFlow = (f: Partial<Flow>): ScenarioDocument => ({ ...base, flows: [{ ...base.flows![0]!, ...f }] });

let host: HTMLDivElement;
let root: Root;
let changes: ScenarioDocument[];
beforeEach(() => {
  (globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;
  host = document.createElement("div");
  document.body.append(host);
  root = createRoot(host);
  changes = [];
});
afterEach(() => {
  act(() => root.unmount());
  host.remove();
});

const byLabel = <T extends HTMLElement>(label: string): T | null => {
  const aria = host.querySelector<T>(`[aria-label="${label}"]`);
  if (aria) return aria;
  const l = [...host.querySelectorAll("label")].find((x) => x.textContent?.trim() === label);
  return l ? host.querySelector<T>(`#${CSS.escape(l.htmlFor)}`) : null;
};
const type = (input: HTMLInputElement, text: string) =>
  act(() => {
    Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, "value")!.set!.call(input, text);
    input.dispatchEvent(new Event("input", { bubbles: true }));
  });
const choose = (el: HTMLSelectElement, value: string) =>
  act(() => {
    el.value = value;
    el.dispatchEvent(new Event("change", { bubbles: true }));
  });

describe("flow kind in the flows table", () => {
  const mount = (doc: ScenarioDocument, errors: Record<string, string> = {}) => act(() => root.render(<FlowsEditor doc={doc} errors={errors} onChange={(d) => changes.push(d)} />));

  it("offers the four kinds and the DiffServ classes, tcp and BE by default", () => {
    mount(base);
    const kind = byLabel<HTMLSelectElement>("Flow f1 kind")!;
    expect([...kind.options].map((o) => o.value)).toEqual(["tcp", "udp", "voice", "video"]);
    expect(kind.value).toBe("tcp");
    const dscp = byLabel<HTMLSelectElement>("Flow f1 DSCP")!;
    expect(dscp.value).toBe("BE");
    expect(dscp.options.length).toBe(21);
    // code points: EF 46 (RFC 3246), AF41 = 8·4 + 2·1 = 34 (RFC 2597), CS6 = 48 (RFC 2474)
    const text = [...dscp.options].map((o) => o.textContent);
    expect(text).toContain("EF (46) telephony");
    expect(text).toContain("AF41 (34) interactive video");
    expect(text).toContain("CS6 (48) network control");
    expect(host.querySelector("[data-testid=flow-kind-row-0]")).toBeNull();
  });

  it("a voice flow drops its rate and size, shows its codec settings and RFC 4594's EF", () => {
    mount(withFlow({ rate_mbps: 3, size_bytes: 1000 }));
    choose(byLabel<HTMLSelectElement>("Flow f1 kind")!, "voice");
    const f = changes.at(-1)!.flows![0]!;
    expect(f.kind).toBe("voice");
    expect(f.rate_mbps).toBeNull();
    expect(f.size_bytes).toBeNull();
    mount(changes.at(-1)!);
    expect(byLabel("Flow f1 rate (Mbit/s)")).toBeNull();
    expect(byLabel("Flow f1 bulk transfer")).toBeNull();
    expect(byLabel("Flow f1 size (bytes)")).toBeNull();
    expect(host.textContent).toContain("from the codec");
    expect(host.textContent).toContain("RFC 4594: EF");
    const group = host.querySelector('[aria-label="Flow f1 voice settings"]')!;
    expect(group).not.toBeNull();
    expect(byLabel<HTMLSelectElement>("Codec")!.value).toBe("g711");
    expect(byLabel<HTMLInputElement>("Packet interval (ms)")!.value).toBe("20");
    // G.711 every 20 ms: 160 bytes + 40 of headers every 20 ms = 80 kbit/s
    expect(host.textContent).toContain("80.000 kbit/s on the wire");
  });

  it("Opus asks for its bit rate in kbit/s; the codec is stored with it", () => {
    mount(withFlow({ kind: "voice", voice: { codec: "g711" } }));
    choose(byLabel<HTMLSelectElement>("Codec")!, "opus");
    expect(changes.at(-1)!.flows![0]!.voice).toEqual({ codec: "opus", opus_bitrate_kbps: 32 });
    mount(changes.at(-1)!);
    expect(byLabel<HTMLInputElement>("Opus bit rate (kbit/s)")!.value).toBe("32");
    // Opus at 32 kbit/s every 20 ms: 80 + 40 bytes per packet → 48 kbit/s (docs/traffic.md)
    expect(host.textContent).toContain("48.000 kbit/s on the wire");
  });

  it("a udp flow needs a rate (1 Mbit/s if it had none) and shows its pattern; on/off shows the periods", () => {
    mount(base);
    choose(byLabel<HTMLSelectElement>("Flow f1 kind")!, "udp");
    expect(changes.at(-1)!.flows![0]!.rate_mbps).toBe(1);
    mount(withFlow({ kind: "udp", rate_mbps: 2, udp: { pattern: "on_off", periods: "pareto" } }));
    const rate = byLabel<HTMLInputElement>("Flow f1 rate (Mbit/s)")!;
    expect(rate.disabled).toBe(false);
    expect(rate.value).toBe("2");
    for (const label of ["Packet payload (bytes)", "Mean on period (s)", "Mean off period (s)", "Pareto shape"]) expect(byLabel(label)).not.toBeNull();
    expect(byLabel("Flow f1 bulk transfer")).toBeNull();
  });

  it("a video flow gets an encoder and AF41's hint", () => {
    mount(base);
    choose(byLabel<HTMLSelectElement>("Flow f1 kind")!, "video");
    expect(changes.at(-1)!.flows![0]!.video).toEqual({ bitrate_mbps: 2 });
    mount(changes.at(-1)!);
    for (const label of ["Bit rate (Mbit/s)", "Frame rate (frames/s)", "Group of pictures (frames)"]) expect(byLabel(label)).not.toBeNull();
    expect(host.textContent).toContain("RFC 4594: AF41");
  });

  it("shows the server's errors on the field they name", () => {
    mount(withFlow({ kind: "voice", voice: { codec: "g729a", packet_interval_ms: 25 } }), {
      "flows.0.voice.packet_interval_ms": "g729a packs whole 10 ms frames",
      "flows.0.dscp": "engine fluid does not honour it",
      "flows.0.voice": "opus_bitrate_kbps is required for codec opus and only for it",
      "flows.0.rate_mbps": "a voice flow's rate follows from its voice settings: leave rate_mbps null",
    });
    const interval = byLabel<HTMLInputElement>("Packet interval (ms)")!;
    expect(interval.getAttribute("aria-invalid")).toBe("true");
    expect(host.querySelector(`#${CSS.escape(interval.getAttribute("aria-describedby")!.split(" ")[0]!)}`)!.textContent).toBe("g729a packs whole 10 ms frames");
    const dscp = byLabel<HTMLSelectElement>("Flow f1 DSCP")!;
    expect(dscp.getAttribute("aria-invalid")).toBe("true");
    expect(dscp.parentElement!.textContent).toContain("engine fluid does not honour it");
    expect(host.querySelector('[aria-label="Flow f1 voice settings"]')!.textContent).toContain("opus_bitrate_kbps is required");
    expect(host.textContent).toContain("leave rate_mbps null");
  });

  it("a voice flow's playout buffer: 40 ms by default, stored as typed, 0 to 1000 ms", () => {
    mount(withFlow({ kind: "voice", voice: { codec: "g711" } }));
    const buffer = byLabel<HTMLInputElement>("Playout buffer (ms)")!;
    expect(buffer.value).toBe("40");
    type(buffer, "60");
    expect(changes.at(-1)!.flows![0]!.voice).toEqual({ codec: "g711", playout_delay_ms: 60 });
    // VoiceSource.playout_delay_ms: 0 <= x <= 1000 ms; 1200 is shown refused, not stored
    const stored = changes.length;
    type(buffer, "1200");
    expect(changes.length).toBe(stored);
    expect(buffer.getAttribute("aria-invalid")).toBe("true");
    type(buffer, "0");
    expect(changes.at(-1)!.flows![0]!.voice!.playout_delay_ms).toBe(0);
    mount(withFlow({ kind: "voice", voice: { codec: "g711", playout_delay_ms: 80 } }), { "flows.0.voice.playout_delay_ms": "too long" });
    expect(byLabel<HTMLInputElement>("Playout buffer (ms)")!.value).toBe("80");
    expect(byLabel<HTMLInputElement>("Playout buffer (ms)")!.getAttribute("aria-invalid")).toBe("true");
    expect(host.textContent).toContain("too long");
  });

  it("a video flow's frame deadline: 150 ms by default, above 0 and at most 10 s", () => {
    mount(withFlow({ kind: "video", video: { bitrate_mbps: 2 } }));
    const deadline = byLabel<HTMLInputElement>("Frame deadline (ms)")!;
    expect(deadline.value).toBe("150");
    expect(host.textContent).toContain("ITU-T G.114");
    type(deadline, "250");
    expect(changes.at(-1)!.flows![0]!.video).toEqual({ bitrate_mbps: 2, playout_delay_ms: 250 });
    // VideoSource.playout_delay_ms: 0 < x <= 10000 ms; 0 is refused
    const stored = changes.length;
    type(deadline, "0");
    expect(changes.length).toBe(stored);
    expect(deadline.getAttribute("aria-invalid")).toBe("true");
    mount(withFlow({ kind: "video", video: { bitrate_mbps: 2, playout_delay_ms: 200 } }), { "flows.0.video.playout_delay_ms": "deadline refused" });
    expect(byLabel<HTMLInputElement>("Frame deadline (ms)")!.value).toBe("200");
    expect(byLabel<HTMLInputElement>("Frame deadline (ms)")!.getAttribute("aria-invalid")).toBe("true");
    expect(host.textContent).toContain("deadline refused");
  });

  it("sets the class chosen", () => {
    mount(withFlow({ kind: "voice" }));
    choose(byLabel<HTMLSelectElement>("Flow f1 DSCP")!, "EF");
    expect(changes.at(-1)!.flows![0]!.dscp).toBe("EF");
  });
});

describe("kind rules", () => {
  it("re-choosing the kind keeps its settings; another kind clears them", () => {
    const f: Flow = { id: "f", src: "a", dst: "b", kind: "voice", voice: { codec: "g729a" } };
    expect(kindPatch(f, "voice").voice).toEqual({ codec: "g729a" });
    expect(kindPatch(f, "tcp")).toEqual({ kind: "tcp", udp: null, voice: null, video: null });
    expect(kindPatch({ ...f, kind: "udp", rate_mbps: 4 }, "udp").rate_mbps).toBe(4);
  });
  it("hints RFC 4594's classes and computes a voice call's wire rate", () => {
    expect(dscpHint("voice")).toBe("EF");
    expect(dscpHint("video")).toBe("AF41");
    expect(dscpHint("tcp")).toBeNull();
    // G.729A every 20 ms: 20 bytes + 40 → 60 bytes every 20 ms = 24 kbit/s; G.711 every 10 ms: 80 + 40 bytes → 96
    expect(voiceWireRateKbps({ codec: "g729a" })).toBeCloseTo(24, 12);
    expect(voiceWireRateKbps({ codec: "g711", packet_interval_ms: 10 })).toBeCloseTo(96, 12);
    expect(voiceWireRateKbps({ codec: "opus" })).toBeNull();
  });
});

describe("queueing section", () => {
  const mount = (doc: ScenarioDocument, errors: Record<string, string> = {}) => act(() => root.render(<QueueingFields doc={doc} e={errors} onChange={(d) => changes.push(d)} />));

  it("fifo by default, without classes; a discipline is stored with RFC 8325's classes by default", () => {
    mount(base);
    expect(byLabel<HTMLSelectElement>("Link queues")!.value).toBe("fifo");
    expect(byLabel<HTMLSelectElement>("802.11 access")!.value).toBe("dcf");
    expect(host.querySelector('[aria-label="Traffic classes"]')).toBeNull();
    choose(byLabel<HTMLSelectElement>("Link queues")!, "strict_priority");
    expect(changes.at(-1)!.queueing).toEqual({ discipline: "strict_priority" });
    mount(changes.at(-1)!);
    const defaults = byLabel<HTMLInputElement>("RFC 8325 default classes (voice, video, best effort, background)")!;
    expect(defaults.checked).toBe(true);
    act(() => defaults.click());
    const classes = changes.at(-1)!.queueing!.classes!;
    expect(classes.map((c) => c.name)).toEqual(["voice", "video", "best_effort", "background"]);
    expect(classes[0]!.dscp).toEqual(["EF", "CS6"]);
    mount(changes.at(-1)!, { "queueing.classes.1.priority": "priorities must be unique" });
    expect(host.querySelector('[aria-label="Traffic classes"]')).not.toBeNull();
    expect(byLabel<HTMLInputElement>("Class video priority")!.getAttribute("aria-invalid")).toBe("true");
    expect(host.textContent).toContain("priorities must be unique");
  });

  it("drr edits weights; EDCA is chosen for 802.11 hops", () => {
    mount({ ...base, queueing: { discipline: "drr", classes: [{ name: "voice", dscp: ["EF"], weight: 4 }, { name: "rest", dscp: ["BE"] }] } });
    expect(byLabel<HTMLInputElement>("Class voice weight")!.value).toBe("4");
    expect(byLabel("Class voice priority")).toBeNull();
    choose(byLabel<HTMLSelectElement>("802.11 access")!, "edca");
    expect(changes.at(-1)!.queueing!.wifi).toBe("edca");
  });

  it("reads DSCP lists as typed", () => {
    expect(parseDscpList("ef, cs6 AF41")).toEqual({ dscp: ["EF", "CS6", "AF41"], unknown: [] });
    expect(parseDscpList("EF, XX")).toEqual({ dscp: ["EF"], unknown: ["XX"] });
  });
});
