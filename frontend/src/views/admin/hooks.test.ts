// @vitest-environment happy-dom
/**
 * The admin pages' two hooks against a fake fetch: `useResource` keeps the answer, the API's message
 * and status of a refusal, reads again on `reload` and when its inputs change; `useApiErrors` gives
 * the banner's lines and, for a 422, each field's message in the editor's words.
 */
import { act } from "react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { ApiError, api } from "../../api/client";
import { installFakeFetch } from "../../testing/fakeFetch";
import { renderHook, settle } from "../../testing/renderHook";
import { useApiErrors } from "./useApiErrors";
import { useResource } from "./useResource";

afterEach(() => vi.unstubAllGlobals());

describe("useResource", () => {
  it("keeps the answer, the refusal's message and status, and reads again", async () => {
    let answer: [number, unknown] = [200, { id: "p1", name: "a" }];
    installFakeFetch({ "GET /api/projects/p1": () => answer, "GET /api/projects/p2": () => [200, { id: "p2" }] });
    const r = renderHook((id: string) => useResource((signal) => api.getProject(id, signal), [id]), "p1");
    await settle();
    expect(r.result.current.data).toEqual({ id: "p1", name: "a" });
    answer = [404, { detail: "project 'p1' not found" }];
    await act(() => r.result.current.reload());
    expect(r.result.current.data).toBeNull();
    expect(r.result.current.errors).toEqual(["project 'p1' not found"]);
    expect(r.result.current.status).toBe(404);
    r.rerender("p2");
    await settle();
    expect(r.result.current.data).toEqual({ id: "p2" });
    expect(r.result.current.errors).toEqual([]);
    expect(r.result.current.status).toBeNull();
    r.unmount();
  });
});

describe("useApiErrors", () => {
  it("gives lines for the banner and messages per field", async () => {
    const r = renderHook(() => useApiErrors(), undefined);
    act(() => r.result.current.show(new ApiError(422, "x", [{ loc: ["body", "password"], msg: "Input should be greater than or equal to 8", type: "t" }])));
    expect(r.result.current.fields).toEqual({ password: "must be ≥ 8" });
    expect(r.result.current.lines).toHaveLength(1);
    expect(r.result.current.lines[0]).toContain("password");
    act(() => r.result.current.show(new ApiError(409, "the project would have no owner")));
    expect(r.result.current.fields).toEqual({});
    expect(r.result.current.lines).toEqual(["the project would have no owner"]);
    act(() => r.result.current.clear());
    expect(r.result.current.lines).toEqual([]);
    r.unmount();
  });
});
