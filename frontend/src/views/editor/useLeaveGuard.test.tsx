// @vitest-environment happy-dom
/**
 * useLeaveGuard in a memory data router mounted in happy-dom: with unsaved changes a navigation to
 * another page is held until Stay (reset) or Leave (proceed), a change of query string is not, and
 * the tab's beforeunload is cancelled; without changes nothing is held.
 */
import { act, type RefObject } from "react";
import { createRoot, type Root } from "react-dom/client";
import { createMemoryRouter, RouterProvider, type Blocker } from "react-router";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { useLeaveGuard } from "./useLeaveGuard";

const dirtyRef: RefObject<boolean> = { current: false };
let blocker: Blocker;
function Editor() {
  blocker = useLeaveGuard(dirtyRef);
  return <p>editor</p>;
}

let root: Root;
let host: HTMLDivElement;
let router: ReturnType<typeof createMemoryRouter>;
beforeEach(() => {
  (globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;
  dirtyRef.current = false;
  router = createMemoryRouter(
    [
      { path: "/scenarios/s1", element: <Editor /> },
      { path: "/", element: <p>list</p> },
    ],
    { initialEntries: ["/scenarios/s1"] },
  );
  host = document.createElement("div");
  document.body.append(host);
  root = createRoot(host);
  act(() => root.render(<RouterProvider router={router} />));
});
afterEach(() => {
  act(() => root.unmount());
  host.remove();
});

const go = async (to: string) => {
  await act(async () => {
    await router.navigate(to);
  });
};
const unload = () => {
  const e = new Event("beforeunload", { cancelable: true });
  window.dispatchEvent(e);
  return e.defaultPrevented;
};

describe("useLeaveGuard", () => {
  it("without unsaved changes: leaves at once, the tab closes without a warning", async () => {
    expect(unload()).toBe(false);
    await go("/");
    expect(router.state.location.pathname).toBe("/");
    expect(host.textContent).toBe("list");
  });

  it("with unsaved changes: holds the navigation; Stay keeps the page, Leave goes on", async () => {
    dirtyRef.current = true;
    expect(unload()).toBe(true);
    await go("/");
    expect(blocker.state).toBe("blocked");
    expect(router.state.location.pathname).toBe("/scenarios/s1");
    act(() => blocker.reset!());
    expect(blocker.state).toBe("unblocked");
    expect(host.textContent).toBe("editor");

    await go("/");
    expect(blocker.state).toBe("blocked");
    await act(async () => blocker.proceed!());
    expect(router.state.location.pathname).toBe("/");
    expect(host.textContent).toBe("list");
  });

  it("a change of query string on the same page is not held", async () => {
    dirtyRef.current = true;
    await go("/scenarios/s1?tab=flows");
    expect(blocker.state).toBe("unblocked");
    expect(router.state.location.search).toBe("?tab=flows");
  });
});
