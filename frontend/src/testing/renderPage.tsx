/**
 * Test helper: renders a page in happy-dom inside a memory router at `path` (route `pattern`) with
 * `user` as the signed-in user, and small helpers to act on it as a person would: type into a
 * labelled field, choose an option, click. Only test files import it.
 */
import { act, type ReactNode } from "react";
import { createRoot } from "react-dom/client";
import { MemoryRouter, Route, Routes } from "react-router";
import type { UserPublic } from "../api/types";
import { SignedInUser } from "../views/signedInUser";
import { settle } from "./renderHook";

export interface RenderedPage {
  host: HTMLElement;
  unmount: () => void;
}

export function fakeUser(over: Partial<UserPublic> = {}): UserPublic {
  return { id: "u-admin", username: "admin", is_admin: true, is_active: true, can_run_linux: false, created_at: "2026-11-28T10:00:00Z", ...over };
}

export async function renderPage(page: ReactNode, user: UserPublic | null, path = "/", pattern = "/"): Promise<RenderedPage> {
  (globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;
  const host = document.createElement("div");
  document.body.append(host);
  const root = createRoot(host);
  act(() =>
    root.render(
      <MemoryRouter initialEntries={[path]}>
        <SignedInUser.Provider value={user}>
          <Routes>
            <Route path={pattern} element={page} />
            <Route path="*" element={<p>elsewhere</p>} />
          </Routes>
        </SignedInUser.Provider>
      </MemoryRouter>,
    ),
  );
  await settle();
  await settle();
  return {
    host,
    unmount: () => {
      act(() => root.unmount());
      host.remove();
    },
  };
}

/** The form control labelled `label` (a `<label for>` or an aria-label), or an error naming the labels there are. */
export function control<T extends HTMLElement = HTMLInputElement>(host: HTMLElement, label: string): T {
  const byAria = host.querySelector(`[aria-label="${label}"]`);
  if (byAria) return byAria as T;
  const own = (l: HTMLLabelElement) => {
    const copy = l.cloneNode(true) as HTMLElement;
    copy.querySelectorAll("input, select, textarea").forEach((c) => c.remove());
    return copy.textContent?.trim();
  };
  for (const l of host.querySelectorAll("label")) {
    if (own(l) !== label) continue;
    const forId = l.getAttribute("for");
    const el = forId ? host.ownerDocument.getElementById(forId) : l.querySelector("input, select, textarea");
    if (el) return el as T;
  }
  const known = [...host.querySelectorAll("label")].map(own);
  throw new Error(`no control labelled ${JSON.stringify(label)}; labels: ${JSON.stringify(known)}`);
}

export async function type(el: HTMLInputElement, text: string): Promise<void> {
  const setter = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, "value")!.set!;
  act(() => {
    setter.call(el, text);
    el.dispatchEvent(new Event("input", { bubbles: true }));
  });
}

export async function choose(el: HTMLSelectElement, value: string): Promise<void> {
  const setter = Object.getOwnPropertyDescriptor(HTMLSelectElement.prototype, "value")!.set!;
  act(() => {
    setter.call(el, value);
    el.dispatchEvent(new Event("change", { bubbles: true }));
  });
  await settle();
  await settle();
}

export async function click(el: Element | null | undefined): Promise<void> {
  if (!el) throw new Error("nothing to click");
  act(() => {
    (el as HTMLElement).click();
  });
  await settle();
  await settle();
}

/** The button whose accessible text (aria-label, else text) is `name`. */
export function button(host: HTMLElement, name: string): HTMLButtonElement {
  const found = [...host.querySelectorAll("button")].find((b) => (b.getAttribute("aria-label") ?? b.textContent?.trim()) === name);
  if (!found) throw new Error(`no button ${JSON.stringify(name)}; buttons: ${JSON.stringify([...host.querySelectorAll("button")].map((b) => b.getAttribute("aria-label") ?? b.textContent?.trim()))}`);
  return found;
}

/** Submit the form labelled `name`. */
export async function submit(host: HTMLElement, name: string): Promise<void> {
  const form = host.querySelector(`form[aria-label="${name}"]`) as HTMLFormElement | null;
  if (!form) throw new Error(`no form ${name}`);
  act(() => {
    form.requestSubmit();
  });
  await settle();
  await settle();
}
