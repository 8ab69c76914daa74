/**
 * Types of the Subflow REST API.
 *
 * Generated: `schema.d.ts` comes from the backend's OpenAPI document
 * (`npm run api:generate`, see scripts/generate-api.sh); every request and
 * response shape below is an alias of a generated schema. Only what the
 * OpenAPI document types loosely (`dict[str, Any]`: the result document of
 * `subflow.results`, the sweep/repetition aggregates and the agent's engine
 * list) is spelled out here, from DEVELOPERS.md.
 */
import type { components } from "./schema";

type S = components["schemas"];

// ----------------------------------------------------------------------------- scenario document

export type ScenarioDocument = S["Scenario"];
export type ScenarioNode = ScenarioDocument["nodes"][number];
export type NodeKind = ScenarioNode["kind"];
export type HostNode = S["HostNode"];
export type StationNode = S["StationNode"];
export type AccessPointNode = S["AccessPointNode"];
export type SwitchNode = S["SwitchNode"];
export type SatelliteNode = S["SatelliteNode"];
export type RouterNode = S["RouterNode"];
/** A point in metres as the UI writes it (the schema defaults both coordinates to 0). */
export type Position = { x_m: number; y_m: number };
/** A point as documents may hold it (coordinates optional, default 0). */
export type DocPosition = S["Position"];
export type Mobility = NonNullable<StationNode["mobility"]>;
export type MobilityModel = Mobility["model"];
export type Waypoint = S["Waypoint"];
export type WaypointsMobility = S["WaypointsMobility"];
export type LinearMobility = S["LinearMobility"];
export type RandomWalkMobility = S["RandomWalkMobility"];
export type RandomWaypointMobility = S["RandomWaypointMobility"];
export type GaussMarkovMobility = S["GaussMarkovMobility"];
export type Bounds = S["Bounds"];
export type Link = S["Link"];
export type Flow = S["Flow"];
export type LinkEvent = S["LinkEvent"];
export type RateStep = S["RateStep"];
export type RunSettings = S["RunSettings"];
export type TransportSettings = S["TransportSettings"];

export const NODE_KINDS: readonly NodeKind[] = ["host", "station", "access_point", "switch", "satellite", "router"];

// ----------------------------------------------------------------------------- REST resources

/** Resource ids are opaque to the UI. */
export type Id = string | number;

export type ScenarioSummary = S["ScenarioSummary"];
export type AccessToken = S["AccessToken"];
export type UserPublic = S["UserPublic"];
export type ApiTokenPublic = S["ApiTokenPublic"];
export type ScenarioVersionSummary = S["ScenarioVersionSummary"];
export type ScenarioVersionPublic = Omit<S["ScenarioVersionPublic"], "scenario"> & { scenario: ScenarioDocument };
export type ApiTokenCreate = S["ApiTokenCreate"];
export type ApiTokenCreated = S["ApiTokenCreated"];
export type ScenarioPublic = Omit<S["ScenarioPublic"], "scenario"> & { scenario: ScenarioDocument };
export interface ListPage<T> {
  data: T[];
  count: number;
}
export type StrategyInfo = S["StrategyPublic"];
export type ComparisonRequest = S["ComparisonCreate"];
export type SweepSpec = S["SweepSpec"];
export type ComparisonStatus = S["ComparisonSummary"]["status"];
export type ComparisonSummary = S["ComparisonSummary"];
export type ComparisonPublic = Omit<S["ComparisonPublic"], "result"> & { result: ResultDocument | null };
export type ValidationErrorItem = S["ValidationError"];
export type TimelinePublic = S["TimelinePublic"];
export type AssociationPublic = S["AssociationPublic"];

export const FINISHED_STATUSES: readonly string[] = ["succeeded", "failed", "cancelled"];

/** One message of `GET .../comparisons/{cid}/events` (server-sent events). */
export interface ProgressEvent {
  status: ComparisonStatus;
  progress: number;
  error: string | null;
}

/** `GET /api/engines` (the agent's capabilities); `[{name: "fluid"}]` until the endpoint exists. */
export interface EngineInfo {
  name: string;
  description?: string;
  available?: boolean | null;
  strategies?: string[];
  supports?: string[] | Record<string, unknown>;
}

// ----------------------------------------------------------------------------- result document (version 1)

export interface SubflowResult {
  id: string;
  /** node ids along the path (or resource ids `<link>:<a>><b>`, `air:<ap>`) */
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

export interface AggregateStats {
  mean_mbps: number;
  ci95_mbps: number;
  jain_index?: number;
  runs: number;
}

export interface SweepPoint {
  value: number | string | boolean | null;
  strategies: Record<string, AggregateStats>;
}

export interface SweepResult {
  parameter: string;
  values: (number | string | boolean | null)[];
  points: SweepPoint[];
}

export interface ResultDocument {
  version: 1;
  scenario: ScenarioDocument;
  strategies: Record<string, StrategyResult>;
  sweep?: SweepResult;
  repetitions?: Record<string, AggregateStats>;
}
