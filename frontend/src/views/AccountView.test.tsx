// @vitest-environment happy-dom
/**
 * The API tokens page against a fake fetch: a token created with its name and scope, its secret
 * shown once (gone from the list, which shows only the prefix), revoked with one DELETE; a refusal
 * shown with the API's field and message.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import type { ApiTokenPublic } from "../api/types";
import { installFakeFetch } from "../testing/fakeFetch";
import { button, choose, click, control, fakeUser, renderPage, submit, type, type RenderedPage } from "../testing/renderPage";
import { AccountView } from "./AccountView";

let page: RenderedPage;
afterEach(() => {
  page.unmount();
  vi.unstubAllGlobals();
});

describe("AccountView", () => {
  it("creates a token showing its secret once, and revokes it", async () => {
    let tokens: ApiTokenPublic[] = [];
    const fake = installFakeFetch({
      "GET /api/users/me/tokens": () => [200, { data: tokens, count: tokens.length }],
      "POST /api/users/me/tokens": (req) => {
        const b = req.body as { name: string; scope: "read" | "write" };
        const t = { id: "t1", name: b.name, scope: b.scope, prefix: "sft_abcd", created_at: "2026-11-28T10:00:00Z", expires_at: null, last_used_at: null };
        tokens = [t];
        return [201, { ...t, token: "sft_abcd-the-secret" }];
      },
      "DELETE /api/users/me/tokens/t1": () => {
        tokens = [];
        return [204];
      },
    });
    page = await renderPage(<AccountView />, fakeUser());
    expect(document.title).toBe("API tokens · Subflow");
    await type(control(page.host, "Name"), "ci");
    await choose(control<HTMLSelectElement>(page.host, "Scope"), "write");
    await type(control(page.host, "Expires after (days)"), "30");
    await submit(page.host, "New API token");
    expect(fake.requests.find((r) => r.method === "POST")!.body).toEqual({ name: "ci", scope: "write", expires_days: 30 });
    expect(page.host.querySelector("[data-testid=new-token]")!.textContent).toBe("sft_abcd-the-secret");
    const table = page.host.querySelector("table[aria-label='Your API tokens']")!;
    expect(table.textContent).toContain("sft_abcd…");
    expect(table.textContent).not.toContain("the-secret");
    await click(button(page.host, "Revoke"));
    expect(fake.writes()).toEqual(["POST /api/users/me/tokens", "DELETE /api/users/me/tokens/t1"]);
    expect(page.host.querySelector("table")).toBeNull();
  });

  it("shows a refused token with the API's field and message", async () => {
    const fake = installFakeFetch({
      "GET /api/users/me/tokens": () => [200, { data: [], count: 0 }],
      "POST /api/users/me/tokens": () => [422, { detail: [{ loc: ["body", "name"], msg: "String should have at most 100 characters", type: "x" }] }],
    });
    page = await renderPage(<AccountView />, fakeUser());
    await type(control(page.host, "Name"), "x");
    await submit(page.host, "New API token");
    expect(fake.requests.at(-1)!.body).toEqual({ name: "x", scope: "read", expires_days: null });
    expect(page.host.querySelector("[role=alert]")!.textContent).toContain("name: String should have at most 100 characters");
  });
});
