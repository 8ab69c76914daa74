/**
 * Types of the Subflow REST API (`/api/...`), written by hand from DEVELOPERS.md
 * ("Backend REST"), `lib/subflow/scenario.py` and `lib/subflow/results.py`.
 *
 * NOTE: temporary. A later issue generates these from the backend's OpenAPI
 * document (`/openapi.json`); until then keep this file the single place where
 * API shapes are declared, and keep it in step with the backend by hand.
 */

// ----------------------------------------------------------------------------- scenario document

export type NodeKind = "host" | "station" | "access_point" | "switch" | "satellite" | "router";

export const NODE_KINDS: readonly NodeKind[] = [
  "host",
  "station",
  "access_point",
  "switch",
  "satellite",
  "router",
];

export interface Position {
  x_m: number;
  y_m: number;
}

export interface StaticMobility {
  model: "static";
}

export interface Waypoint {
  t_s: number;
  x_m: number;
  y_m: number;
}

export interface WaypointsMobility {
  model: "waypoints";
  points: Waypoint[];
}

export interface LinearMobility {
  model: "linear";
  start: Position;
  end: Position;
  speed_mps: number;
  start_s?: number;
}

export interface Bounds {
  x_min_m: number;
  y_min_m: number;
  x_max_m: number;
  y_max_m: number;
}

export interface RandomWalkMobility {
  model: "random_walk";
  bounds: Bounds;
  speed_min_mps?: number;
  speed_max_mps?: number;
  step_s?: number;
  seed?: number;
}

export type Mobility = StaticMobility | WaypointsMobility | LinearMobility | RandomWalkMobility;

interface NodeBase {
  id: string;
  label?: string | null;
  position?: Position;
}

export interface HostNode extends NodeBase {
  kind: "host";
}
export interface SwitchNode extends NodeBase {
  kind: "switch";
}
export interface RouterNode extends NodeBase {
  kind: "router";
}
export interface SatelliteNode extends NodeBase {
  kind: "satellite";
  orbit?: "geo" | "meo" | "leo";
}
export interface AccessPointNode extends NodeBase {
  kind: "access_point";
  range_m: number;
  association_delay_s?: number;
  wireless_bandwidth_mbps?: number;
  wireless_delay_ms?: number;
  wireless_loss?: number;
  queue_packets?: number;
}
export interface StationNode extends NodeBase {
  kind: "station";
  mobility?: Mobility;
}

export type ScenarioNode =
  | HostNode
  | StationNode
  | AccessPointNode
  | SwitchNode
  | SatelliteNode
  | RouterNode;

export interface Link {
  id: string;
  src: string;
  dst: string;
  bandwidth_mbps: number;
  delay_ms?: number;
  loss?: number;
  jitter_ms?: number;
  queue_packets?: number;
}

export interface Flow {
  id: string;
  src: string;
  dst: string;
  rate_mbps?: number | null;
  start_s?: number;
  stop_s?: number | null;
}

export interface RunSettings {
  duration_s?: number;
  interval_s?: number;
  seed?: number;
}

export interface TransportSettings {
  mss_bytes?: number;
  initial_cwnd_packets?: number;
  min_rto_s?: number;
  max_rto_s?: number;
  initial_rto_s?: number;
}

export interface ScenarioDocument {
  schema_version?: 1;
  name: string;
  description?: string;
  nodes: ScenarioNode[];
  links?: Link[];
  flows?: Flow[];
  run?: RunSettings;
  transport?: TransportSettings;
}

// ----------------------------------------------------------------------------- REST resources

/** Resource ids are opaque to the UI (the backend may use integers or strings). */
export type Id = string | number;

export interface ScenarioSummary {
  id: Id;
  name: string;
  description: string;
  version: number;
  updated_at: string;
}

export interface ScenarioPublic {
  id: Id;
  name: string;
  description: string;
  version: number;
  created_at: string;
  updated_at: string;
  scenario: ScenarioDocument;
}

export interface ListPage<T> {
  data: T[];
  count: number;
}

export interface StrategyInfo {
  name: string;
  multipath: boolean;
  routing: string;
  description: string;
}

export type ComparisonStatus = "queued" | "running" | "succeeded" | "failed";

export interface ComparisonRequest {
  strategies: string[];
  engine: string;
  seed?: number | null;
}

/** An item of `GET /api/scenarios/{id}/comparisons` (no result document). */
export interface ComparisonSummary {
  id: Id;
  scenario_id: Id;
  scenario_version: number;
  status: ComparisonStatus;
  /** Fraction done, 0–1. */
  progress: number;
  strategies: string[];
  engine: string;
  seed: number | null;
  error: string | null;
  created_at: string;
  started_at?: string | null;
  finished_at: string | null;
}

/** `GET /api/scenarios/{id}/comparisons/{cid}`: the summary plus the result document once succeeded. */
export interface ComparisonPublic extends ComparisonSummary {
  result: ResultDocument | null;
}

/** One entry of a 422 response's `detail`. */
export interface ValidationErrorItem {
  loc: (string | number)[];
  msg: string;
  type?: string;
}

// ----------------------------------------------------------------------------- result document (version 1)

export interface SubflowResult {
  id: string;
  path: string[];
  t_s: number[];
  throughput_mbps: number[];
  cwnd_packets?: number[];
  retransmissions?: number[];
}

export interface FlowResult {
  id: string;
  src: string;
  dst: string;
  t_s: number[];
  throughput_mbps: number[];
  subflows: SubflowResult[];
}

export type EventKind =
  | "handover_start"
  | "association"
  | "disassociation"
  | "association_abandoned"
  | "subflow_up"
  | "subflow_down"
  | "route_change"
  | "route_lost"
  | "rto"
  // version 1 may gain event kinds
  | (string & {});

export interface ResultEvent {
  t_s: number;
  kind: EventKind;
  node?: string;
  [extra: string]: unknown;
}

export interface FlowSummary {
  id: string;
  mean_mbps: number;
  std_mbps: number;
  min_mbps: number;
  max_mbps: number;
  zero_s: number;
  longest_zero_s: number;
}

export interface Summary {
  flows: FlowSummary[];
  mean_mbps: number;
  std_mbps: number;
  min_mbps: number;
  zero_s: number;
  jain_index: number;
}

export interface StrategyResult {
  strategy: string;
  engine: string;
  flows: FlowResult[];
  events: ResultEvent[];
  summary: Summary;
}

export interface ResultDocument {
  version: 1;
  scenario: ScenarioDocument;
  strategies: Record<string, StrategyResult>;
}
