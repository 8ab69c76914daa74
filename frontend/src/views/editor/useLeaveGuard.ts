import { useEffect, type RefObject } from "react";
import { useBlocker, type Blocker } from "react-router";

/**
 * Leaving a scenario with unsaved changes.
 *
 * Owns:
 * 1. the router blocker: in-app navigation to another page waits for Stay / Leave while `dirtyRef` is true;
 * 2. the `beforeunload` listener that makes the browser warn before closing or reloading the tab.
 *
 * It reads `dirtyRef` at the moment of leaving, so a save that navigates right away is not held back.
 */
export function useLeaveGuard(dirtyRef: RefObject<boolean>): Blocker {
  const blocker = useBlocker(({ currentLocation, nextLocation }) => dirtyRef.current && currentLocation.pathname !== nextLocation.pathname);
  useEffect(() => {
    const onBeforeUnload = (e: BeforeUnloadEvent) => {
      if (!dirtyRef.current) return;
      e.preventDefault();
      e.returnValue = "";
    };
    window.addEventListener("beforeunload", onBeforeUnload);
    return () => window.removeEventListener("beforeunload", onBeforeUnload);
  }, [dirtyRef]);
  return blocker;
}
