/**
 * Thin fetch wrapper for the Subflow REST API. All paths are relative (`/api/...`), so the
 * browser sends the HttpOnly session cookie set by `POST /api/auth/login` (same origin).
 * A 401 from any call (other than signing in) tells the app to show the sign-in page
 * (`onUnauthorized`); a 412 on a save means someone saved the scenario meanwhile.
 */
import type {
  AccessToken,
  AuditPublic,
  AllocationDocument,
  CapturesPublic,
  AllocationRequest,
  ApiTokenCreate,
  ApiTokenCreated,
  ApiTokensPublic,
  ComparisonPublic,
  ComparisonRequest,
  ComparisonsPublic,
  CoveragePublic,
  EngineInfo,
  EnginesPublic,
  Id,
  JobAccepted,
  JobPublic,
  MemberAdd,
  MemberPublic,
  MembersPublic,
  PlanComparison,
  ProjectCreate,
  ProjectPublic,
  ProjectRole,
  ProjectUpdate,
  ProjectsPublic,
  RoutesDocument,
  RoutesRequest,
  ScenarioChecksPublic,
  ScenarioDocument,
  ScenarioFork,
  ScenarioPublic,
  ScenariosPublic,
  ScenarioVersionPublic,
  ScenarioVersionsPublic,
  StrategyInfo,
  SweepPointRunPublic,
  SweepPointRunsPublic,
  TimelinePublic,
  UserCreate,
  UserPublic,
  UsersPublic,
  UserUpdate,
  ValidationErrorItem,
} from "./types";
import type { paths } from "./schema";

/** An HTTP error from the API; `validation` is set for 422 responses with a `detail` list. */
export class ApiError extends Error {
  readonly status: number;
  readonly validation: ValidationErrorItem[] | null;

  constructor(status: number, message: string, validation: ValidationErrorItem[] | null = null) {
    super(message);
    this.name = "ApiError";
    this.status = status;
    this.validation = validation;
  }
}

function isValidationList(detail: unknown): detail is ValidationErrorItem[] {
  return (
    Array.isArray(detail) &&
    detail.every(
      (d) => typeof d === "object" && d !== null && Array.isArray((d as ValidationErrorItem).loc),
    )
  );
}

type UnauthorizedListener = () => void;
const unauthorizedListeners = new Set<UnauthorizedListener>();

/** Call `listener` whenever the API answers 401 (the session ended); returns an unsubscribe function. */
export function onUnauthorized(listener: UnauthorizedListener): () => void {
  unauthorizedListeners.add(listener);
  return () => unauthorizedListeners.delete(listener);
}

/** The strong ETag the API gives a scenario version (`"v3"`), for `If-Match`. */
export function versionEtag(version: number): string {
  return `"v${version}"`;
}

export async function request<T>(
  path: string,
  init: RequestInit = {},
  signal?: AbortSignal,
  extraHeaders: Record<string, string> = {},
): Promise<T> {
  const headers: Record<string, string> = { Accept: "application/json", ...extraHeaders };
  if (init.body !== undefined && !(init.body instanceof FormData) && !(init.body instanceof URLSearchParams)) {
    headers["Content-Type"] = "application/json";
  }
  const res = await fetch(path, { ...init, headers, signal, credentials: "same-origin" });
  if (res.status === 401 && path !== "/api/auth/login") unauthorizedListeners.forEach((l) => l());
  if (res.status === 204) return undefined as T;
  const text = await res.text();
  let body: unknown = null;
  if (text) {
    try {
      body = JSON.parse(text);
    } catch {
      body = text;
    }
  }
  if (!res.ok) {
    const detail = (body as { detail?: unknown } | null)?.detail;
    if (isValidationList(detail)) {
      throw new ApiError(res.status, `Request was rejected (${res.status})`, detail);
    }
    const message =
      typeof detail === "string"
        ? detail
        : typeof body === "string" && body
          ? body
          : `${res.status} ${res.statusText}`;
    throw new ApiError(res.status, message);
  }
  return body as T;
}

const enc = encodeURIComponent;

/** The filters of `GET /api/audit` (from the generated OpenAPI types). */
export type AuditQuery = NonNullable<paths["/api/audit"]["get"]["parameters"]["query"]>;

/** `?format=` of `GET /api/scenarios/{id}/export` (from the generated OpenAPI types). */
export type ExportFormat = NonNullable<NonNullable<paths["/api/scenarios/{scenario_id}/export"]["get"]["parameters"]["query"]>["format"]>;

/** `?format=` of `POST /api/scenarios/{id}/nodes/{node}/track` (from the generated OpenAPI types). */
export type TrackFormat = paths["/api/scenarios/{scenario_id}/nodes/{node_id}/track"]["post"]["parameters"]["query"]["format"];

export const api = {
  /** Sign in (OAuth2 password form); the answer also sets the session cookie. 401: wrong credentials. */
  login: (username: string, password: string) =>
    request<AccessToken>("/api/auth/login", {
      method: "POST",
      body: new URLSearchParams({ username, password }),
    }),
  logout: () => request<void>("/api/auth/logout", { method: "POST" }),
  me: (signal?: AbortSignal) => request<UserPublic>("/api/users/me", {}, signal),
  listTokens: (signal?: AbortSignal) => request<ApiTokensPublic>("/api/users/me/tokens", {}, signal),
  /** A new personal API token; the answer's `token` is shown once. */
  createToken: (body: ApiTokenCreate) =>
    request<ApiTokenCreated>("/api/users/me/tokens", { method: "POST", body: JSON.stringify(body) }),
  revokeToken: (tokenId: Id) => request<void>(`/api/users/me/tokens/${enc(String(tokenId))}`, { method: "DELETE" }),
  /** The scenarios you can see, by name: the first `limit` (the API's most, 1000) and the total `count`. */
  listScenarios: (signal?: AbortSignal, limit = 1000) =>
    request<ScenariosPublic>(`/api/scenarios?limit=${limit}`, {}, signal),
  /** Delete a scenario with its versions and comparisons (owner or editor of its project; admins). */
  deleteScenario: (id: Id) => request<void>(`/api/scenarios/${enc(String(id))}`, { method: "DELETE" }),
  /** Copy a scenario (a version of it) into a new scenario; 409 if the name is taken. */
  forkScenario: (id: Id, body: ScenarioFork) =>
    request<ScenarioPublic>(`/api/scenarios/${enc(String(id))}/fork`, { method: "POST", body: JSON.stringify(body) }),
  /** The projects you have a role in (admins: all). */
  listProjects: (signal?: AbortSignal) => request<ProjectsPublic>("/api/projects", {}, signal),
  /** One project with your role (404 if you are not a member). */
  getProject: (id: Id, signal?: AbortSignal) => request<ProjectPublic>(`/api/projects/${enc(String(id))}`, {}, signal),
  /** A new project; you become its owner (409 if the name is taken). */
  createProject: (body: ProjectCreate) =>
    request<ProjectPublic>("/api/projects", { method: "POST", body: JSON.stringify(body) }),
  /** Rename or describe a project (owners). */
  updateProject: (id: Id, body: ProjectUpdate) =>
    request<ProjectPublic>(`/api/projects/${enc(String(id))}`, { method: "PATCH", body: JSON.stringify(body) }),
  /** Delete an empty project (owners; 409 while it holds scenarios). */
  deleteProject: (id: Id) => request<void>(`/api/projects/${enc(String(id))}`, { method: "DELETE" }),
  /** A project's members and roles (any member; 404 for others). */
  listMembers: (id: Id, signal?: AbortSignal) =>
    request<MembersPublic>(`/api/projects/${enc(String(id))}/members`, {}, signal),
  /** Add a user by name or change their role (owners; 422 on `username` when nobody has it). */
  addMember: (id: Id, body: MemberAdd) =>
    request<MemberPublic>(`/api/projects/${enc(String(id))}/members`, { method: "POST", body: JSON.stringify(body) }),
  /** Change a member's role (owners; 409 if the project would have no owner). */
  setMemberRole: (id: Id, userId: Id, role: ProjectRole) =>
    request<MemberPublic>(`/api/projects/${enc(String(id))}/members/${enc(String(userId))}`, {
      method: "PUT",
      body: JSON.stringify({ role }),
    }),
  /** Remove a member (owners; 409 for the last owner). */
  removeMember: (id: Id, userId: Id) =>
    request<void>(`/api/projects/${enc(String(id))}/members/${enc(String(userId))}`, { method: "DELETE" }),
  /** Every account, by username (admins; 403 otherwise). */
  listUsers: (signal?: AbortSignal, limit = 1000) => request<UsersPublic>(`/api/users?limit=${limit}`, {}, signal),
  /** A new account (admins; 409 if the username is taken, 422 naming the field for a weak password). */
  createUser: (body: UserCreate) => request<UserPublic>("/api/users", { method: "POST", body: JSON.stringify(body) }),
  /** Change an account's flags or password (admins; 409 for the last active admin). */
  updateUser: (id: Id, body: UserUpdate) =>
    request<UserPublic>(`/api/users/${enc(String(id))}`, { method: "PATCH", body: JSON.stringify(body) }),
  /** Delete an account (admins; 409 for yourself, the last active admin, the only owner of a project). */
  deleteUser: (id: Id) => request<void>(`/api/users/${enc(String(id))}`, { method: "DELETE" }),
  /** A page of the audit log, newest first (admins; 403 otherwise). */
  listAudit: (query: AuditQuery, signal?: AbortSignal) => {
    const q = new URLSearchParams();
    for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== null && v !== "") q.set(k, String(v));
    return request<AuditPublic>(`/api/audit${q.size ? `?${q}` : ""}`, {}, signal);
  },
  getScenario: (id: Id, signal?: AbortSignal) =>
    request<ScenarioPublic>(`/api/scenarios/${enc(String(id))}`, {}, signal),
  createScenario: (doc: unknown, signal?: AbortSignal) =>
    request<ScenarioPublic>("/api/scenarios", { method: "POST", body: JSON.stringify(doc) }, signal),
  /** Save `doc` over version `version` (If-Match); 412 (ApiError) if someone saved meanwhile. */
  updateScenario: (id: Id, doc: ScenarioDocument, version: number) =>
    request<ScenarioPublic>(
      `/api/scenarios/${enc(String(id))}`,
      { method: "PUT", body: JSON.stringify(doc) },
      undefined,
      { "If-Match": versionEtag(version) },
    ),
  listVersions: (id: Id, signal?: AbortSignal) =>
    request<ScenarioVersionsPublic>(`/api/scenarios/${enc(String(id))}/versions`, {}, signal),
  /** One saved version, with its document. */
  getVersion: (id: Id, version: number, signal?: AbortSignal) =>
    request<ScenarioVersionPublic>(`/api/scenarios/${enc(String(id))}/versions/${version}`, {}, signal),
  /** Make version `version` current again (as a new version). */
  restoreVersion: (id: Id, version: number) =>
    request<ScenarioPublic>(`/api/scenarios/${enc(String(id))}/versions/${version}/restore`, { method: "POST" }),
  listStrategies: (signal?: AbortSignal) => request<StrategyInfo[]>("/api/strategies", {}, signal),
  listComparisons: (scenarioId: Id, signal?: AbortSignal) =>
    request<ComparisonsPublic>(
      `/api/scenarios/${enc(String(scenarioId))}/comparisons`,
      {},
      signal,
    ),
  getComparison: (scenarioId: Id, comparisonId: Id, signal?: AbortSignal) =>
    request<ComparisonPublic>(
      `/api/scenarios/${enc(String(scenarioId))}/comparisons/${enc(String(comparisonId))}`,
      {},
      signal,
    ),
  /** The sweep points whose representative run (first repetition) is stored. */
  listSweepPointRuns: (scenarioId: Id, comparisonId: Id, signal?: AbortSignal) =>
    request<SweepPointRunsPublic>(
      `/api/scenarios/${enc(String(scenarioId))}/comparisons/${enc(String(comparisonId))}/sweep-points`,
      {},
      signal,
    ),
  /** One sweep point's representative run: scenario as run and per-strategy results (series, events, summary). */
  getSweepPointRun: (scenarioId: Id, comparisonId: Id, point: number, signal?: AbortSignal) =>
    request<SweepPointRunPublic>(
      `/api/scenarios/${enc(String(scenarioId))}/comparisons/${enc(String(comparisonId))}/sweep-points/${point}`,
      {},
      signal,
    ),
  startComparison: (scenarioId: Id, body: Partial<ComparisonRequest>) =>
    request<ComparisonPublic>(`/api/scenarios/${enc(String(scenarioId))}/comparisons`, {
      method: "POST",
      body: JSON.stringify(body),
    }),
  cancelComparison: (scenarioId: Id, comparisonId: Id) =>
    request<ComparisonPublic>(
      `/api/scenarios/${enc(String(scenarioId))}/comparisons/${enc(String(comparisonId))}/cancel`,
      { method: "POST" },
    ),
  /** Server-sent events URL of a comparison's progress (for `EventSource`). */
  comparisonEventsUrl: (scenarioId: Id, comparisonId: Id) =>
    `/api/scenarios/${enc(String(scenarioId))}/comparisons/${enc(String(comparisonId))}/events`,
  /** The agent's engines (`GET /api/engines`; the configured ones, availability unknown, when the agent is down). */
  listEngines: async (signal?: AbortSignal): Promise<EngineInfo[]> =>
    (await request<EnginesPublic>("/api/engines", {}, signal)).engines,
  /** Save-time warnings of a document (unreachable flows, waypoint paths longer than the run); nothing stored. */
  scenarioChecks: (doc: ScenarioDocument, signal?: AbortSignal) =>
    request<ScenarioChecksPublic>("/api/scenario-checks", { method: "POST", body: JSON.stringify(doc) }, signal),
  /** `POST /api/timeline` (`access`: also each satellite pass over each terminal, `?access=true`). */
  timeline: (doc: ScenarioDocument, signal?: AbortSignal, opts: { access?: boolean } = {}) =>
    request<TimelinePublic>(`/api/timeline${opts.access ? "?access=true" : ""}`, { method: "POST", body: JSON.stringify(doc) }, signal),
  /** `POST /api/coverage?t_s&cells`: the air rate around the access points at `t_s` (nothing stored). */
  coverage: (doc: ScenarioDocument, t_s: number, cells: number, signal?: AbortSignal) =>
    request<CoveragePublic>(`/api/coverage?t_s=${encodeURIComponent(String(t_s))}&cells=${cells}`, { method: "POST", body: JSON.stringify(doc) }, signal),
  /** `POST /api/imports` (multipart: `file`, optional `name`): JSON, GraphML, SNDlib native, CORE session XML, ns-2 trace. */
  importFile: (file: File, name?: string) => {
    const form = new FormData();
    form.append("file", file, file.name);
    if (name) form.append("name", name);
    return request<ScenarioPublic>("/api/imports", { method: "POST", body: form });
  },
  /**
   * `POST /api/scenarios/{id}/nodes/{node}/track` (multipart `file`; `format`, optional `mmsi`): the
   * node's mobility becomes the imported track, stored as a new version (returned); `version`: the
   * version edited (If-Match: 412 if someone saved meanwhile).
   */
  importTrack: (scenarioId: Id, nodeId: string, file: File, format: TrackFormat, mmsi?: string, version?: number) => {
    const form = new FormData();
    form.append("file", file, file.name);
    const q = new URLSearchParams({ format: String(format) });
    if (mmsi) q.set("mmsi", mmsi);
    return request<ScenarioPublic>(
      `/api/scenarios/${enc(String(scenarioId))}/nodes/${enc(nodeId)}/track?${q}`,
      { method: "POST", body: form },
      undefined,
      version === undefined ? {} : { "If-Match": versionEtag(version) },
    );
  },
  /** GPX 1.1 of a node's trajectory (geographic scenarios). */
  trackGpxUrl: (scenarioId: Id, nodeId: string) => `/api/scenarios/${enc(String(scenarioId))}/nodes/${enc(nodeId)}/track.gpx`,
  /** `POST /api/scenarios/{id}/routes` inline (200 with the routes document) on the saved scenario. */
  routes: (scenarioId: Id, body: RoutesRequest, signal?: AbortSignal) =>
    request<RoutesDocument>(`/api/scenarios/${enc(String(scenarioId))}/routes`, { method: "POST", body: JSON.stringify({ ...body, background: false }) }, signal),
  /** The same in the worker: 202 with a job to poll with {@link api.job}. */
  routesJob: (scenarioId: Id, body: RoutesRequest, signal?: AbortSignal) =>
    request<JobAccepted>(`/api/scenarios/${enc(String(scenarioId))}/routes`, { method: "POST", body: JSON.stringify({ ...body, background: true }) }, signal),
  /** `POST /api/scenarios/{id}/allocations` inline: the Flow Deviation allocation of the saved scenario's rated flows. */
  allocations: (scenarioId: Id, body: AllocationRequest, signal?: AbortSignal) =>
    request<AllocationDocument>(`/api/scenarios/${enc(String(scenarioId))}/allocations`, { method: "POST", body: JSON.stringify({ ...body, background: false }) }, signal),
  /** `GET /api/jobs/{id}`: a background planning job (progress, done/total, result). */
  job: (jobId: string, signal?: AbortSignal) => request<JobPublic>(`/api/jobs/${enc(jobId)}`, {}, signal),
  /** `GET .../comparisons/{cid}/planned`: planned vs measured of one strategy over [t0_s, t1_s). */
  planned: (scenarioId: Id, comparisonId: Id, strategy: string, t0_s?: number, t1_s?: number, signal?: AbortSignal) => {
    const q = new URLSearchParams({ strategy });
    if (t0_s !== undefined) q.set("t0_s", String(t0_s));
    if (t1_s !== undefined) q.set("t1_s", String(t1_s));
    return request<PlanComparison>(`/api/scenarios/${enc(String(scenarioId))}/comparisons/${enc(String(comparisonId))}/planned?${q}`, {}, signal);
  },
  /** `GET .../comparisons/{cid}/captures`: the comparison's packet captures by strategy and link (no files). */
  captures: (scenarioId: Id, comparisonId: Id, signal?: AbortSignal) =>
    request<CapturesPublic>(`/api/scenarios/${enc(String(scenarioId))}/comparisons/${enc(String(comparisonId))}/captures`, {}, signal),
  /** Where one capture's pcap file downloads (the session cookie authorises the link). */
  captureUrl: (scenarioId: Id, comparisonId: Id, captureId: Id) =>
    `/api/scenarios/${enc(String(scenarioId))}/comparisons/${enc(String(comparisonId))}/captures/${enc(String(captureId))}`,
  /** `strategy`: the transport strategy a Mininet-WiFi script runs (ignored by the other formats). */
  exportUrl: (scenarioId: Id, format: ExportFormat, strategy?: string) =>
    `/api/scenarios/${enc(String(scenarioId))}/export?format=${enc(format)}${strategy ? `&strategy=${enc(strategy)}` : ""}`,
};

export function isAbort(err: unknown): boolean {
  return err instanceof DOMException && err.name === "AbortError";
}
