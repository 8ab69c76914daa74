/** Thin fetch wrapper for the Subflow REST API. All paths are relative (`/api/...`). */
import type {
  ComparisonPublic,
  ComparisonsPublic,
  EngineInfo,
  EnginesPublic,
  TimelinePublic,
  ComparisonRequest,
  Id,
  ScenarioDocument,
  ScenarioPublic,
  ScenariosPublic,
  StrategyInfo,
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

async function request<T>(path: string, init: RequestInit = {}, signal?: AbortSignal): Promise<T> {
  const headers: Record<string, string> = { Accept: "application/json" };
  if (init.body !== undefined && !(init.body instanceof FormData)) headers["Content-Type"] = "application/json";
  const res = await fetch(path, { ...init, headers, signal });
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

/** `?format=` of `GET /api/scenarios/{id}/export` (from the generated OpenAPI types). */
export type ExportFormat = NonNullable<NonNullable<paths["/api/scenarios/{scenario_id}/export"]["get"]["parameters"]["query"]>["format"]>;

export const api = {
  listScenarios: (signal?: AbortSignal) =>
    request<ScenariosPublic>("/api/scenarios", {}, signal),
  getScenario: (id: Id, signal?: AbortSignal) =>
    request<ScenarioPublic>(`/api/scenarios/${enc(String(id))}`, {}, signal),
  createScenario: (doc: unknown, signal?: AbortSignal) =>
    request<ScenarioPublic>("/api/scenarios", { method: "POST", body: JSON.stringify(doc) }, signal),
  updateScenario: (id: Id, doc: ScenarioDocument) =>
    request<ScenarioPublic>(`/api/scenarios/${enc(String(id))}`, {
      method: "PUT",
      body: JSON.stringify(doc),
    }),
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
  timeline: (doc: ScenarioDocument, signal?: AbortSignal) =>
    request<TimelinePublic>("/api/timeline", { method: "POST", body: JSON.stringify(doc) }, signal),
  /** `POST /api/imports` (multipart: `file`, optional `name`): JSON, Topology Zoo GraphML or SNDlib native. */
  importFile: (file: File, name?: string) => {
    const form = new FormData();
    form.append("file", file, file.name);
    if (name) form.append("name", name);
    return request<ScenarioPublic>("/api/imports", { method: "POST", body: form });
  },
  exportUrl: (scenarioId: Id, format: ExportFormat) =>
    `/api/scenarios/${enc(String(scenarioId))}/export?format=${enc(format)}`,
};

export function isAbort(err: unknown): boolean {
  return err instanceof DOMException && err.name === "AbortError";
}
