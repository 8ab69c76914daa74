/**
 * The settings of a flow's kind of traffic (docs/traffic.md): a udp source's pattern and packets, a voice call's
 * codec and playout buffer, an encoder's bit rate, frame rate, group of pictures and frame deadline. Bounds from the backend's models
 * (`schema`); the server's errors under `flows[i].udp` / `.voice` / `.video` shown on their field.
 */
import type { Flow, UdpSource, VideoSource, VoiceSource } from "../api/types";
import { voiceWireRateKbps } from "../lib/flowKinds";
import { formatFixed3 } from "../lib/format";
import { CheckboxField, NumberField, SelectField } from "./fields";

export interface FlowKindFieldsProps {
  flow: Flow;
  /** the flow's server errors, keyed below `flows.i` (`voice.codec`, `udp`) */
  errors: Record<string, string>;
  onChange: (patch: Partial<Flow>, key: string) => void;
}

export function FlowKindFields({ flow, errors, onChange }: FlowKindFieldsProps) {
  const kind = flow.kind ?? "tcp";
  if (kind === "tcp") return null;
  return (
    <fieldset className="field-grid flow-kind-fields" aria-label={`Flow ${flow.id} ${kind} settings`}>
      {errors[kind] ? <p className="field-wide field-error">{errors[kind]}</p> : null}
      {kind === "udp" ? <UdpFields udp={flow.udp ?? {}} errors={errors} onChange={(udp, key) => onChange({ udp }, `udp.${key}`)} /> : null}
      {kind === "voice" ? <VoiceFields voice={flow.voice ?? {}} errors={errors} onChange={(voice, key) => onChange({ voice }, `voice.${key}`)} /> : null}
      {kind === "video" ? <VideoFields video={flow.video ?? { bitrate_mbps: 2 }} errors={errors} onChange={(video, key) => onChange({ video }, `video.${key}`)} /> : null}
    </fieldset>
  );
}

function UdpFields({ udp, errors: e, onChange }: { udp: UdpSource; errors: Record<string, string>; onChange: (udp: UdpSource, key: string) => void }) {
  const put = (patch: Partial<UdpSource>, key: string) => onChange({ ...udp, ...patch }, key);
  const onOff = udp.pattern === "on_off";
  return (
    <>
      <SelectField
        label="Pattern"
        value={udp.pattern ?? "cbr"}
        options={[
          { value: "cbr", label: "Constant bit rate" },
          { value: "on_off", label: "On/off bursts at the rate" },
        ]}
        error={e["udp.pattern"]}
        onChange={(v) => put({ pattern: v }, "pattern")}
      />
      <NumberField label="Packet payload" unit="bytes" integer schema={["UdpSource", "packet_bytes"]} value={udp.packet_bytes ?? 1200} error={e["udp.packet_bytes"]} onChange={(v) => put({ packet_bytes: v ?? 1200 }, "packet")} />
      {onOff ? (
        <>
          <SelectField
            label="Period lengths"
            value={udp.periods ?? "exponential"}
            options={[
              { value: "exponential", label: "Exponential" },
              { value: "pareto", label: "Pareto" },
            ]}
            error={e["udp.periods"]}
            onChange={(v) => put({ periods: v }, "periods")}
          />
          <NumberField label="Mean on period" unit="s" schema={["UdpSource", "mean_on_s"]} value={udp.mean_on_s ?? 1} error={e["udp.mean_on_s"]} onChange={(v) => put({ mean_on_s: v ?? 1 }, "on")} />
          <NumberField label="Mean off period" unit="s" schema={["UdpSource", "mean_off_s"]} value={udp.mean_off_s ?? 1} error={e["udp.mean_off_s"]} onChange={(v) => put({ mean_off_s: v ?? 1 }, "off")} />
          {udp.periods === "pareto" ? (
            <NumberField label="Pareto shape" schema={["UdpSource", "pareto_shape"]} value={udp.pareto_shape ?? 1.5} error={e["udp.pareto_shape"]} hint="Above 1, so that the mean exists." onChange={(v) => put({ pareto_shape: v ?? 1.5 }, "shape")} />
          ) : null}
        </>
      ) : null}
    </>
  );
}

function VoiceFields({ voice, errors: e, onChange }: { voice: VoiceSource; errors: Record<string, string>; onChange: (voice: VoiceSource, key: string) => void }) {
  const put = (patch: Partial<VoiceSource>, key: string) => onChange({ ...voice, ...patch }, key);
  const codec = voice.codec ?? "g711";
  const wire = voiceWireRateKbps(voice);
  return (
    <>
      <SelectField
        label="Codec"
        value={codec}
        options={[
          { value: "g711", label: "G.711 (64 kbit/s)" },
          { value: "g729a", label: "G.729A (8 kbit/s)" },
          { value: "opus", label: "Opus (chosen rate)" },
        ]}
        error={e["voice.codec"]}
        onChange={(v) => put({ codec: v, opus_bitrate_kbps: v === "opus" ? (voice.opus_bitrate_kbps ?? 32) : null }, "codec")}
      />
      <NumberField
        label="Packet interval"
        unit="ms"
        schema={["VoiceSource", "packet_interval_ms"]}
        value={voice.packet_interval_ms ?? 20}
        error={e["voice.packet_interval_ms"]}
        hint={wire === null ? undefined : `${formatFixed3(wire)} kbit/s on the wire (IP/UDP/RTP headers included).`}
        onChange={(v) => put({ packet_interval_ms: v ?? 20 }, "interval")}
      />
      {codec === "opus" ? (
        <NumberField label="Opus bit rate" unit="kbit/s" schema={["VoiceSource", "opus_bitrate_kbps"]} value={voice.opus_bitrate_kbps ?? 32} error={e["voice.opus_bitrate_kbps"]} onChange={(v) => put({ opus_bitrate_kbps: v ?? 32 }, "opus")} />
      ) : null}
      <NumberField
        label="Playout buffer"
        unit="ms"
        schema={["VoiceSource", "playout_delay_ms"]}
        value={voice.playout_delay_ms ?? 40}
        error={e["voice.playout_delay_ms"]}
        hint="Fixed jitter buffer at the receiver (30 to 50 ms is typical): added to the mouth-to-ear delay; a packet later than the mean delay plus this is lost."
        onChange={(v) => put({ playout_delay_ms: v ?? 40 }, "playout")}
      />
      <CheckboxField label="Silence suppression (VAD)" value={voice.silence_suppression ?? false} error={e["voice.silence_suppression"]} onChange={(v) => put({ silence_suppression: v }, "vad")} />
      <CheckboxField label="Packet loss concealment" value={voice.plc ?? true} error={e["voice.plc"]} onChange={(v) => put({ plc: v }, "plc")} />
    </>
  );
}

function VideoFields({ video, errors: e, onChange }: { video: VideoSource; errors: Record<string, string>; onChange: (video: VideoSource, key: string) => void }) {
  const put = (patch: Partial<VideoSource>, key: string) => onChange({ ...video, ...patch }, key);
  return (
    <>
      <NumberField label="Bit rate" unit="Mbit/s" schema={["VideoSource", "bitrate_mbps"]} value={video.bitrate_mbps} error={e["video.bitrate_mbps"]} onChange={(v) => put({ bitrate_mbps: v ?? 2 }, "rate")} />
      <NumberField label="Frame rate" unit="frames/s" schema={["VideoSource", "frame_rate_fps"]} value={video.frame_rate_fps ?? 30} error={e["video.frame_rate_fps"]} onChange={(v) => put({ frame_rate_fps: v ?? 30 }, "fps")} />
      <NumberField label="Group of pictures" unit="frames" integer schema={["VideoSource", "gop_frames"]} value={video.gop_frames ?? 30} error={e["video.gop_frames"]} hint="One intra-coded frame every this many; 1 = intra only." onChange={(v) => put({ gop_frames: v ?? 30 }, "gop")} />
      <NumberField
        label="Frame deadline"
        unit="ms"
        schema={["VideoSource", "playout_delay_ms"]}
        value={video.playout_delay_ms ?? 150}
        error={e["video.playout_delay_ms"]}
        hint="Playout deadline after a frame is sent (ITU-T G.114: up to 150 ms one-way suits interactive use); a frame arriving whole but later counts as late."
        onChange={(v) => put({ playout_delay_ms: v ?? 150 }, "deadline")}
      />
    </>
  );
}
