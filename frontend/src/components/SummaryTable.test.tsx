/**
 * The summary table rendered by React (react-dom/server, no DOM needed) from the typed result
 * fixture: one row per strategy × flow in the requested order, then each strategy's "all flows"
 * row; values formatted as the column says. Expected cells are written out from the fixture.
 */
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { RESULT } from "../lib/fixtures.test-data";
import { summaryRows } from "../lib/summaryRows";
import { SummaryTable } from "./SummaryTable";

/** Rows of the rendered table: test id → { column → text }, plus the row's first two cells. */
function parse(html: string): { id: string; strategy: string; flow: string; cells: Record<string, string> }[] {
  return [...html.matchAll(/<tr data-testid="summary-([^"]+)"[^>]*>(.*?)<\/tr>/g)].map(([, id, body]) => {
    const head = /<th scope="row">([^<]*)<\/th><td>([^<]*)<\/td>/.exec(body!)!;
    const cells = Object.fromEntries([...body!.matchAll(/data-col="([^"]+)"[^>]*>([^<]*)</g)].map(([, k, v]) => [k!, v!]));
    return { id: id!, strategy: head[1]!, flow: head[2]!, cells };
  });
}

describe("SummaryTable", () => {
  const html = renderToStaticMarkup(<SummaryTable rows={summaryRows(RESULT, ["sptcp", "mptcp"])} />);
  const rows = parse(html);

  it("has one row per strategy and flow, then the strategy's all-flows row, in the requested order", () => {
    expect(rows.map((r) => r.id)).toEqual(["sptcp-f1", "sptcp-f2", "sptcp-all", "mptcp-f1", "mptcp-f2", "mptcp-all"]);
    expect(rows.map((r) => r.strategy)).toEqual(["sptcp", "sptcp", "sptcp", "mptcp", "mptcp", "mptcp"]);
    expect(rows.map((r) => r.flow)).toEqual(["f1", "f2", "all flows", "f1", "f2", "all flows"]);
  });

  it("formats Mbit/s with 3 decimals and seconds without trailing zeros", () => {
    expect(rows[1]!.cells).toEqual({
      mean_mbps: "0.750",
      std_mbps: "1.299",
      min_mbps: "0.000",
      zero_s: "3",
      longest_zero_s: "3",
      jain_index: "—",
    });
  });

  it("the all-flows row takes the summary's figures, Jain's index and the longest zero run over flows", () => {
    expect(rows[2]!.cells).toEqual({
      mean_mbps: "1.125",
      std_mbps: "0.375",
      min_mbps: "0.750",
      zero_s: "5",
      longest_zero_s: "3",
      jain_index: "0.900",
    });
  });

  it("names each column with its unit", () => {
    const headers = [...html.matchAll(/<th scope="col"[^>]*>(.*?)<\/th>/g)].map(([, h]) => h!.replace(/<[^>]+>/g, ""));
    expect(headers).toEqual([
      "Strategy",
      "Flow",
      "Mean (Mbit/s)",
      "Std dev (Mbit/s)",
      "Min (Mbit/s)",
      "At zero (s)",
      "Longest zero run (s)",
      "Jain&#x27;s index",
    ]);
  });
});
