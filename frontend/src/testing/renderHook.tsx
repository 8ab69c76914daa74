/**
 * Test helper: mounts a hook in a probe component with react-dom (happy-dom) and exposes what it
 * returned on the latest render, for hook tests that follow state across renders. Only test files
 * import it.
 */
import { act, type ReactNode } from "react";
import { createRoot } from "react-dom/client";

export interface Rendered<P, R> {
  /** What the hook returned on its latest render. */
  readonly result: { current: R };
  /** Renders again with new arguments. */
  rerender: (props: P) => void;
  /** Unmounts (once; later calls do nothing). */
  unmount: () => void;
}

export function renderHook<P, R>(hook: (props: P) => R, initialProps: NoInfer<P>, wrap: (probe: ReactNode) => ReactNode = (p) => p): Rendered<P, R> {
  (globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;
  const result = { current: undefined as R };
  function Probe({ props }: { props: P }) {
    result.current = hook(props);
    return null;
  }
  const host = document.createElement("div");
  document.body.append(host);
  const root = createRoot(host);
  act(() => root.render(wrap(<Probe props={initialProps} />)));
  let mounted = true;
  return {
    result,
    rerender: (props) => act(() => root.render(wrap(<Probe props={props} />))),
    unmount: () => {
      if (!mounted) return;
      mounted = false;
      act(() => root.unmount());
      host.remove();
    },
  };
}

/** Lets pending promises (mocked API answers) settle and React apply what they set. */
export async function settle(): Promise<void> {
  await act(async () => {
    await new Promise((r) => setTimeout(r, 0));
  });
}
