/**
 * The editor's side panel: the parameters of the selected node or link (units
 * in the labels), the scenario's settings when nothing is selected, and each
 * server validation message next to the field it names.
 */
import { Fragment, useState } from "react";
import type {
  AccessPointNode,
  Bounds,
  Link,
  Mobility,
  MobilityModel,
  NodeRadio,
  PropagationSettings,
  HandoverSettings,
  Position,
  LoiterMobility,
  RateStep,
  SatcomUse,
  SatelliteNode,
  ScenarioDocument,
  ScenarioNode,
  ScenarioPublic,
  TransportSettings,
  Waypoint,
} from "../api/types";
import {
  addLink,
  addRateStep,
  deleteElements,
  deleteRateStep,
  errorsUnder,
  linkBetween,
  MOBILITY_MODELS,
  mobilityOf,
  renameNode,
  timesFromSpeed,
  updateLink,
  updateNode,
  updateRateStep,
} from "../lib/editor";
import { kindName, nodeChoices, nodeText, norm } from "../lib/topology";
import { formatClock } from "../lib/format";
import { geoPoint, isGeoPoint, isGeoScenario, placeNodes } from "../lib/geo";
import { CheckboxField, NumberField, SelectField, TextField } from "./fields";
import { TrackImport } from "./TrackImport";
import { LinkBudgetFields } from "./LinkBudgetFields";
import { QueueingFields } from "./QueueingFields";
import { SatcomSettingsFields } from "./SatcomSettingsFields";
import { SatelliteFields } from "./SatelliteFields";
import { hasOrbits, satcomSatelliteOf } from "../lib/satcomEditor";
import type { Selection, Tool } from "./TopologyGraph";
import { NODE_ICONS, type NodeIcon } from "./nodeIcons";

export type Change = (next: ScenarioDocument, coalesce?: string) => void;

const MODEL_LABELS: Record<MobilityModel, string> = {
  static: "Static",
  waypoints: "Waypoints (drawn path)",
  linear: "Linear (start → end)",
  random_walk: "Random walk",
  random_waypoint: "Random waypoint",
  gauss_markov: "Gauss–Markov",
  loiter: "Loiter (UAV circle / racetrack)",
};

export interface InspectorProps {
  doc: ScenarioDocument;
  selection: Selection;
  errors: Record<string, string>;
  tool: Tool;
  setTool: (t: Tool) => void;
  waypointSpeed: number;
  setWaypointSpeed: (v: number) => void;
  onChange: Change;
  onSelect: (sel: Selection) => void;
  /** The saved scenario's id (null: not saved yet), for track imports. */
  scenarioId?: string | null;
  /** The saved version being edited. */
  version?: number;
  /** The document has unsaved changes (a track import stores a new version: save first). */
  dirty?: boolean;
  onTrackImported?: (s: ScenarioPublic) => void;
  /** The SATCOM uses of the document as edited (`POST /api/timeline` `satcom`), for the delays from the orbits. */
  satcomUses?: readonly SatcomUse[] | null;
}

export function Inspector(props: InspectorProps) {
  const { doc, selection } = props;
  const total = selection.nodes.length + selection.links.length;
  if (total > 1) {
    return (
      <section className="card inspector" aria-labelledby="inspector-title">
        <h2 id="inspector-title">{total} elements selected</h2>
        <p className="muted small">
          {selection.nodes.length} node(s), {selection.links.length} link(s). Drag one of the selected nodes to move them together.
        </p>
        <button
          type="button"
          className="btn btn-danger"
          onClick={() => {
            props.onChange(deleteElements(doc, selection.nodes, selection.links));
            props.onSelect({ nodes: [], links: [] });
          }}
        >
          Delete selected
        </button>
      </section>
    );
  }
  if (selection.nodes.length === 1) {
    const index = doc.nodes.findIndex((n) => n.id === selection.nodes[0]);
    if (index >= 0) return <NodePanel {...props} index={index} node={doc.nodes[index]!} />;
  }
  if (selection.links.length === 1) {
    const index = (doc.links ?? []).findIndex((l) => l.id === selection.links[0]);
    if (index >= 0) return <LinkPanel {...props} index={index} link={doc.links![index]!} />;
  }
  return <ScenarioPanel {...props} />;
}

function NodePanel(props: InspectorProps & { index: number; node: ScenarioNode }) {
  const { doc, node, index, onChange } = props;
  const errs = errorsUnder(props.errors, `nodes.${index}`);
  const set = (patch: Record<string, unknown>, key: string) => onChange(updateNode(doc, node.id, patch), `${node.id}.${key}`);
  const pos = norm(node.position);
  return (
    <section className="card inspector" aria-labelledby="inspector-title">
      <h2 id="inspector-title">
        {kindName(node.kind)} <code>{node.id}</code>
        {node.label && node.label !== node.id ? <span className="inspector-label"> · {node.label}</span> : null}
      </h2>
      {errs[""] ? <p className="field-error">{errs[""]}</p> : null}
      <div className="field-grid">
        <TextField
          label="Id"
          value={node.id}
          commitOnBlur
          error={errs.id}
          onChange={(v) => {
            onChange(renameNode(doc, node.id, v.trim()));
            props.onSelect({ nodes: [v.trim()], links: [] });
          }}
        />
        <TextField label="Label" value={node.label ?? ""} error={errs.label} onChange={(v) => set({ label: v || null }, "label")} />
        <SelectField
          label="Drawn as"
          value={node.icon ?? ""}
          options={[{ value: "", label: kindName(node.kind) }, ...(Object.keys(NODE_ICONS) as NodeIcon[]).map((k) => ({ value: k, label: NODE_ICONS[k].label }))]}
          error={errs.icon}
          onChange={(v) => set({ icon: v || null }, "icon")}
        />
        {isGeoPoint(node.position) ? (
          <GeoPositionFields node={node} errs={errs} set={set} />
        ) : (
          <>
            <NumberField label="X" unit="m" value={pos.x_m} error={errs["position.x_m"] ?? errs.position} onChange={(v) => set({ position: { ...pos, x_m: v ?? 0 } }, "x")} />
            <NumberField label="Y" unit="m" value={pos.y_m} error={errs["position.y_m"]} onChange={(v) => set({ position: { ...pos, y_m: v ?? 0 } }, "y")} />
          </>
        )}
      </div>
      {!isGeoPoint(node.position) ? <PlaceByLatLon onPlace={(at) => onChange(placeNodes(doc, { [node.id]: at }))} /> : null}
      {node.kind === "access_point" ? <AccessPointFields node={node} errs={errs} set={set} /> : null}
      {node.kind === "station" ? (
        <fieldset className="field-grid">
          <legend>Radio</legend>
          <RadioFields radio={node.radio ?? null} errs={errs} set={set} />
        </fieldset>
      ) : null}
      {node.kind === "station" || node.kind === "host" ? (
        <CheckboxField
          label="Relay (forwards other nodes' traffic)"
          value={Boolean(node.relay)}
          error={errs.relay}
          onChange={(v) => set({ relay: v }, "relay")}
        />
      ) : null}
      {node.kind === "satellite" ? <SatelliteFields doc={doc} node={node as SatelliteNode} errs={errs} set={set} onChange={onChange} /> : null}
      {node.kind !== "satellite" ? <MobilityFields {...props} node={node} errs={errs} /> : null}
      {node.kind !== "satellite" && isGeoScenario(doc) && props.onTrackImported ? (
        <TrackImport
          scenarioId={props.scenarioId ?? null}
          version={props.version}
          nodeId={node.id}
          disabled={props.dirty ? "Save your changes first: an import stores a new version." : null}
          onImported={props.onTrackImported}
        />
      ) : null}
      <ConnectTo doc={doc} node={node} onChange={onChange} onSelect={props.onSelect} />
      <div className="actions">
        <button
          type="button"
          className="btn btn-danger"
          onClick={() => {
            onChange(deleteElements(doc, [node.id], []));
            props.onSelect({ nodes: [], links: [] });
          }}
        >
          Delete node
        </button>
      </div>
    </section>
  );
}

/** A wired link from this node to another, chosen by name: the keyboard's way to draw a link. */
function ConnectTo({ doc, node, onChange, onSelect }: { doc: ScenarioDocument; node: ScenarioNode; onChange: InspectorProps["onChange"]; onSelect: InspectorProps["onSelect"] }) {
  const others = nodeChoices(doc).filter((c) => c.id !== node.id && !linkBetween(doc, node.id, c.id));
  const [target, setTarget] = useState("");
  const chosen = others.some((c) => c.id === target) ? target : "";
  if (!others.length) return null;
  return (
    <div className="field connect-to">
      <label htmlFor={`connect-${node.id}`}>Connect to</label>
      <div className="inline">
        <select id={`connect-${node.id}`} value={chosen} onChange={(e) => setTarget(e.currentTarget.value)}>
          <option value="">a node…</option>
          {others.map((c) => (
            <option key={c.id} value={c.id}>
              {c.text}
            </option>
          ))}
        </select>{" "}
        <button
          type="button"
          className="btn btn-small"
          disabled={!chosen}
          onClick={() => {
            const r = addLink(doc, node.id, chosen);
            if (!r) return;
            onChange(r.doc);
            onSelect({ nodes: [], links: [r.id] });
          }}
        >
          Add link
        </button>
      </div>
    </div>
  );
}

function AccessPointFields({ node, errs, set }: { node: AccessPointNode; errs: Record<string, string>; set: (p: Record<string, unknown>, k: string) => void }) {
  return (
    <fieldset className="field-grid">
      <legend>Radio</legend>
      <NumberField label="Range" unit="m" schema={["AccessPointNode", "range_m"]} value={node.range_m} error={errs.range_m} onChange={(v) => set({ range_m: v ?? 0 }, "range_m")} />
      <TextField label="Network" value={node.network ?? "wlan"} error={errs.network} onChange={(v) => set({ network: v }, "network")} />
      <NumberField label="Association delay" unit="s" schema={["AccessPointNode", "association_delay_s"]} optional placeholder="from beacons and scanning" value={node.association_delay_s ?? null} error={errs.association_delay_s} onChange={(v) => set({ association_delay_s: v }, "assoc")} />
      <NumberField label="Beacon interval" unit="ms" schema={["AccessPointNode", "beacon_interval_ms"]} value={node.beacon_interval_ms ?? 102.4} error={errs.beacon_interval_ms} onChange={(v) => set({ beacon_interval_ms: v ?? 0 }, "beacon")} />
      <NumberField label="Wireless bandwidth" unit="Mbit/s" schema={["AccessPointNode", "wireless_bandwidth_mbps"]} value={node.wireless_bandwidth_mbps ?? 54} error={errs.wireless_bandwidth_mbps} onChange={(v) => set({ wireless_bandwidth_mbps: v ?? 0 }, "wbw")} />
      <NumberField label="Wireless delay" unit="ms" schema={["AccessPointNode", "wireless_delay_ms"]} value={node.wireless_delay_ms ?? 1} error={errs.wireless_delay_ms} onChange={(v) => set({ wireless_delay_ms: v ?? 0 }, "wdelay")} />
      <NumberField label="Wireless loss" unit="%" factor={100} schema={["AccessPointNode", "wireless_loss"]} value={node.wireless_loss ?? 0} error={errs.wireless_loss} onChange={(v) => set({ wireless_loss: v ?? 0 }, "wloss")} />
      <NumberField label="Queue" unit="packets" integer schema={["AccessPointNode", "queue_packets"]} value={node.queue_packets ?? 100} error={errs.queue_packets} onChange={(v) => set({ queue_packets: v ?? 1 }, "queue")} />
      <TextField label="Uplink (access point)" value={node.uplink ?? ""} error={errs.uplink} onChange={(v) => set({ uplink: v.trim() || null }, "uplink")} />
      <RadioFields radio={node.radio ?? null} errs={errs} set={set} />
      <RateTableFields node={node} errs={errs} set={set} />
    </fieldset>
  );
}

const RADIO_DEFAULT: NodeRadio = { tx_power_dbm: 20, antenna_gain_dbi: 0, frequency_mhz: 2412, phy: "g", channel_width_mhz: 20, antenna_height_m: 1 };
const PHY_OPTIONS = [
  { value: "g", label: "802.11g (2.4 GHz)" },
  { value: "a", label: "802.11a (5 GHz)" },
  { value: "n", label: "802.11n (HT)" },
  { value: "ac", label: "802.11ac (VHT)" },
] as const;
const WIDTH_OPTIONS = [
  { value: "20", label: "20 MHz" },
  { value: "40", label: "40 MHz" },
  { value: "80", label: "80 MHz" },
  { value: "160", label: "160 MHz" },
] as const;

/** The 802.11 radio of an access point or station (docs/radio.md): none, or power, antenna, channel and PHY. */
function RadioFields({ radio, errs, set }: { radio: NodeRadio | null; errs: Record<string, string>; set: (p: Record<string, unknown>, k: string) => void }) {
  if (!radio) {
    return (
      <div className="field-wide">
        <p className="muted small">No radio: range and rate as set above.</p>
        <button type="button" className="btn btn-small" onClick={() => set({ radio: RADIO_DEFAULT }, "radio_add")}>
          Add radio
        </button>
      </div>
    );
  }
  const put = (patch: Partial<NodeRadio>, key: string) => set({ radio: { ...radio, ...patch } }, `radio.${key}`);
  return (
    <>
      <NumberField label="Transmit power" unit="dBm" value={radio.tx_power_dbm ?? 20} error={errs["radio.tx_power_dbm"]} onChange={(v) => put({ tx_power_dbm: v ?? 0 }, "tx")} />
      <NumberField label="Antenna gain" unit="dBi" value={radio.antenna_gain_dbi ?? 0} error={errs["radio.antenna_gain_dbi"]} onChange={(v) => put({ antenna_gain_dbi: v ?? 0 }, "gain")} />
      <NumberField
        label="Channel"
        integer
        optional
        placeholder="by frequency"
        value={radio.channel ?? null}
        error={errs["radio.channel"]}
        onChange={(v) => set({ radio: { ...radio, channel: v, frequency_mhz: v === null ? (radio.frequency_mhz ?? 2412) : undefined } }, "radio.channel")}
      />
      <NumberField
        label="Frequency"
        unit="MHz"
        optional={radio.channel != null}
        placeholder="from the channel"
        value={radio.channel != null ? (radio.frequency_mhz ?? null) : (radio.frequency_mhz ?? 2412)}
        error={errs["radio.frequency_mhz"] ?? errs.radio}
        onChange={(v) => put(v === null ? { frequency_mhz: undefined } : { frequency_mhz: v, channel: null }, "freq")}
      />
      <SelectField label="PHY" value={radio.phy ?? "g"} options={PHY_OPTIONS} error={errs["radio.phy"]} onChange={(v) => put({ phy: v }, "phy")} />
      <SelectField
        label="Channel width"
        value={String(radio.channel_width_mhz ?? 20) as "20" | "40" | "80" | "160"}
        options={WIDTH_OPTIONS}
        error={errs["radio.channel_width_mhz"]}
        onChange={(v) => put({ channel_width_mhz: Number(v) as NodeRadio["channel_width_mhz"] }, "width")}
      />
      <NumberField label="Antenna height" unit="m" value={radio.antenna_height_m ?? 1} error={errs["radio.antenna_height_m"]} onChange={(v) => put({ antenna_height_m: v ?? 0 }, "height")} />
      <div className="actions field-wide">
        <button type="button" className="btn btn-small" onClick={() => set({ radio: null }, "radio_del")}>
          Remove radio
        </button>
      </div>
    </>
  );
}

/** Scenario-wide propagation model, noise floor, MCS selection and ad-hoc links (docs/radio.md). */
function PropagationFields({ doc, onChange, e }: { doc: ScenarioDocument; onChange: InspectorProps["onChange"]; e: Record<string, string> }) {
  const radio = doc.radio ?? {};
  const prop: PropagationSettings = radio.propagation ?? {};
  const put = (patch: Partial<PropagationSettings>, key: string) => onChange({ ...doc, radio: { ...radio, propagation: { ...prop, ...patch } } }, `prop.${key}`);
  return (
    <fieldset className="field-grid">
      <legend>Radio propagation</legend>
      <SelectField
        label="Path-loss model"
        value={prop.model ?? "friis"}
        options={[
          { value: "friis", label: "Free space (Friis)" },
          { value: "log_distance", label: "Log-distance" },
          { value: "two_ray", label: "Two-ray ground" },
        ]}
        error={e["radio.propagation.model"]}
        onChange={(v) => put({ model: v }, "model")}
      />
      <NumberField label="Path-loss exponent" value={prop.exponent ?? 3} error={e["radio.propagation.exponent"]} onChange={(v) => put({ exponent: v ?? 0 }, "exp")} />
      <NumberField label="Reference distance" unit="m" value={prop.reference_distance_m ?? 1} error={e["radio.propagation.reference_distance_m"]} onChange={(v) => put({ reference_distance_m: v ?? 0 }, "d0")} />
      <NumberField label="Reference loss" unit="dB" optional placeholder="Friis at d0" value={prop.reference_loss_db ?? null} error={e["radio.propagation.reference_loss_db"]} onChange={(v) => put({ reference_loss_db: v }, "l0")} />
      <NumberField label="System loss" unit="dB" value={prop.system_loss_db ?? 0} error={e["radio.propagation.system_loss_db"]} onChange={(v) => put({ system_loss_db: v ?? 0 }, "sys")} />
      <SelectField
        label="MCS selection"
        value={radio.rate_selection ?? "error_rate"}
        options={[
          { value: "error_rate", label: "Error rate (soft decisions, BER 1e-6)" },
          { value: "nist", label: "Error rate (NIST, 10 % PER, cautious)" },
          { value: "min_sensitivity", label: "Minimum sensitivity (conservative)" },
        ]}
        error={e["radio.rate_selection"]}
        onChange={(v) => onChange({ ...doc, radio: { ...radio, rate_selection: v } }, "rate_selection")}
      />
      <NumberField label="Noise floor (20 MHz)" unit="dBm" optional placeholder={radio.rate_selection === "min_sensitivity" ? "-90.99" : "-93.99"} value={prop.noise_floor_dbm ?? null} error={e["radio.propagation.noise_floor_dbm"]} onChange={(v) => put({ noise_floor_dbm: v }, "noise")} />
      <CheckboxField
        label="Ad-hoc links between stations in range"
        value={Boolean(radio.adhoc_links)}
        error={e["radio.adhoc_links"]}
        onChange={(v) => onChange({ ...doc, radio: { ...radio, adhoc_links: v } }, "adhoc")}
      />
    </fieldset>
  );
}

/** Scenario-wide handover timing: beacon-loss detection and scanning (docs/radio.md, "Handover timing"). */
function HandoverFields({ doc, onChange, e }: { doc: ScenarioDocument; onChange: InspectorProps["onChange"]; e: Record<string, string> }) {
  const radio = doc.radio ?? {};
  const ho: HandoverSettings = radio.handover ?? {};
  const put = (patch: Partial<HandoverSettings>, key: string) => onChange({ ...doc, radio: { ...radio, handover: { ...ho, ...patch } } }, `handover.${key}`);
  return (
    <fieldset className="field-grid">
      <legend>Handover</legend>
      <NumberField label="Missed beacons" integer value={ho.missed_beacons ?? 10} error={e["radio.handover.missed_beacons"]} onChange={(v) => put({ missed_beacons: v ?? 1 }, "missed")} />
      <SelectField
        label="Scan"
        value={ho.scan ?? "passive"}
        options={[
          { value: "passive", label: "Passive (listen for beacons)" },
          { value: "active", label: "Active (probe requests)" },
        ]}
        error={e["radio.handover.scan"]}
        onChange={(v) => put({ scan: v }, "scan")}
      />
      <NumberField label="Channels scanned" integer value={ho.scan_channels ?? 1} error={e["radio.handover.scan_channels"]} onChange={(v) => put({ scan_channels: v ?? 1 }, "channels")} />
      {(ho.scan ?? "passive") === "passive" ? (
        <NumberField label="Dwell per channel" unit="ms" value={ho.channel_dwell_ms ?? 120} error={e["radio.handover.channel_dwell_ms"]} onChange={(v) => put({ channel_dwell_ms: v ?? 0 }, "dwell")} />
      ) : (
        <NumberField label="Probe wait per channel" unit="ms" value={ho.probe_wait_ms ?? 50} error={e["radio.handover.probe_wait_ms"]} onChange={(v) => put({ probe_wait_ms: v ?? 0 }, "probe")} />
      )}
      <NumberField label="Reuse scan results up to" unit="s" value={ho.scan_results_max_age_s ?? 0} error={e["radio.handover.scan_results_max_age_s"]} onChange={(v) => put({ scan_results_max_age_s: v ?? 0 }, "reuse")} />
    </fieldset>
  );
}

/** Optional air rate vs distance: the first row whose distance covers the station gives its rate. */
function RateTableFields({ node, errs, set }: { node: AccessPointNode; errs: Record<string, string>; set: (p: Record<string, unknown>, k: string) => void }) {
  const rows = node.rate_table ?? [];
  const put = (table: RateStep[] | null, key: string) => set({ rate_table: table }, key);
  return (
    <div className="rate-table field-wide">
      <div className="card-head">
        <span className="field-label">Rate vs distance</span>
        <button type="button" className="btn btn-small" onClick={() => put(addRateStep(rows, node.wireless_bandwidth_mbps ?? 54), "rate_add")}>
          Add rate step
        </button>
      </div>
      {rows.length ? (
        <table className="compact" aria-label="Rate vs distance">
          <thead>
            <tr>
              <th scope="col">Up to (m)</th>
              <th scope="col">Rate (Mbit/s)</th>
              <th scope="col">
                <span className="visually-hidden">Remove</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {rows.map((r, i) => (
              <tr key={i}>
                <td>
                  <NumberField label={`Rate step ${i + 1} distance`} unit="m" value={r.distance_m} error={errs[`rate_table.${i}.distance_m`]} onChange={(v) => put(updateRateStep(rows, i, { distance_m: v ?? 0 }), `rate.${i}.d`)} />
                </td>
                <td>
                  <NumberField label={`Rate step ${i + 1} rate`} unit="Mbit/s" value={r.bandwidth_mbps} error={errs[`rate_table.${i}.bandwidth_mbps`]} onChange={(v) => put(updateRateStep(rows, i, { bandwidth_mbps: v ?? 0 }), `rate.${i}.b`)} />
                </td>
                <td>
                  <button type="button" className="btn btn-small" aria-label={`Remove rate step ${i + 1}`} onClick={() => put(deleteRateStep(rows, i), "rate_del")}>
                    ×
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : (
        <p className="muted small">No table: every associated station gets the wireless bandwidth.</p>
      )}
      {errs.rate_table ? <p className="field-error">{errs.rate_table}</p> : null}
    </div>
  );
}

function BoundsFields({ bounds, errs, onBounds }: { bounds: Bounds; errs: Record<string, string>; onBounds: (b: Bounds) => void }) {
  const f = (k: keyof Bounds, label: string) => (
    <NumberField label={label} unit="m" value={bounds[k]} error={errs[`mobility.bounds.${k}`]} onChange={(v) => onBounds({ ...bounds, [k]: v ?? 0 })} />
  );
  return (
    <div className="field-grid">
      {f("x_min_m", "Bounds x min")}
      {f("y_min_m", "Bounds y min")}
      {f("x_max_m", "Bounds x max")}
      {f("y_max_m", "Bounds y max")}
      {errs["mobility.bounds"] ? <p className="field-error">{errs["mobility.bounds"]}</p> : null}
    </div>
  );
}

/** Latitude, longitude (WGS84 degrees) and altitude (metres) of a geographic node. */
function GeoPositionFields({ node, errs, set }: { node: ScenarioNode; errs: Record<string, string>; set: (p: Record<string, unknown>, k: string) => void }) {
  const p = node.position!;
  return (
    <>
      <NumberField label="Latitude" unit="°" value={p.lat_deg} error={errs["position.lat_deg"] ?? errs.position} onChange={(v) => set({ position: { ...p, lat_deg: v ?? 0 } }, "lat")} />
      <NumberField label="Longitude" unit="°" value={p.lon_deg} error={errs["position.lon_deg"]} onChange={(v) => set({ position: { ...p, lon_deg: v ?? 0 } }, "lon")} />
      <NumberField label="Altitude" unit="m" value={p.alt_m ?? 0} error={errs["position.alt_m"]} onChange={(v) => set({ position: { ...p, alt_m: v ?? 0 } }, "alt")} />
    </>
  );
}

/** Give a planar node a latitude and longitude (converting a scenario to geographic, node by node). */
function PlaceByLatLon({ onPlace }: { onPlace: (at: { lat_deg: number; lon_deg: number }) => void }) {
  const [lat, setLat] = useState("");
  const [lon, setLon] = useState("");
  const la = Number(lat);
  const lo = Number(lon);
  const ok = lat.trim() !== "" && lon.trim() !== "" && Number.isFinite(la) && Number.isFinite(lo) && Math.abs(la) <= 90 && Math.abs(lo) <= 180;
  return (
    <fieldset className="field-grid">
      <legend>Place by latitude / longitude</legend>
      <label className="field">
        <span className="field-label">Latitude (°)</span>
        <input type="number" step="any" min={-90} max={90} value={lat} onChange={(e) => setLat(e.currentTarget.value)} />
      </label>
      <label className="field">
        <span className="field-label">Longitude (°)</span>
        <input type="number" step="any" min={-180} max={180} value={lon} onChange={(e) => setLon(e.currentTarget.value)} />
      </label>
      <div className="actions field-wide">
        <button type="button" className="btn btn-small" disabled={!ok} onClick={() => onPlace({ lat_deg: la, lon_deg: lo })} title="The scenario becomes geographic: every node needs a latitude and longitude">
          Place at this latitude/longitude
        </button>
      </div>
    </fieldset>
  );
}

/** A UAV loiter: centre (picked on the map or typed), radius, speed, altitude, pattern. */
function LoiterFields({ m, errs, setMobility }: { m: LoiterMobility; errs: Record<string, string>; setMobility: (next: Mobility, key: string) => void }) {
  const put = (patch: Partial<LoiterMobility>, key: string) => setMobility({ ...m, ...patch } as Mobility, key);
  const c = m.center;
  const geoCentre = isGeoPoint(c);
  return (
    <div className="field-grid">
      {geoCentre ? (
        <>
          <NumberField label="Centre latitude" unit="°" value={c.lat_deg} error={errs["mobility.center.lat_deg"] ?? errs["mobility.center"]} onChange={(v) => put({ center: geoPoint(v ?? 0, c.lon_deg) }, "clat")} />
          <NumberField label="Centre longitude" unit="°" value={c.lon_deg} error={errs["mobility.center.lon_deg"]} onChange={(v) => put({ center: geoPoint(c.lat_deg, v ?? 0) }, "clon")} />
        </>
      ) : (
        <>
          <NumberField label="Centre x" unit="m" value={norm(c).x_m} error={errs["mobility.center.x_m"] ?? errs["mobility.center"]} onChange={(v) => put({ center: { ...norm(c), x_m: v ?? 0 } }, "cx")} />
          <NumberField label="Centre y" unit="m" value={norm(c).y_m} error={errs["mobility.center.y_m"]} onChange={(v) => put({ center: { ...norm(c), y_m: v ?? 0 } }, "cy")} />
        </>
      )}
      <NumberField label="Loiter radius" unit="m" value={m.radius_m} error={errs["mobility.radius_m"]} onChange={(v) => put({ radius_m: v ?? 0 }, "radius")} />
      <NumberField label="Loiter speed" unit="m/s" value={m.speed_mps} error={errs["mobility.speed_mps"]} onChange={(v) => put({ speed_mps: v ?? 0 }, "speed")} />
      <NumberField label="Loiter altitude" unit="m" value={m.alt_m ?? 0} error={errs["mobility.alt_m"]} onChange={(v) => put({ alt_m: v ?? 0 }, "alt")} />
      <SelectField
        label="Pattern"
        value={m.pattern ?? "circle"}
        options={[
          { value: "circle", label: "Circle" },
          { value: "racetrack", label: "Racetrack" },
        ]}
        error={errs["mobility.pattern"]}
        onChange={(v) => put({ pattern: v as LoiterMobility["pattern"] }, "pattern")}
      />
      {m.pattern === "racetrack" ? (
        <>
          <NumberField label="Leg length" unit="m" value={m.length_m ?? 0} error={errs["mobility.length_m"]} onChange={(v) => put({ length_m: v ?? 0 }, "length")} />
          <NumberField label="Heading" unit="° from north" value={m.heading_deg ?? 0} error={errs["mobility.heading_deg"]} onChange={(v) => put({ heading_deg: v ?? 0 }, "heading")} />
        </>
      ) : null}
      <SelectField
        label="Direction"
        value={m.clockwise === false ? "ccw" : "cw"}
        options={[
          { value: "cw", label: "Clockwise" },
          { value: "ccw", label: "Counter-clockwise" },
        ]}
        error={errs["mobility.clockwise"]}
        onChange={(v) => put({ clockwise: v === "cw" }, "cw")}
      />
      <NumberField label="Loiter start" unit="s" value={m.start_s ?? 0} error={errs["mobility.start_s"]} onChange={(v) => put({ start_s: v ?? 0 }, "start")} />
    </div>
  );
}

function MobilityFields(props: InspectorProps & { index: number; node: ScenarioNode; errs: Record<string, string> }) {
  const { doc, node, errs, onChange, tool, setTool } = props;
  const m: Mobility = node.mobility ?? { model: "static" };
  const pos: Position = norm(node.position);
  const setMobility = (next: Mobility, key: string) => onChange(updateNode(doc, node.id, { mobility: next }), `${node.id}.mobility.${key}`);
  const drawing = tool.name === "waypoints";
  const drawingBounds = tool.name === "bounds";
  const num = (label: string, unit: string, key: string, value: number | undefined, extra: Partial<Parameters<typeof NumberField>[0]> = {}) => (
    <NumberField
      label={label}
      unit={unit}
      value={value}
      error={errs[`mobility.${key}`]}
      onChange={(v) => setMobility({ ...m, [key]: v ?? 0 } as Mobility, key)}
      {...extra}
    />
  );
  return (
    <fieldset className="mobility">
      <legend>Mobility</legend>
      <SelectField
        label="Mobility model"
        value={m.model}
        options={MOBILITY_MODELS.map((v) => ({ value: v, label: MODEL_LABELS[v] }))}
        error={errs["mobility.model"] ?? errs.mobility}
        onChange={(v) => {
          setTool({ name: "select" });
          setMobility(mobilityOf(v, pos, m, isGeoPoint(node.position) ? node.position : null), "model");
        }}
      />
      {m.model === "waypoints" ? (
        <>
          <div className="field-grid">
            <NumberField label="Drawing speed" unit="m/s" value={props.waypointSpeed} min={0} onChange={(v) => v && v > 0 && props.setWaypointSpeed(v)} hint="Times of new points follow from this speed." />
          </div>
          <div className="actions">
            <button
              type="button"
              className={`btn${drawing ? " btn-primary" : ""}`}
              aria-pressed={drawing}
              onClick={() => {
                if (drawing) setTool({ name: "select" });
                else {
                  // the path starts where the station is; each click adds the next point
                  const here: Waypoint = isGeoPoint(node.position)
                    ? { t_s: 0, lat_deg: node.position.lat_deg, lon_deg: node.position.lon_deg }
                    : { t_s: 0, x_m: pos.x_m, y_m: pos.y_m };
                  setMobility({ model: "waypoints", points: [here] }, "clear");
                  setTool({ name: "waypoints" });
                }
              }}
            >
              {drawing ? "Finish path" : "Draw path"}
            </button>
            <button
              type="button"
              className="btn"
              disabled={m.points.length < 2 || isGeoPoint(m.points[0])}
              onClick={() => setMobility({ model: "waypoints", points: timesFromSpeed(m.points, props.waypointSpeed, m.points[0]?.t_s ?? 0) }, "retime")}
            >
              Retime at speed
            </button>
          </div>
          {drawing ? <p className="muted small">Click points on the canvas in the order the station visits them; press “Finish path” when done.</p> : null}
          {errs["mobility.points"] ? <p className="field-error">{errs["mobility.points"]}</p> : null}
          <WaypointTable points={m.points} errs={errs} duration_s={doc.run?.duration_s ?? 100} onPoints={(points) => setMobility({ model: "waypoints", points }, "points")} />
        </>
      ) : null}
      {m.model === "loiter" ? (
        <>
          <p className="muted small">On the map: select the node, press “Draw loiter”, click the centre.</p>
          <LoiterFields m={m} errs={errs} setMobility={setMobility} />
        </>
      ) : null}
      {m.model === "linear" && isGeoPoint(m.start) && isGeoPoint(m.end) ? (
        <div className="field-grid">
          <NumberField label="Start latitude" unit="°" value={m.start.lat_deg} error={errs["mobility.start.lat_deg"]} onChange={(v) => setMobility({ ...m, start: { ...m.start, lat_deg: v ?? 0 } }, "slat")} />
          <NumberField label="Start longitude" unit="°" value={m.start.lon_deg} error={errs["mobility.start.lon_deg"]} onChange={(v) => setMobility({ ...m, start: { ...m.start, lon_deg: v ?? 0 } }, "slon")} />
          <NumberField label="End latitude" unit="°" value={m.end.lat_deg} error={errs["mobility.end.lat_deg"]} onChange={(v) => setMobility({ ...m, end: { ...m.end, lat_deg: v ?? 0 } }, "elat")} />
          <NumberField label="End longitude" unit="°" value={m.end.lon_deg} error={errs["mobility.end.lon_deg"]} onChange={(v) => setMobility({ ...m, end: { ...m.end, lon_deg: v ?? 0 } }, "elon")} />
          {num("Speed", "m/s", "speed_mps", m.speed_mps)}
          {num("Start time", "s", "start_s", m.start_s ?? 0)}
        </div>
      ) : m.model === "linear" ? (
        <div className="field-grid">
          <NumberField label="Start x" unit="m" value={norm(m.start).x_m} error={errs["mobility.start.x_m"]} onChange={(v) => setMobility({ ...m, start: { ...m.start, x_m: v ?? 0 } }, "sx")} />
          <NumberField label="Start y" unit="m" value={norm(m.start).y_m} error={errs["mobility.start.y_m"]} onChange={(v) => setMobility({ ...m, start: { ...m.start, y_m: v ?? 0 } }, "sy")} />
          <NumberField label="End x" unit="m" value={norm(m.end).x_m} error={errs["mobility.end.x_m"]} onChange={(v) => setMobility({ ...m, end: { ...m.end, x_m: v ?? 0 } }, "ex")} />
          <NumberField label="End y" unit="m" value={norm(m.end).y_m} error={errs["mobility.end.y_m"]} onChange={(v) => setMobility({ ...m, end: { ...m.end, y_m: v ?? 0 } }, "ey")} />
          {num("Speed", "m/s", "speed_mps", m.speed_mps)}
          {num("Start time", "s", "start_s", m.start_s ?? 0)}
        </div>
      ) : null}
      {m.model === "random_walk" || m.model === "random_waypoint" || m.model === "gauss_markov" ? (
        <>
          <div className="actions">
            <button type="button" className={`btn${drawingBounds ? " btn-primary" : ""}`} aria-pressed={drawingBounds} onClick={() => setTool(drawingBounds ? { name: "select" } : { name: "bounds" })}>
              {drawingBounds ? "Stop drawing bounds" : "Draw bounds"}
            </button>
          </div>
          {drawingBounds ? <p className="muted small">Drag a rectangle on the canvas.</p> : null}
          <BoundsFields bounds={m.bounds} errs={errs} onBounds={(b) => setMobility({ ...m, bounds: b } as Mobility, "bounds")} />
          <div className="field-grid">
            {m.model === "random_walk" ? (
              <>
                {num("Min speed", "m/s", "speed_min_mps", m.speed_min_mps ?? 1)}
                {num("Max speed", "m/s", "speed_max_mps", m.speed_max_mps ?? 5)}
                {num("Step", "s", "step_s", m.step_s ?? 10)}
              </>
            ) : null}
            {m.model === "random_waypoint" ? (
              <>
                {num("Min speed", "m/s", "speed_min_mps", m.speed_min_mps ?? 1)}
                {num("Max speed", "m/s", "speed_max_mps", m.speed_max_mps ?? 5)}
                {num("Pause", "s", "pause_s", m.pause_s ?? 0)}
              </>
            ) : null}
            {m.model === "gauss_markov" ? (
              <>
                {num("Mean speed", "m/s", "mean_speed_mps", m.mean_speed_mps ?? 3)}
                {num("Speed std", "m/s", "speed_std_mps", m.speed_std_mps ?? 1)}
                {num("Heading std", "rad", "heading_std_rad", m.heading_std_rad ?? 0.5)}
                {num("Memory α", "0–1", "alpha", m.alpha ?? 0.75)}
                {num("Step", "s", "step_s", m.step_s ?? 1)}
              </>
            ) : null}
            {num("Seed", "", "seed", m.seed ?? 0, { integer: true, step: 1 })}
          </div>
        </>
      ) : null}
    </fieldset>
  );
}

function WaypointTable({ points, errs, duration_s, onPoints }: { points: Waypoint[]; errs: Record<string, string>; duration_s: number; onPoints: (p: Waypoint[]) => void }) {
  if (!points.length) return <p className="muted small">No points yet.</p>;
  const set = (i: number, patch: Partial<Waypoint>) => onPoints(points.map((p, k) => (k === i ? { ...p, ...patch } : p)));
  const geo = isGeoPoint(points[0]);
  const keys = geo ? (["t_s", "lat_deg", "lon_deg"] as const) : (["t_s", "x_m", "y_m"] as const);
  const names: Record<(typeof keys)[number], string> = { t_s: "time (s)", x_m: "x (m)", y_m: "y (m)", lat_deg: "latitude (°)", lon_deg: "longitude (°)" } as never;
  return (
    <table className="compact waypoints" aria-label="Waypoints">
      <thead>
        <tr>
          <th scope="col">#</th>
          <th scope="col">t (s)</th>
          <th scope="col">{geo ? "lat (°)" : "x (m)"}</th>
          <th scope="col">{geo ? "lon (°)" : "y (m)"}</th>
          <th scope="col">
            <span className="visually-hidden">Remove</span>
          </th>
        </tr>
      </thead>
      <tbody>
        {points.map((p, i) => (
          <Fragment key={i}>
          <tr data-testid={`waypoint-${i}`} className={p.t_s > duration_s ? "beyond-run" : undefined}>
            <td>{i + 1}</td>
            {keys.map((k) => (
              <td key={k}>
                <CellNumber
                  label={`Waypoint ${i + 1} ${names[k]}`}
                  value={p[k] ?? 0}
                  error={errs[`mobility.points.${i}.${k}`] ?? (k === "t_s" ? errs[`mobility.points.${i}`] : undefined)}
                  onChange={(v) => set(i, { [k]: v } as Partial<Waypoint>)}
                />
                {k === "t_s" ? (
                  <span className="waypoint-clock" data-testid={`waypoint-clock-${i}`}>
                    {formatClock(p.t_s)}
                  </span>
                ) : null}
              </td>
            ))}
            <td>
              <button type="button" className="btn btn-small" aria-label={`Remove waypoint ${i + 1}`} onClick={() => onPoints(points.filter((_, k) => k !== i))}>
                ×
              </button>
            </td>
          </tr>
          {p.t_s > duration_s ? (
            <tr className="beyond-run-note">
              <td colSpan={5} className="field-error" data-testid={`waypoint-beyond-${i}`}>
                Waypoint {i + 1} is after the run’s end ({formatClock(duration_s)}): the path from here on is never travelled.
              </td>
            </tr>
          ) : null}
          </Fragment>
        ))}
      </tbody>
    </table>
  );
}

function CellNumber({ label, value, error, onChange }: { label: string; value: number; error?: string; onChange: (v: number) => void }) {
  return (
    <>
      <input
        type="number"
        step="any"
        aria-label={label}
        aria-invalid={error ? true : undefined}
        title={error}
        defaultValue={value}
        key={value}
        onBlur={(e) => {
          const n = Number(e.currentTarget.value);
          if (e.currentTarget.value.trim() !== "" && Number.isFinite(n) && n !== value) onChange(n);
        }}
        onKeyDown={(e) => {
          if (e.key === "Enter") (e.currentTarget as HTMLInputElement).blur();
        }}
      />
      {error ? <span className="field-error">{error}</span> : null}
    </>
  );
}

function LinkPanel(props: InspectorProps & { index: number; link: Link }) {
  const { doc, link, index, onChange } = props;
  const errs = errorsUnder(props.errors, `links.${index}`);
  const set = (patch: Partial<Link>, key: string) => onChange(updateLink(doc, link.id, patch), `link.${link.id}.${key}`);
  const satellite = satcomSatelliteOf(doc, link);
  return (
    <section className="card inspector" aria-labelledby="inspector-title">
      <h2 id="inspector-title">
        Link <code>{link.id}</code>
      </h2>
      <p className="muted small">
        {nodeText(doc, link.src)} ↔ {nodeText(doc, link.dst)} (full duplex; each direction has this bandwidth)
      </p>
      {errs[""] ? <p className="field-error">{errs[""]}</p> : null}
      {errs.src ? <p className="field-error">from: {errs.src}</p> : null}
      {errs.dst ? <p className="field-error">to: {errs.dst}</p> : null}
      <div className="field-grid">
        <NumberField
          label={satellite?.payload && link.budget ? "Bandwidth (without a budget)" : "Bandwidth"}
          unit="Mbit/s"
          schema={["Link", "bandwidth_mbps"]}
          value={link.bandwidth_mbps}
          error={errs.bandwidth_mbps}
          onChange={(v) => set({ bandwidth_mbps: v ?? 0 }, "bw")}
        />
        {satellite ? <OrbitDelay satellite={satellite} range={orbitDelayRange(props.satcomUses, link.id)} /> : null}
        <NumberField
          label={satellite ? "Extra delay (modem, processing)" : "Delay"}
          unit="ms"
          schema={["Link", "delay_ms"]}
          value={link.delay_ms ?? 0}
          error={errs.delay_ms}
          hint={satellite ? "Added to the propagation delay from the orbit." : undefined}
          onChange={(v) => set({ delay_ms: v ?? 0 }, "delay")}
        />
        <NumberField label="Loss" unit="%" factor={100} schema={["Link", "loss"]} value={link.loss ?? 0} error={errs.loss} onChange={(v) => set({ loss: v ?? 0 }, "loss")} />
        <NumberField label="Jitter" unit="ms" schema={["Link", "jitter_ms"]} value={link.jitter_ms ?? 0} error={errs.jitter_ms} onChange={(v) => set({ jitter_ms: v ?? 0 }, "jitter")} />
        <NumberField label="Queue" unit="packets" integer schema={["Link", "queue_packets"]} value={link.queue_packets ?? 100} error={errs.queue_packets} onChange={(v) => set({ queue_packets: v ?? 1 }, "queue")} />
      </div>
      {satellite ? (
        <LinkBudgetFields
          budget={link.budget ?? null}
          satellite={satellite}
          gatewayLinks={gatewayLinkChoices(doc, link, satellite.id)}
          errs={errs}
          onBudget={(budget, key) => set({ budget }, key)}
        />
      ) : null}
      <div className="actions">
        <button
          type="button"
          className="btn btn-danger"
          onClick={() => {
            onChange(deleteElements(doc, [], [link.id]));
            props.onSelect({ nodes: [], links: [] });
          }}
        >
          Delete link
        </button>
      </div>
    </section>
  );
}

/** A SATCOM link's propagation delay: read-only, from the orbit (slant range / c at each step), with its range
 * over the run's uses when the access report has computed them. */
function OrbitDelay({ satellite, range }: { satellite: SatelliteNode; range: [number, number] | null }) {
  return (
    <div className="field">
      <span className="field-label" id={`orbit-delay-${satellite.id}`}>
        Propagation delay (ms)
      </span>
      <p className="readonly-value" aria-labelledby={`orbit-delay-${satellite.id}`} data-testid="orbit-delay">
        from the orbit of {satellite.label || satellite.id} (slant range / c, each step)
        {range ? `: one way ${range[0].toFixed(1)}–${range[1].toFixed(1)} ms while in use (extra delay included)` : ""}
      </p>
    </div>
  );
}

/** Lowest and highest one-way delay (ms) of a link over its SATCOM uses, or null without one. */
function orbitDelayRange(uses: readonly SatcomUse[] | null | undefined, link: string): [number, number] | null {
  const d = (uses ?? []).filter((u) => u.link === link).flatMap((u) => u.delay_ms.map(([, ms]) => ms));
  return d.length ? [Math.min(...d), Math.max(...d)] : null;
}

/** The other SATCOM links of a satellite, named by their ends: the gateway link choices of a bent-pipe budget. */
function gatewayLinkChoices(doc: ScenarioDocument, link: Link, satellite: string): { value: string; label: string }[] {
  return (doc.links ?? [])
    .filter((l) => l.id !== link.id && satcomSatelliteOf(doc, l)?.id === satellite)
    .map((l) => ({ value: l.id, label: `${nodeText(doc, l.src)} ↔ ${nodeText(doc, l.dst)}` }));
}

function ScenarioPanel(props: InspectorProps) {
  const { doc, onChange } = props;
  const e = props.errors;
  const run = doc.run ?? {};
  const tr: TransportSettings = doc.transport ?? {};
  return (
    <section className="card inspector" aria-labelledby="inspector-title">
      <h2 id="inspector-title">Scenario</h2>
      <p className="muted small">Select a node or link on the canvas to edit it.</p>
      <TextField label="Name" value={doc.name} error={e.name} onChange={(v) => onChange({ ...doc, name: v }, "name")} />
      <TextField label="Description" multiline value={doc.description ?? ""} error={e.description} onChange={(v) => onChange({ ...doc, description: v }, "description")} />
      <fieldset className="field-grid">
        <legend>Run</legend>
        <NumberField label="Duration" unit="s" value={run.duration_s ?? 100} error={e["run.duration_s"] ?? e.run} onChange={(v) => onChange({ ...doc, run: { ...run, duration_s: v ?? 0 } }, "run.duration")} />
        <NumberField label="Sample interval" unit="s" value={run.interval_s ?? 1} error={e["run.interval_s"]} onChange={(v) => onChange({ ...doc, run: { ...run, interval_s: v ?? 0 } }, "run.interval")} />
        <NumberField label="Seed" integer step={1} value={run.seed ?? 1} error={e["run.seed"]} onChange={(v) => onChange({ ...doc, run: { ...run, seed: v ?? 0 } }, "run.seed")} />
      </fieldset>
      <fieldset className="field-grid">
        <legend>Transport</legend>
        <SelectField
          label="Congestion control"
          value={tr.congestion_control ?? "newreno"}
          options={[
            { value: "newreno", label: "NewReno" },
            { value: "reno", label: "Reno" },
            { value: "cubic", label: "CUBIC" },
          ]}
          error={e["transport.congestion_control"]}
          onChange={(v) => onChange({ ...doc, transport: { ...tr, congestion_control: v } }, "tr.cc")}
        />
        <NumberField label="Minimum RTO" unit="s" value={tr.min_rto_s ?? 0.2} error={e["transport.min_rto_s"]} onChange={(v) => onChange({ ...doc, transport: { ...tr, min_rto_s: v ?? 0 } }, "tr.minrto")} />
        <NumberField label="MSS" unit="bytes" integer value={tr.mss_bytes ?? 1448} error={e["transport.mss_bytes"]} onChange={(v) => onChange({ ...doc, transport: { ...tr, mss_bytes: v ?? 0 } }, "tr.mss")} />
        <NumberField label="Initial window" unit="packets" integer value={tr.initial_cwnd_packets ?? 10} error={e["transport.initial_cwnd_packets"]} onChange={(v) => onChange({ ...doc, transport: { ...tr, initial_cwnd_packets: v ?? 0 } }, "tr.iw")} />
      </fieldset>
      <PropagationFields doc={doc} onChange={onChange} e={e} />
      <HandoverFields doc={doc} onChange={onChange} e={e} />
      <QueueingFields doc={doc} onChange={onChange} e={e} />
      {hasOrbits(doc) || doc.satcom ? <SatcomSettingsFields doc={doc} onChange={onChange} e={e} /> : null}
      <ElementList {...props} />
    </section>
  );
}

function ElementList({ doc, onSelect }: InspectorProps) {
  // the lists are rendered only while open (large imported topologies have thousands of entries)
  const [open, setOpen] = useState(false);
  return (
    <details className="element-list" onToggle={(e) => setOpen(e.currentTarget.open)}>
      <summary>
        Elements ({doc.nodes.length} nodes, {(doc.links ?? []).length} links)
      </summary>
      {open ? <ElementLists doc={doc} onSelect={onSelect} /> : null}
    </details>
  );
}

function ElementLists({ doc, onSelect }: Pick<InspectorProps, "doc" | "onSelect">) {
  return (
    <>
      <ul aria-label="Nodes">
        {doc.nodes.map((n) => (
          <li key={n.id}>
            <button type="button" className="linklike" onClick={() => onSelect({ nodes: [n.id], links: [] })}>
              {n.id}
            </button>{" "}
            <span className="muted small">
              {n.label && n.label !== n.id ? `${n.label} · ` : ""}
              {kindName(n.kind)}
            </span>
          </li>
        ))}
      </ul>
      <ul aria-label="Links">
        {(doc.links ?? []).map((l) => (
          <li key={l.id}>
            <button type="button" className="linklike" onClick={() => onSelect({ nodes: [], links: [l.id] })}>
              {l.id}
            </button>{" "}
            <span className="muted small">
              {nodeText(doc, l.src)} ↔ {nodeText(doc, l.dst)}
            </span>
          </li>
        ))}
      </ul>
    </>
  );
}
