/**
 * Test helper: a fake `fetch` for page tests — the boundary the API client calls — answering each
 * `METHOD /path` (query string left out) from a table of handlers, and keeping every request it got
 * (method, path with query, parsed JSON body) so tests can check what the page sent. A request no
 * handler knows is answered 404 `{detail: "fake: no handler"}`. Only test files import it.
 */
import { vi } from "vitest";

export interface FakeRequest {
  method: string;
  /** path with its query string */
  url: string;
  path: string;
  query: URLSearchParams;
  body: unknown;
}

/** A handler's answer: a status and a JSON body (undefined: no body, e.g. 204). */
export type FakeAnswer = [number, unknown?];
export type FakeHandler = (req: FakeRequest) => FakeAnswer;

export interface FakeFetch {
  requests: FakeRequest[];
  /** the requests other than GET, as "METHOD url" */
  writes: () => string[];
}

/** Replace `fetch` by the fake (undo with `vi.unstubAllGlobals()`). */
export function installFakeFetch(handlers: Record<string, FakeHandler>): FakeFetch {
  const requests: FakeRequest[] = [];
  const fakeFetch = async (input: string | URL, init: RequestInit = {}) => {
    const url = String(input);
    const [path, qs = ""] = url.split("?");
    const method = (init.method ?? "GET").toUpperCase();
    const body = typeof init.body === "string" ? JSON.parse(init.body) : (init.body ?? null);
    const req: FakeRequest = { method, url, path: path!, query: new URLSearchParams(qs), body };
    requests.push(req);
    const handler = handlers[`${method} ${path}`];
    const [status, json] = handler ? handler(req) : [404, { detail: "fake: no handler" }];
    const text = json === undefined ? "" : JSON.stringify(json);
    return new Response(status === 204 ? null : text, { status, headers: { "Content-Type": "application/json" } });
  };
  vi.stubGlobal("fetch", vi.fn(fakeFetch));
  return { requests, writes: () => requests.filter((r) => r.method !== "GET").map((r) => `${r.method} ${r.url}`) };
}
