/**
 * The scenario's queueing by DiffServ class (`Scenario.queueing`, docs/traffic.md): the links' discipline (fifo,
 * strict priority, deficit round robin), its classes (RFC 8325's four access categories by default, or edited
 * here) and the 802.11 channel access (DCF, or EDCA by access category).
 */
import type { DscpClass, QueueingSettings, ScenarioDocument, TrafficClass } from "../api/types";
import { DSCP_CLASSES } from "../lib/flowKinds";
import { CellError, CellNumber, CheckboxField, SelectField } from "./fields";

type Change = (next: ScenarioDocument, coalesce?: string) => void;

/** RFC 8325 §4.3's access categories as classes, the server's default when `classes` is null: a starting point
 * for editing them. */
export const RFC8325_CLASSES: TrafficClass[] = [
  { name: "voice", dscp: ["EF", "CS6"], priority: 0, weight: 4 },
  { name: "video", dscp: ["CS5", "AF41", "AF42", "AF43", "CS4", "AF31", "AF32", "AF33", "CS3"], priority: 1, weight: 3 },
  { name: "best_effort", dscp: ["BE", "AF11", "AF12", "AF13", "AF21", "AF22", "AF23", "CS2", "CS7"], priority: 2, weight: 2 },
  { name: "background", dscp: ["CS1"], priority: 3, weight: 1 },
];

/** DSCP names typed as "EF, CS6": the known ones, and the unknown ones to report. */
export function parseDscpList(text: string): { dscp: DscpClass[]; unknown: string[] } {
  const words = text.split(/[\s,]+/).map((w) => w.trim().toUpperCase()).filter(Boolean);
  const known = new Set<string>(DSCP_CLASSES);
  return { dscp: words.filter((w) => known.has(w)) as DscpClass[], unknown: words.filter((w) => !known.has(w)) };
}

export function QueueingFields({ doc, onChange, e }: { doc: ScenarioDocument; onChange: Change; e: Record<string, string> }) {
  const q: QueueingSettings = doc.queueing ?? {};
  const put = (patch: Partial<QueueingSettings>, key: string) => onChange({ ...doc, queueing: { ...q, ...patch } }, `queueing.${key}`);
  const discipline = q.discipline ?? "fifo";
  return (
    <fieldset className="field-grid queueing-settings">
      <legend>Queueing (DiffServ)</legend>
      {e.queueing ? <p className="field-wide field-error">{e.queueing}</p> : null}
      <SelectField
        label="Link queues"
        value={discipline}
        options={[
          { value: "fifo", label: "FIFO (one queue)" },
          { value: "strict_priority", label: "Strict priority by class" },
          { value: "drr", label: "Deficit round robin by weight" },
        ]}
        error={e["queueing.discipline"]}
        onChange={(v) => put({ discipline: v }, "discipline")}
      />
      <SelectField
        label="802.11 access"
        value={q.wifi ?? "dcf"}
        options={[
          { value: "dcf", label: "DCF (one category)" },
          { value: "edca", label: "EDCA by DSCP (RFC 8325)" },
        ]}
        error={e["queueing.wifi"]}
        onChange={(v) => put({ wifi: v }, "wifi")}
      />
      {discipline !== "fifo" ? (
        <>
          <div className="field-wide">
            <CheckboxField
              label="RFC 8325 default classes (voice, video, best effort, background)"
              value={!q.classes}
              error={e["queueing.classes"]}
              onChange={(v) => put({ classes: v ? null : RFC8325_CLASSES }, "defaults")}
            />
          </div>
          {q.classes ? <ClassesTable classes={q.classes} discipline={discipline} e={e} onClasses={(classes, key) => put({ classes }, key)} /> : null}
        </>
      ) : null}
    </fieldset>
  );
}

function ClassesTable({ classes, discipline, e, onClasses }: { classes: TrafficClass[]; discipline: string; e: Record<string, string>; onClasses: (c: TrafficClass[], key: string) => void }) {
  const set = (i: number, patch: Partial<TrafficClass>, key: string) => onClasses(classes.map((c, k) => (k === i ? { ...c, ...patch } : c)), `class.${i}.${key}`);
  return (
    <div className="field-wide table-scroll">
      <table className="compact classes-table" aria-label="Traffic classes">
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">DSCP</th>
            <th scope="col">{discipline === "drr" ? "Weight" : "Priority (0 first)"}</th>
            <th scope="col">Queue (packets)</th>
            <th scope="col">
              <span className="visually-hidden">Remove</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {classes.map((c, i) => {
            const err = (f: string) => e[`queueing.classes.${i}.${f}`];
            return (
              <tr key={i}>
                <td>
                  <input aria-label={`Class ${i + 1} name`} defaultValue={c.name} key={c.name} size={8} aria-invalid={err("name") ? true : undefined} onBlur={(ev) => ev.currentTarget.value !== c.name && set(i, { name: ev.currentTarget.value.trim() }, "name")} />
                  <CellError text={err("name") ?? e[`queueing.classes.${i}`]} />
                </td>
                <td>
                  <DscpListInput classIndex={i} value={c.dscp} error={err("dscp")} onChange={(dscp) => set(i, { dscp }, "dscp")} />
                </td>
                <td>
                  {discipline === "drr" ? (
                    <CellNumber label={`Class ${c.name} weight`} value={c.weight ?? 1} error={err("weight")} onChange={(v) => set(i, { weight: v ?? 1 }, "weight")} />
                  ) : (
                    <CellNumber label={`Class ${c.name} priority`} value={c.priority ?? 0} integer error={err("priority")} onChange={(v) => set(i, { priority: v ?? 0 }, "priority")} />
                  )}
                </td>
                <td>
                  <CellNumber label={`Class ${c.name} queue (packets)`} value={c.queue_packets} integer placeholder="link's" error={err("queue_packets")} onChange={(v) => set(i, { queue_packets: v }, "queue")} />
                </td>
                <td>
                  <button type="button" className="btn btn-small" aria-label={`Remove class ${c.name}`} disabled={classes.length < 2} onClick={() => onClasses(classes.filter((_, k) => k !== i), "remove")}>
                    ×
                  </button>
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
      <button
        type="button"
        className="btn btn-small"
        disabled={classes.length >= 8}
        onClick={() => onClasses([...classes, { name: `class${classes.length + 1}`, dscp: ["CS2"], priority: Math.min(7, classes.length), weight: 1 }], "add")}
      >
        Add class
      </button>
    </div>
  );
}

/** A class's DSCP names as text ("EF, CS6"), stored on blur when every name is known. */
function DscpListInput({ classIndex, value, error, onChange }: { classIndex: number; value: DscpClass[]; error?: string; onChange: (d: DscpClass[]) => void }) {
  const text = value.join(", ");
  return (
    <>
      <input
        aria-label={`Class ${classIndex + 1} DSCP classes`}
        defaultValue={text}
        key={text}
        size={12}
        aria-invalid={error ? true : undefined}
        onBlur={(ev) => {
          const parsed = parseDscpList(ev.currentTarget.value);
          if (!parsed.unknown.length && parsed.dscp.length && parsed.dscp.join(", ") !== text) onChange(parsed.dscp);
        }}
      />
      <CellError text={error} />
    </>
  );
}
