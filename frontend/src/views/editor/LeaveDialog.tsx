import type { Blocker } from "react-router";

/** Asks before leaving a scenario with unsaved changes, while the router's blocker holds a navigation. */
export function LeaveDialog({ blocker }: { blocker: Blocker }) {
  if (blocker.state !== "blocked") return null;
  return (
    <div className="modal-backdrop">
      <section className="card modal" role="alertdialog" aria-labelledby="leave-title" aria-describedby="leave-desc">
        <h2 id="leave-title">Unsaved changes</h2>
        <p id="leave-desc">This scenario has changes that are not saved. Leave and lose them?</p>
        <div className="actions">
          <button type="button" className="btn btn-primary" onClick={() => blocker.reset()}>
            Stay
          </button>
          <button type="button" className="btn btn-danger" onClick={() => blocker.proceed()}>
            Leave without saving
          </button>
        </div>
      </section>
    </div>
  );
}
