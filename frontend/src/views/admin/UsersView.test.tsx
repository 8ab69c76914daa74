// @vitest-environment happy-dom
/**
 * The users page against a fake fetch: the accounts in a table with headers, each flag a labelled
 * checkbox that PATCHes only that flag; a new account whose refused password is named at its field
 * (the field-message helper's words) and in the banner; a 409 from a delete shown with the API's
 * message; and a non-admin shown the API's 403 message, with neither the table nor the form.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import type { UserPublic } from "../../api/types";
import { installFakeFetch } from "../../testing/fakeFetch";
import { button, click, control, fakeUser, renderPage, submit, type, type RenderedPage } from "../../testing/renderPage";
import { UsersView } from "./UsersView";

const alice: UserPublic = fakeUser({ id: "u-alice", username: "alice", is_admin: false });
const admin: UserPublic = fakeUser();

let page: RenderedPage;
afterEach(() => {
  page.unmount();
  vi.unstubAllGlobals();
});

describe("UsersView", () => {
  it("lists the accounts and toggles can_run_linux with one PATCH", async () => {
    let users = [admin, alice];
    const fake = installFakeFetch({
      "GET /api/users": () => [200, { data: users, count: users.length }],
      "PATCH /api/users/u-alice": (req) => {
        users = [admin, { ...alice, ...(req.body as object) }];
        return [200, users[1]];
      },
    });
    page = await renderPage(<UsersView />, admin);
    expect(document.title).toBe("Users · Admin · Subflow");
    const headers = [...page.host.querySelectorAll("table[aria-label=Users] thead th")].map((t) => t.textContent);
    expect(headers.slice(0, 4)).toEqual(["Username", "Admin", "Active", "May run root engines (linux, mininet-wifi)"]);
    const box = control(page.host, "May run root engines (linux, mininet-wifi): alice");
    expect(box.checked).toBe(false);
    expect(control(page.host, "Active: alice").checked).toBe(true);
    await click(box);
    expect(fake.writes()).toEqual(["PATCH /api/users/u-alice"]);
    expect(fake.requests.find((r) => r.method === "PATCH")!.body).toEqual({ can_run_linux: true });
    expect(control(page.host, "May run root engines (linux, mininet-wifi): alice").checked).toBe(true);
    expect(page.host.querySelector("[role=status]")!.textContent).toContain("alice");
    // you cannot delete yourself: the button is off
    expect(button(page.host, "Delete admin…").disabled).toBe(true);
  });

  it("names a refused password at its field and in the banner", async () => {
    const fake = installFakeFetch({
      "GET /api/users": () => [200, { data: [admin], count: 1 }],
      "POST /api/users": () => [422, { detail: [{ loc: ["body", "password"], msg: "Input should be greater than or equal to 8", type: "x" }] }],
    });
    page = await renderPage(<UsersView />, admin);
    await type(control(page.host, "Username"), "bob");
    await type(control(page.host, "Password"), "short");
    await submit(page.host, "New user");
    expect(fake.requests.at(-1)!.body).toEqual({ username: "bob", password: "short", is_admin: false, can_run_linux: false });
    const pw = control(page.host, "Password");
    expect(pw.getAttribute("aria-invalid")).toBe("true");
    expect(document.getElementById(pw.getAttribute("aria-describedby")!)!.textContent).toBe("must be ≥ 8");
    expect(page.host.querySelector("[role=alert]")!.textContent).toContain("password");
  });

  it("puts a refused flag back as the API has it, with the API's message", async () => {
    installFakeFetch({
      "GET /api/users": () => [200, { data: [admin], count: 1 }],
      "PATCH /api/users/u-admin": () => [409, { detail: "'admin' is the last active admin" }],
    });
    page = await renderPage(<UsersView />, admin);
    await click(control(page.host, "Admin: admin"));
    expect(control(page.host, "Admin: admin").checked).toBe(true);
    expect(page.host.querySelector("[role=alert]")!.textContent).toContain("'admin' is the last active admin");
  });

  it("sets an account's password, its refusal named at the field", async () => {
    let tries = 0;
    const fake = installFakeFetch({
      "GET /api/users": () => [200, { data: [admin, alice], count: 2 }],
      "PATCH /api/users/u-alice": () =>
        ++tries === 1 ? [422, { detail: [{ loc: ["body", "password"], msg: "Value error, one of the 10 000 most common passwords", type: "value_error" }] }] : [200, alice],
    });
    page = await renderPage(<UsersView />, admin);
    await click(button(page.host, "Set password of alice…"));
    await type(control(page.host, "New password for alice"), "password1");
    await submit(page.host, "Set the password of alice");
    const field = control(page.host, "New password for alice");
    expect(document.getElementById(field.getAttribute("aria-describedby")!)!.textContent).toContain("most common passwords");
    await type(field, "a-much-better-secret");
    await submit(page.host, "Set the password of alice");
    expect(fake.requests.filter((r) => r.method === "PATCH").map((r) => r.body)).toEqual([{ password: "password1" }, { password: "a-much-better-secret" }]);
    expect(page.host.querySelector("form[aria-label='Set the password of alice']")).toBeNull();
    expect(page.host.querySelector("[role=status]")!.textContent).toContain("New password set for alice");
  });

  it("shows the API's message when a delete is refused", async () => {
    installFakeFetch({
      "GET /api/users": () => [200, { data: [admin, alice], count: 2 }],
      "DELETE /api/users/u-alice": () => [409, { detail: "'alice' is the only owner of project(s) 'p'" }],
    });
    page = await renderPage(<UsersView />, admin);
    await click(button(page.host, "Delete alice…"));
    await click(button(page.host, "Delete"));
    expect(page.host.querySelector("[role=alert]")!.textContent).toContain("'alice' is the only owner of project(s) 'p'");
  });

  it("shows a non-admin the API's 403 message and nothing else", async () => {
    installFakeFetch({ "GET /api/users": () => [403, { detail: "only an admin may do this" }] });
    page = await renderPage(<UsersView />, alice);
    expect(page.host.querySelector("[role=alert]")!.textContent).toContain("only an admin may do this");
    expect(page.host.querySelector("table")).toBeNull();
    expect(page.host.querySelector("form")).toBeNull();
  });
});
