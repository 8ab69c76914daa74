// @vitest-environment happy-dom
import { act } from "react";
import { afterEach, expect, test, vi } from "vitest";
import { ApiError, api } from "../api/client";
import { renderHook } from "../testing/renderHook";
import { useStrategies } from "./useStrategies";

afterEach(() => vi.restoreAllMocks());

/** Lets the mocked request's promise settle inside act(). */
const settle = () => act(async () => await Promise.resolve());

test("reads the server's list once per mount: null while it loads, then the list", async () => {
  const list = vi.spyOn(api, "listStrategies").mockResolvedValue([{ name: "mptcp", description: "multipath" }] as never);
  const view = renderHook(() => useStrategies(), undefined);
  expect(view.result.current.strategies).toBeNull();
  await settle();
  expect(view.result.current.strategies?.map((s) => s.name)).toEqual(["mptcp"]);
  view.rerender(undefined);
  expect(list).toHaveBeenCalledTimes(1);
  expect(view.result.current.error).toBeNull();
  view.unmount();
});

test("a failed request gives an empty list and the error, so a chooser stops waiting", async () => {
  const failure = new ApiError(503, "agent unavailable");
  vi.spyOn(api, "listStrategies").mockRejectedValue(failure);
  const view = renderHook(() => useStrategies(), undefined);
  await settle();
  expect(view.result.current.strategies).toEqual([]);
  expect(view.result.current.error).toBe(failure);
  view.unmount();
});
