// @vitest-environment happy-dom
/**
 * A value a field refuses (out of the backend model's bounds, read from the OpenAPI document) is shown with
 * its message, not stored, and reported to the editor, which refuses to save while it is there.
 * Bounds expected from the backend models (lib/subflow/scenario/document.py): Link.bandwidth_mbps > 0,
 * Link.loss in [0, 1) (shown in %: [0, 100)).
 */
import { act } from "react";
import { createRoot } from "react-dom/client";
import { describe, expect, it } from "vitest";
import { rangeProblem } from "../lib/fieldMessages";
import { schemaBounds } from "../lib/schemaBounds";
import { NumberField } from "./fields";
import { UnstoredFieldsProvider, unstoredProblems, useUnstoredFields, type Unstored } from "./unstoredFields";

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

function type(input: HTMLInputElement, text: string) {
  const setter = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, "value")!.set!;
  act(() => {
    setter.call(input, text);
    input.dispatchEvent(new Event("input", { bubbles: true }));
  });
}

describe("schema bounds", () => {
  it("come from the backend's models", () => {
    expect(schemaBounds("Link", "bandwidth_mbps")).toEqual({ min: 0, minExclusive: true });
    expect(schemaBounds("Link", "loss")).toEqual({ min: 0, max: 1, maxExclusive: true });
    expect(schemaBounds("AccessPointNode", "association_delay_s")).toEqual({ min: 0 });
    expect(() => schemaBounds("Link", "nope")).toThrow(/Link.nope/);
    expect(() => schemaBounds("Link", "id")).toThrow(/Link.id/); // a string: no bounds
    expect(rangeProblem(0, { min: 0, minExclusive: true }, "Mbit/s")).toBe("must be > 0 Mbit/s");
    expect(rangeProblem(0.001, { min: 0, minExclusive: true }, "Mbit/s")).toBeNull();
  });
});

describe("refused values", () => {
  it("are shown, not stored, and reported until fixed", () => {
    const stored: (number | null)[] = [];
    let read: (() => Unstored[]) | null = null;
    function Probe() {
      read = useUnstoredFields();
      return null;
    }
    const host = document.createElement("div");
    document.body.appendChild(host);
    const root = createRoot(host);
    act(() =>
      root.render(
        <UnstoredFieldsProvider>
          <Probe />
          <NumberField label="Bandwidth" unit="Mbit/s" schema={["Link", "bandwidth_mbps"]} value={10} onChange={(v) => stored.push(v)} />
          <NumberField label="Loss" unit="%" factor={100} schema={["Link", "loss"]} value={0.01} onChange={(v) => stored.push(v)} />
        </UnstoredFieldsProvider>,
      ),
    );
    const [bw, loss] = [...host.querySelectorAll("input")] as HTMLInputElement[];
    type(bw!, "-5");
    type(loss!, "150");
    expect(stored).toEqual([]);
    expect(host.textContent).toContain("must be > 0 Mbit/s");
    expect(host.textContent).toContain("must be < 100 %");
    expect(unstoredProblems(read!())).toEqual([
      "2 fields hold values that were not stored (fix or undo them first):",
      "Bandwidth (Mbit/s): -5 must be > 0 Mbit/s",
      "Loss (%): 150 must be < 100 %",
    ]);
    type(bw!, "5");
    type(loss!, "2.5");
    expect(stored).toEqual([5, 0.025]);
    expect(read!()).toEqual([]);
    act(() => root.unmount());
  });
});
