/**
 * A flow's kind of traffic in the editor (docs/traffic.md, `subflow.scenario.document.Flow`): what changes when
 * the kind changes, the DiffServ class choices with RFC 4594's service classes, and a voice call's rate on the
 * wire. Pure.
 *
 * Owns:
 * 1. `kindPatch(flow, kind)` — the fields to set so that the flow is valid for its new kind.
 * 2. `DSCP_CHOICES`, `dscpHint(kind)` — the classes of `Flow.dscp` and the one RFC 4594 suggests for a kind.
 * 3. `voiceWireRateKbps(voice)` — a voice flow's IP rate from its codec and packet interval.
 */
import type { DscpClass, Flow, FlowKind, VoiceSource } from "../api/types";

export const FLOW_KINDS: readonly { value: FlowKind; label: string }[] = [
  { value: "tcp", label: "TCP (strategy's transport)" },
  { value: "udp", label: "UDP (non-responsive)" },
  { value: "voice", label: "Voice (RTP call)" },
  { value: "video", label: "Video (encoder)" },
];

/** Code points: EF RFC 3246, AFxy = 8x + 2y RFC 2597, CSx = 8x RFC 2474, BE 0. */
const CODEPOINTS: Record<DscpClass, number> = {
  BE: 0, EF: 46,
  AF11: 10, AF12: 12, AF13: 14, AF21: 18, AF22: 20, AF23: 22,
  AF31: 26, AF32: 28, AF33: 30, AF41: 34, AF42: 36, AF43: 38,
  CS1: 8, CS2: 16, CS3: 24, CS4: 32, CS5: 40, CS6: 48, CS7: 56,
};

/** RFC 4594 §3–4 service classes named beside the code points that mark them. */
const SERVICE_CLASS: Partial<Record<DscpClass, string>> = {
  BE: "best effort",
  EF: "telephony",
  AF41: "interactive video", AF42: "interactive video", AF43: "interactive video",
  AF31: "streaming video", AF32: "streaming video", AF33: "streaming video",
  AF21: "low-latency data", AF22: "low-latency data", AF23: "low-latency data",
  AF11: "high-throughput data", AF12: "high-throughput data", AF13: "high-throughput data",
  CS1: "low-priority data", CS2: "OAM", CS3: "broadcast video", CS4: "real-time interactive",
  CS5: "signaling", CS6: "network control", CS7: "reserved",
};

export const DSCP_CLASSES = Object.keys(CODEPOINTS) as DscpClass[];

export const DSCP_CHOICES: readonly { value: DscpClass; label: string }[] = DSCP_CLASSES.map((d) => ({
  value: d,
  label: `${d} (${CODEPOINTS[d]})${SERVICE_CLASS[d] ? ` ${SERVICE_CLASS[d]}` : ""}`,
}));

/** The class RFC 4594 marks a kind's traffic with (telephony EF, interactive video AF41), null for the others. */
export function dscpHint(kind: FlowKind): DscpClass | null {
  return kind === "voice" ? "EF" : kind === "video" ? "AF41" : null;
}

/**
 * The fields to change when `flow` becomes `kind`: the other kinds' settings cleared, `rate_mbps` required by udp
 * (1 Mbit/s if it had none) and cleared for voice and video (their rate follows from codec and encoder),
 * `size_bytes` kept only for tcp, a video flow given an encoder (2 Mbit/s) since it needs one.
 */
export function kindPatch(flow: Flow, kind: FlowKind): Partial<Flow> {
  const patch: Partial<Flow> = { kind, udp: null, voice: null, video: null };
  if (kind !== "tcp") patch.size_bytes = null;
  if (kind === "udp") patch.rate_mbps = flow.rate_mbps ?? 1;
  if (kind === "voice" || kind === "video") patch.rate_mbps = null;
  if (kind === "video") patch.video = { bitrate_mbps: 2 };
  if (kind === flow.kind) {
    // re-choosing the same kind keeps its settings
    patch.udp = flow.udp ?? null;
    patch.voice = flow.voice ?? null;
    patch.video = flow.video ?? patch.video ?? null;
  }
  return patch;
}

/** Payload rate of a codec, kbit/s (G.711 64, G.729A 8; Opus at its configured rate, RFC 7587). */
export function codecPayloadKbps(voice: VoiceSource | null | undefined): number | null {
  const codec = voice?.codec ?? "g711";
  if (codec === "g711") return 64;
  if (codec === "g729a") return 8;
  return voice?.opus_bitrate_kbps ?? null;
}

/**
 * A voice flow's IP rate, kbit/s: b · p / 8 bytes of payload every p ms plus 40 bytes of IPv4 (20), UDP (8) and
 * RTP (12) headers, b · (b·p/8 + 40) / (b·p/8) (as `subflow.results.voice.wire_rate_kbps`); null for Opus
 * without its rate.
 */
export function voiceWireRateKbps(voice: VoiceSource | null | undefined): number | null {
  const b = codecPayloadKbps(voice);
  if (b === null) return null;
  const p = voice?.packet_interval_ms ?? 20;
  const payload = (b * p) / 8;
  return (b * (payload + 40)) / payload;
}
