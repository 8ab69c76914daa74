import { useEffect, useState } from "react";

/**
 * False until the browser has painted a frame since `ready` became true, then true (false again whenever `ready` is
 * false). For work that must not sit between a result and its first paint: what was committed together with `ready`
 * (the throughput charts) is painted first, and the costly rest (a Leaflet basemap of every country, a timeline
 * request that costs the server a second) starts after it.
 *
 * The frame is awaited with `requestAnimationFrame` (its callbacks run just before the frame is painted) and a
 * `setTimeout(0)` after it (a task after that paint).
 */
export function useAfterPaint(ready = true): boolean {
  const [painted, setPainted] = useState(false);
  useEffect(() => {
    if (!ready) {
      setPainted(false);
      return;
    }
    let timer = 0;
    const frame = requestAnimationFrame(() => {
      timer = window.setTimeout(() => setPainted(true), 0);
    });
    return () => {
      cancelAnimationFrame(frame);
      window.clearTimeout(timer);
    };
  }, [ready]);
  return ready && painted;
}
