/**
 * Failure analysis, capacity search and background jobs: types aliased from the
 * generated schema (nothing re-typed) and the REST calls.
 */
import { request } from "./client";
import type { components } from "./schema";

type S = components["schemas"];

export type FailureRequest = S["FailureAnalysisRequest"];
export type FailureReport = S["FailureReport"];
export type FailureCase = S["FailureCase"];
export type FlowImpact = S["FlowImpact"];
export type CapacityRequest = S["CapacityRequest"];
export type CapacityResult = S["CapacityResult"];
export type CapacityStep = S["CapacityStep"];
export type JobAccepted = S["JobAccepted"];
export type JobPublic = S["JobPublic"];

const enc = encodeURIComponent;

export const analysisApi = {
  /** `POST /api/scenarios/{id}/failures` inline: every single link (and node) failure, worst first. */
  failures: (scenarioId: string, body: Partial<FailureRequest>, signal?: AbortSignal) =>
    request<FailureReport>(`/api/scenarios/${enc(scenarioId)}/failures`,
      { method: "POST", body: JSON.stringify({ ...body, background: false }) }, signal),
  /** `POST /api/scenarios/{id}/capacity-searches`: a worker job (202). */
  startCapacitySearch: (scenarioId: string, body: CapacityRequest) =>
    request<JobAccepted>(`/api/scenarios/${enc(scenarioId)}/capacity-searches`, { method: "POST", body: JSON.stringify(body) }),
  job: (jobId: string, signal?: AbortSignal) => request<JobPublic>(`/api/jobs/${enc(jobId)}`, {}, signal),
  /** Server-sent events URL of a job's progress (for `EventSource`). */
  jobEventsUrl: (jobId: string) => `/api/jobs/${enc(jobId)}/events`,
};
