/**
 * Types of the Subflow REST API.
 *
 * Generated: `schema.d.ts` comes from the backend's OpenAPI document
 * (`npm run api:generate`, see scripts/generate-api.sh); every request and
 * response shape below is an alias of a generated schema (the result document
 * is `subflow.results.document.ResultDocument`). Nothing here re-types a backend shape.
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
export type NodeRadio = S["NodeRadio"];
export type PropagationSettings = S["PropagationSettings"];
export type HandoverSettings = S["HandoverSettings"];
export type RadioSettings = S["RadioSettings"];
export type SwitchNode = S["SwitchNode"];
export type SatelliteNode = S["SatelliteNode"];
export type RouterNode = S["RouterNode"];
export type TleEphemeris = S["TleEphemeris"];
export type GeostationaryEphemeris = S["GeostationaryEphemeris"];
export type SatellitePayload = S["SatellitePayload"];
export type SatcomBudget = S["SatcomBudget"];
export type SatcomSettings = S["SatcomSettings"];
export type SatcomBeam = S["SatcomBeam"];
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
export type LoiterMobility = S["LoiterMobility"];
/** Origin of a geographic scenario's local projected frame (`Scenario.geo`). */
export type GeoSettings = S["GeoSettings"];
/** A document point placed by latitude/longitude (WGS84 degrees): the geographic case of {@link DocPosition}. */
export type GeoPosition = DocPosition & { lat_deg: number; lon_deg: number };
export type Bounds = S["Bounds"];
export type Link = S["Link"];
export type Flow = S["Flow"];
export type FlowKind = NonNullable<Flow["kind"]>;
export type DscpClass = NonNullable<Flow["dscp"]>;
export type UdpSource = S["UdpSource"];
export type VoiceSource = S["VoiceSource"];
export type VideoSource = S["VideoSource"];
export type QueueingSettings = S["QueueingSettings"];
export type TrafficClass = S["TrafficClass"];
export type LinkEvent = S["LinkEvent"];
export type RateStep = S["RateStep"];
export type RunSettings = S["RunSettings"];
export type TransportSettings = S["TransportSettings"];

export const NODE_KINDS: readonly NodeKind[] = ["host", "station", "access_point", "switch", "satellite", "router"];

// ----------------------------------------------------------------------------- REST resources

/** Resource ids are opaque to the UI. */
export type Id = string | number;

export type ScenarioSummary = S["ScenarioSummary"];
export type ScenarioPublic = S["ScenarioPublic"];
export type ScenariosPublic = S["ScenariosPublic"];
export type ScenarioFork = S["ScenarioFork"];
export type ProjectPublic = S["ProjectPublic"];
export type ProjectsPublic = S["ProjectsPublic"];
export type ProjectCreate = S["ProjectCreate"];
export type ProjectUpdate = S["ProjectUpdate"];
export type ProjectRole = S["ProjectPublic"]["role"];
export type MemberPublic = S["MemberPublic"];
export type MembersPublic = S["MembersPublic"];
export type MemberAdd = S["MemberAdd"];
export type UsersPublic = S["UsersPublic"];
export type UserCreate = S["UserCreate"];
export type UserUpdate = S["UserUpdate"];
export type AuditEntryPublic = S["AuditEntryPublic"];
export type AuditPublic = S["AuditPublic"];
export type AccessToken = S["AccessToken"];
export type UserPublic = S["UserPublic"];
export type ApiTokenPublic = S["ApiTokenPublic"];
export type ApiTokensPublic = S["ApiTokensPublic"];
export type ScenarioVersionPublic = S["ScenarioVersionPublic"];
export type ApiTokenCreate = S["ApiTokenCreate"];
export type ApiTokenCreated = S["ApiTokenCreated"];
export type ScenarioVersionSummary = S["ScenarioVersionSummary"];
export type ScenarioVersionsPublic = S["ScenarioVersionsPublic"];
export type StrategyInfo = S["StrategyPublic"];
export type ComparisonRequest = S["ComparisonCreate"];
export type SweepSpec = S["SweepSpec"];
export type ComparisonStatus = S["ComparisonSummary"]["status"];
export type ComparisonSummary = S["ComparisonSummary"];
export type ComparisonsPublic = S["ComparisonsPublic"];
export type ComparisonPublic = S["ComparisonPublic"];
/** A packet capture of a comparison (one strategy, one link) and the list of them (`GET .../comparisons/{cid}/captures`). */
export type CapturePublic = S["CapturePublic"];
export type CapturesPublic = S["CapturesPublic"];
export type ValidationErrorItem = S["ValidationError"];
export type TimelinePublic = S["TimelinePublic"];
/** Answer of POST /api/scenario-checks and one of its warnings (`subflow.comparison.connectivity.ScenarioWarning`). */
export type ScenarioChecksPublic = S["ScenarioChecksPublic"];
export type ScenarioWarning = S["ScenarioWarning"];
export type AssociationPublic = S["AssociationPublic"];
export type SatcomUse = S["SatcomUse"];
/** One pass of a satellite over a ground terminal (`POST /api/timeline?access=true` `access`) and its MODCOD steps. */
export type AccessPass = S["AccessPass"];
export type AccessStep = S["AccessStep"];
/** Satellite id → its sub-satellite points `[t_s, lat_deg, lon_deg]` (`POST /api/timeline` `ground_tracks`). */
export type GroundTracks = NonNullable<TimelinePublic["ground_tracks"]>;
/** One corner of a node's geographic trajectory (`POST /api/timeline` `geo_trajectories`): `[t_s, lat_deg, lon_deg, alt_m]`. */
export type GeoCorner = NonNullable<TimelinePublic["geo_trajectories"]>[string][number];

export const FINISHED_STATUSES: readonly string[] = ["succeeded", "failed", "cancelled"];

/** One message of `GET .../comparisons/{cid}/events` (server-sent events). */
export type ProgressEvent = S["ComparisonProgress"];

/** `GET /api/engines` (the agent's capabilities). */
export type EnginesPublic = S["EnginesPublic"];
export type EngineInfo = S["EngineCapabilities"];

// ----------------------------------------------------------------------------- result document (version 1)

export type ResultDocument = S["ResultDocument"];
export type StrategyResult = S["StrategyResult"];
export type FlowResult = S["FlowSeries"];
export type SubflowResult = S["SubflowSeries"];
export type ResultEvent = StrategyResult["events"][number];
export type EventKind = ResultEvent["kind"];
export type FlowSummary = S["FlowSummary"];
export type Summary = S["Summary"];
export type AggregateStats = S["AggregateStats"];
export type SweepPoint = S["SweepPoint"];
/** Sweep points with a stored representative run (GET .../sweep-points) and one such run (GET .../sweep-points/{point}). */
export type SweepPointRunsPublic = S["SweepPointRunsPublic"];
export type SweepPointRunSummary = S["SweepPointRunSummary"];
export type SweepPointRunPublic = S["SweepPointRunPublic"];
export type SweepResult = S["SweepResult"];

// ----------------------------------------------------------------------------- coverage (radio)

export type CoveragePublic = S["CoveragePublic"];

// ----------------------------------------------------------------------------- planning (routes, allocations, planned vs measured)

export type RoutesRequest = S["RoutesRequest"];
export type RoutesDocument = S["RoutesOverTime"];
export type PairRoutes = S["PairRoutes"];
export type RoutePath = S["PathOut"];
export type GreedyDiff = S["GreedyDiff"];
export type AllocationRequest = S["AllocationRequest"];
export type AllocationDocument = S["AllocationOverTime"];
export type JobAccepted = S["JobAccepted"];
export type JobPublic = S["JobPublic"];
export type PlanComparison = S["PlanComparison"];
export type LinkPlanUsage = S["LinkPlanUsage"];
