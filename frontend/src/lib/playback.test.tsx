// @vitest-environment happy-dom
/**
 * The page's one playback: a time chosen on one bar shows on every bar under the provider; a
 * chart's hover overrides it while it lasts; Play advances every view together (the whole run in
 * PLAY_SECONDS) and stops at the end; moving a slider pauses; a time is clamped to the run.
 */
import { act, useState } from "react";
import { createRoot, type Root } from "react-dom/client";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { PlaybackBar } from "../components/PlaybackBar";
import { renderHook, type Rendered } from "../testing/renderHook";
import { PLAY_SECONDS, PlaybackProvider, usePlayback, usePlaybackState, usePlayLoop, type Playback } from "./playback";

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

let frames: FrameRequestCallback[] = [];
/** Runs the pending animation frames at `now` ms. */
const frame = (now: number) =>
  act(() => {
    const pending = frames;
    frames = [];
    for (const f of pending) f(now);
  });
beforeEach(() => {
  frames = [];
  vi.stubGlobal("requestAnimationFrame", (cb: FrameRequestCallback) => frames.push(cb));
  vi.stubGlobal("cancelAnimationFrame", () => undefined);
});
afterEach(() => vi.unstubAllGlobals());

describe("usePlaybackState", () => {
  let r: Rendered<number, Playback>;
  afterEach(() => r.unmount());
  it("no time chosen reads as 0; a hover overrides the chosen time while it lasts; a time is clamped to the run", () => {
    r = renderHook((d: number) => usePlaybackState(d), 900);
    expect([r.result.current.t, r.result.current.time]).toEqual([null, 0]);
    act(() => r.result.current.seek(300));
    act(() => r.result.current.setHoverT(120));
    expect(r.result.current.time).toBe(120);
    act(() => r.result.current.setHoverT(null));
    expect(r.result.current.time).toBe(300);
    act(() => r.result.current.seek(5000));
    expect(r.result.current.time).toBe(900);
  });
  it("Play advances the run in PLAY_SECONDS and stops at its end; a seek pauses", () => {
    r = renderHook((d: number) => usePlaybackState(d), 900);
    act(() => r.result.current.toggle());
    expect(r.result.current.playing).toBe(true);
    frame(1000);
    frame(2000); // one wall-clock second: a tenth of the run
    expect(r.result.current.time).toBeCloseTo(900 / PLAY_SECONDS);
    act(() => r.result.current.seek(450));
    expect(r.result.current.playing).toBe(false);
    frame(3000);
    expect(r.result.current.time).toBe(450);
    act(() => r.result.current.toggle());
    frame(3000);
    frame(3000 + PLAY_SECONDS * 1000);
    expect([r.result.current.time, r.result.current.playing]).toEqual([900, false]);
    act(() => r.result.current.toggle()); // at the end: from the start again
    expect([r.result.current.time, r.result.current.playing]).toEqual([0, true]);
  });
});

describe("PlaybackProvider", () => {
  let root: Root;
  let host: HTMLDivElement;
  afterEach(() => {
    act(() => root.unmount());
    host.remove();
  });
  function Bar({ name }: { name: string }) {
    return <PlaybackBar playback={usePlayback()} ariaLabel={`${name} (s)`} outputLabel={name} />;
  }
  it("every bar under it shows the time chosen on any of them, and Play on one moves all", () => {
    host = document.createElement("div");
    document.body.append(host);
    root = createRoot(host);
    act(() =>
      root.render(
        <PlaybackProvider duration={900}>
          <Bar name="Map time" />
          <Bar name="Routes time" />
        </PlaybackProvider>,
      ),
    );
    const input = host.querySelector<HTMLInputElement>('input[aria-label="Map time (s)"]')!;
    const out = (name: string) => host.querySelector(`output[aria-label="${name}"]`)!.textContent;
    act(() => {
      Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, "value")!.set!.call(input, "300");
      input.dispatchEvent(new Event("input", { bubbles: true }));
    });
    expect([out("Map time"), out("Routes time")]).toEqual(["300 s", "300 s"]);
    act(() => host.querySelectorAll("button")[1]!.click());
    expect(host.querySelectorAll("button")[0]!.textContent).toBe("Pause");
    frame(0);
    frame(1000);
    expect([out("Map time"), out("Routes time")]).toEqual(["390 s", "390 s"]);
  });
});

describe("usePlayLoop (the editor scrubber's loop too)", () => {
  it("advances a plain number time in PLAY_SECONDS and stops at the run's end", () => {
    const r = renderHook((d: number) => {
      const [t, setT] = useState(0);
      const [playing, setPlaying] = useState(true);
      usePlayLoop(playing, d, setT, setPlaying);
      return { t, playing };
    }, 100);
    frame(0);
    frame(PLAY_SECONDS * 500); // half the wall time: half the run
    expect(r.result.current.t).toBeCloseTo(50);
    frame(PLAY_SECONDS * 2000);
    expect(r.result.current).toEqual({ t: 100, playing: false });
    r.unmount();
  });
});
