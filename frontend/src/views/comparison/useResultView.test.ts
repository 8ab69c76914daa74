// @vitest-environment happy-dom
/**
 * useResultView mounted in happy-dom on the hand-made result fixture: the requested strategies come
 * first in that order, every strategy has its series, colour and subflows, the shared axes cover
 * the run, and the view is recomputed only for a new document or a new request.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { ResultDocument } from "../../api/types";
import { RESULT } from "../../lib/fixtures.test-data";
import { renderHook, type Rendered } from "../../testing/renderHook";
import { useResultView, type ResultView } from "./useResultView";

type Props = { result: ResultDocument; requested: string[] };
let r: Rendered<Props, ResultView>;
afterEach(() => r.unmount());

describe("useResultView", () => {
  it("orders the strategies as requested, with a series, a colour and subflows for each", () => {
    const requested = ["sptcp", "mptcp"];
    r = renderHook((p: Props) => useResultView(p.result, p.requested), { result: RESULT, requested });
    const v = r.result.current;
    expect(v.order).toEqual(["sptcp", "mptcp"]);
    expect(v.series.map((s) => [s.strategy, s.flows.map((f) => f.flowId)])).toEqual([
      ["sptcp", ["f1", "f2"]],
      ["mptcp", ["f1", "f2"]],
    ]);
    expect(Object.keys(v.colors).sort()).toEqual(["mptcp", "sptcp"]);
    expect(v.colors.sptcp).not.toBe(v.colors.mptcp);
    expect(Object.keys(v.subflows).sort()).toEqual(["mptcp", "sptcp"]);
    expect(v.rows.map((row) => row.strategy)[0]).toBe("sptcp");
    expect(v.sweep).toEqual([]);
  });

  it("is the same object until the document or the request changes", () => {
    const requested = ["mptcp", "sptcp"];
    r = renderHook((p: Props) => useResultView(p.result, p.requested), { result: RESULT, requested });
    const first = r.result.current;
    expect(first.order).toEqual(["mptcp", "sptcp"]);
    r.rerender({ result: RESULT, requested });
    expect(r.result.current).toBe(first);
    r.rerender({ result: RESULT, requested: ["sptcp", "mptcp"] });
    expect(r.result.current).not.toBe(first);
    expect(r.result.current.order).toEqual(["sptcp", "mptcp"]);
  });
});
