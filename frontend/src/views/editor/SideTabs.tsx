/**
 * The editor's side column beside the canvas: "Inspect" (the selection's panel, the time scrubber, the coverage
 * map) or "Plan" (routes and allocation), so that planning results and the topology they colour share a screen.
 * Both stay mounted (a panel keeps its answer while the other tab is shown); a new scenario has no Plan tab.
 *
 * Owns:
 * 1. which tab is shown.
 */
import { useId, useState, type KeyboardEvent, type ReactNode } from "react";

export function SideTabs({ inspect, plan }: { inspect: ReactNode; plan: ReactNode | null }) {
  const [tab, setTab] = useState<"inspect" | "plan">("inspect");
  const id = useId();
  const tabs = plan ? (["inspect", "plan"] as const) : (["inspect"] as const);
  const onKey = (e: KeyboardEvent) => {
    if (e.key === "ArrowRight" || e.key === "ArrowLeft") setTab((t) => (t === "inspect" && plan ? "plan" : "inspect"));
  };
  return (
    <aside className="side">
      {plan ? (
        <div className="side-tabs" role="tablist" aria-label="Side panel" onKeyDown={onKey}>
          {tabs.map((t) => (
            <button
              key={t}
              type="button"
              role="tab"
              id={`${id}-${t}`}
              aria-selected={tab === t}
              aria-controls={`${id}-${t}-panel`}
              tabIndex={tab === t ? 0 : -1}
              className={`btn btn-small${tab === t ? " btn-primary" : ""}`}
              onClick={() => setTab(t)}
            >
              {t === "inspect" ? "Inspect" : "Plan: routes and allocation"}
            </button>
          ))}
        </div>
      ) : null}
      <div role={plan ? "tabpanel" : undefined} id={`${id}-inspect-panel`} aria-labelledby={plan ? `${id}-inspect` : undefined} hidden={tab !== "inspect"} className="side-panel">
        {inspect}
      </div>
      {plan ? (
        <div role="tabpanel" id={`${id}-plan-panel`} aria-labelledby={`${id}-plan`} hidden={tab !== "plan"} className="side-panel">
          {plan}
        </div>
      ) : null}
    </aside>
  );
}
