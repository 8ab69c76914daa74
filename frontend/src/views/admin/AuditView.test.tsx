// @vitest-environment happy-dom
/**
 * The audit log page against a fake fetch: a page of entries in a table with headers, the filters
 * sent as the API's `action` and `username` query parameters on submit (back to the first page),
 * Older/Newer moving `skip` by a page and stopping at the ends, and a non-admin shown the API's 403.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import type { AuditEntryPublic } from "../../api/types";
import { installFakeFetch } from "../../testing/fakeFetch";
import { button, click, control, fakeUser, renderPage, submit, type, type RenderedPage } from "../../testing/renderPage";
import { AUDIT_PAGE, AuditView, detailText, targetText } from "./AuditView";

const entry = (id: number): AuditEntryPublic => ({ id, at: "2026-11-28T10:00:00Z", username: "admin", action: "member_set", target: "p1", ip: "127.0.0.1", detail: { user: "bob", role: "editor" } });

let page: RenderedPage;
afterEach(() => {
  page.unmount();
  vi.unstubAllGlobals();
});

describe("AuditView", () => {
  it("pages through the log and filters by action and username", async () => {
    const fake = installFakeFetch({
      "GET /api/projects": () => [200, { data: [{ id: "p1", name: "trials", description: "", role: "owner", created_at: "2026-11-28T10:00:00Z" }], count: 1 }],
      "GET /api/audit": (req) => {
        const skip = Number(req.query.get("skip"));
        const count = 120;
        const n = Math.min(AUDIT_PAGE, count - skip);
        return [200, { data: Array.from({ length: n }, (_, i) => entry(count - skip - i)), count }];
      },
    });
    page = await renderPage(<AuditView />, fakeUser());
    expect(page.host.querySelector("tbody td:nth-child(4)")!.textContent).toBe("project trials");
    expect(document.title).toBe("Audit log · Admin · Subflow");
    const heads = [...page.host.querySelectorAll("table[aria-label='Audit log'] th")].map((t) => t.textContent);
    expect(heads).toEqual(["When", "User", "Action", "Target", "Address", "Detail"]);
    expect(page.host.textContent).toContain("Entries 1–50 of 120");
    expect(page.host.querySelector("tbody td:last-child")!.textContent).toBe("role=editor, user=bob");
    expect(button(page.host, "Newer").disabled).toBe(true);
    await click(button(page.host, "Older"));
    await click(button(page.host, "Older"));
    expect(page.host.textContent).toContain("Entries 101–120 of 120");
    expect(button(page.host, "Older").disabled).toBe(true);
    expect(fake.requests.filter((r) => r.path === "/api/audit").map((r) => r.query.get("skip"))).toEqual(["0", "50", "100"]);

    await type(control(page.host, "Action"), " token_create ");
    await type(control(page.host, "Username"), "alice");
    await submit(page.host, "Filter the audit log");
    const last = fake.requests.at(-1)!.query;
    expect(Object.fromEntries(last)).toEqual({ action: "token_create", username: "alice", skip: "0", limit: String(AUDIT_PAGE) });
  });

  it("shows a non-admin the API's 403 message, no filters and no table", async () => {
    installFakeFetch({ "GET /api/audit": () => [403, { detail: "only an admin may do this" }] });
    page = await renderPage(<AuditView />, fakeUser({ is_admin: false }));
    expect(page.host.querySelector("[role=alert]")!.textContent).toContain("only an admin may do this");
    expect(page.host.querySelector("table, form")).toBeNull();
  });

  it("names a project entry's target by the project's name", () => {
    const names = new Map([["p1", "trials"]]);
    expect(targetText(entry(1), names)).toBe("project trials");
    expect(targetText({ ...entry(1), target: "p2" }, names)).toBe("p2");
    expect(targetText({ ...entry(1), action: "user_update", target: "p1" }, names)).toBe("p1");
  });

  it("writes an entry's detail as sorted key=value pairs", () => {
    expect(detailText(null)).toBe("");
    expect(detailText({ scope: "read", name: "ci", n: 2 })).toBe("n=2, name=ci, scope=read");
  });
});
