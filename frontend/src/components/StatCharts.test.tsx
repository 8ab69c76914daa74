/**
 * The summary bars say what the means hide: a strategy whose flows stopped shows its longest outage under
 * its bar (expected values from the fixture's flow summaries: f1 at zero 2 s, f2 3 s in one run).
 */
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { summaryBars } from "../lib/chartData";
import { RESULT } from "../lib/fixtures.test-data";
import { outageText, SummaryBars } from "./StatCharts";

describe("SummaryBars", () => {
  it("shows each strategy's longest outage beside its mean", () => {
    const html = renderToStaticMarkup(<SummaryBars bars={summaryBars(RESULT, ["sptcp"])} colors={{ sptcp: "#2563eb" }} />);
    expect(html).toMatch(/data-testid="outage-sptcp"[^>]*>outage 3 s \(5 s at zero\)</);
    expect(html).toContain('data-outage="3"');
  });
  it("words outages", () => {
    const bar = { strategy: "s", mean_mbps: 1, std_mbps: 0, jain_index: 1 };
    expect(outageText({ ...bar, longest_outage_s: 0, zero_s: 0 })).toBe("no outage");
    expect(outageText({ ...bar, longest_outage_s: 2, zero_s: 2 })).toBe("outage 2 s");
    expect(outageText({ ...bar, longest_outage_s: 2, zero_s: 4.25 })).toBe("outage 2 s (4.3 s at zero)");
  });
});
