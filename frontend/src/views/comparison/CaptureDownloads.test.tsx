// @vitest-environment happy-dom
/**
 * The captures' download list against a fake fetch: one row per strategy and link with a link to the file's
 * API address, the size cap shown when it cut a capture, nothing for a comparison without captures, and
 * the API's refusal shown.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import type { CapturePublic } from "../../api/types";
import { installFakeFetch } from "../../testing/fakeFetch";
import { fakeUser, renderPage, type RenderedPage } from "../../testing/renderPage";
import { CaptureDownloads, sizeLabel } from "./CaptureDownloads";

const LIST = "GET /api/scenarios/s1/comparisons/c1/captures";

function capture(over: Partial<CapturePublic>): CapturePublic {
  return { id: "k1", strategy: "sptcp", link: "a-r1", node: "a", format: "pcap", snaplen_bytes: 256, size_bytes: 875795,
           packets: 4145, truncated: false, created_at: "2026-11-29T00:00:00Z", ...over };
}

let page: RenderedPage;
afterEach(() => {
  page.unmount();
  vi.unstubAllGlobals();
});

describe("CaptureDownloads", () => {
  it("lists each strategy's capture of each link with its download link", async () => {
    const data = [capture({ id: "k1", strategy: "mptcp", packets: 8, size_bytes: 1000, truncated: true }), capture({ id: "k2" })];
    installFakeFetch({ [LIST]: () => [200, { data, count: 2 }] });
    page = await renderPage(<CaptureDownloads scenarioId="s1" comparisonId="c1" />, fakeUser());
    const rows = [...page.host.querySelectorAll("table[aria-label='Packet captures'] tbody tr")];
    expect(rows.map((r) => [...r.querySelectorAll("td")].slice(0, 5).map((td) => td.textContent))).toEqual([
      ["mptcp", "a-r1", "a", "8 (size cap reached)", "1000 B"],
      ["sptcp", "a-r1", "a", "4145", "855.3 KiB"],
    ]);
    const links = rows.map((r) => r.querySelector("a")!);
    expect(links.map((a) => a.getAttribute("href"))).toEqual([
      "/api/scenarios/s1/comparisons/c1/captures/k1", "/api/scenarios/s1/comparisons/c1/captures/k2"]);
    expect(links[0]!.getAttribute("download")).toBe("mptcp-a-r1.pcap");
    expect(links[1]!.textContent).toBe("Download sptcp a-r1");
  });

  it("shows nothing without captures, and the API's refusal", async () => {
    installFakeFetch({ [LIST]: () => [200, { data: [], count: 0 }] });
    page = await renderPage(<CaptureDownloads scenarioId="s1" comparisonId="c1" />, fakeUser());
    expect(page.host.querySelector("[data-testid=captures]")).toBeNull();
    page.unmount();
    vi.unstubAllGlobals();
    installFakeFetch({ [LIST]: () => [404, { detail: "comparison 'c1' not found" }] });
    page = await renderPage(<CaptureDownloads scenarioId="s1" comparisonId="c1" />, fakeUser());
    expect(page.host.querySelector("[data-testid=captures]")!.textContent).toContain("comparison 'c1' not found");
  });

  it("labels sizes in B, KiB and MiB", () => {
    expect([sizeLabel(0), sizeLabel(2048), sizeLabel(8 * 1024 * 1024)]).toEqual(["0 B", "2.0 KiB", "8.0 MiB"]);
  });
});
