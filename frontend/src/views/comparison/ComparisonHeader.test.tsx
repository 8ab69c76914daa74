// @vitest-environment happy-dom
/**
 * The comparison page's header names the comparison by its strategies and start time, in the
 * breadcrumb and the browser tab, never by its database id; the tab title goes back to "Subflow" when
 * the page is left.
 */
import { act } from "react";
import { createRoot } from "react-dom/client";
import { MemoryRouter } from "react-router";
import { describe, expect, it } from "vitest";
import type { ComparisonPublic } from "../../api/types";
import { ComparisonHeader } from "./ComparisonHeader";

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

const CID = "66b6fd3b-0d4e-4c1e-9a55-3f0c2b1d9e77";
const SID = "fd35ad96-1111-4222-8333-944455556666";

describe("ComparisonHeader", () => {
  it("shows strategies and start time, not the id, in the breadcrumb and the tab title", () => {
    const created = new Date(2026, 10, 28, 9, 5).toISOString();
    const c = { id: CID, strategies: ["sptcp", "mptcp"], engine: "fluid", scenario_version: 3, created_at: created,
                finished_at: null, seed: null, repetitions: 1, sweep: null, status: "succeeded" } as unknown as ComparisonPublic;
    const host = document.createElement("div");
    document.body.appendChild(host);
    const root = createRoot(host);
    act(() =>
      root.render(
        <MemoryRouter>
          <ComparisonHeader scenarioId={SID} scenarioName="naval-direct-move" comparison={c} status="succeeded" />
        </MemoryRouter>,
      ),
    );
    const crumb = host.querySelector('[aria-current="page"]')!.textContent;
    expect(crumb).toBe("sptcp vs mptcp, 2026-11-28 09:05");
    expect(host.textContent).not.toContain(CID);
    expect(host.textContent).not.toContain(SID);
    expect(document.title).toBe("sptcp vs mptcp, 2026-11-28 09:05 · naval-direct-move · Subflow");
    act(() => root.unmount());
    expect(document.title).toBe("Subflow");
  });
});
