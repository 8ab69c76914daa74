// @vitest-environment happy-dom
/**
 * The top navigation: every signed-in user reaches the scenarios, the projects and their API tokens
 * (not only by clicking their name); only admins see Users and Audit log; the current page is marked.
 */
import { act } from "react";
import { createRoot } from "react-dom/client";
import { MemoryRouter } from "react-router";
import { describe, expect, it } from "vitest";
import { fakeUser } from "../testing/renderPage";
import { MainNav } from "./MainNav";

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

function links(isAdmin: boolean, path: string) {
  const host = document.createElement("div");
  document.body.append(host);
  const root = createRoot(host);
  act(() =>
    root.render(
      <MemoryRouter initialEntries={[path]}>
        <MainNav user={fakeUser({ is_admin: isAdmin })} />
      </MemoryRouter>,
    ),
  );
  const out = [...host.querySelectorAll("nav[aria-label=Main] a")].map((a) => `${a.textContent} ${a.getAttribute("href")}${a.getAttribute("aria-current") ? " (current)" : ""}`);
  act(() => root.unmount());
  host.remove();
  return out;
}

describe("MainNav", () => {
  it.each([
    [true, ["Scenarios /", "Projects /projects", "API tokens /account (current)", "Users /admin/users", "Audit log /admin/audit"]],
    [false, ["Scenarios /", "Projects /projects", "API tokens /account (current)"]],
  ])("admin %s sees %j", (isAdmin, expected) => {
    expect(links(isAdmin, "/account")).toEqual(expected);
  });
});
