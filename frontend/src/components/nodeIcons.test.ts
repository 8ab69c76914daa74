/**
 * Every icon the backend's schema allows has a glyph (the schema's enum read from the generated OpenAPI
 * document), and a node with an icon is drawn with it.
 */
import { describe, expect, it } from "vitest";
import openapi from "../api/openapi.json";
import type { ScenarioDocument } from "../api/types";
import { topologyElements } from "../lib/topology";
import { iconStyles, NODE_ICONS } from "./nodeIcons";

describe("node icons", () => {
  it("cover the schema's icons, one style rule each", () => {
    const prop = (openapi as unknown as { components: { schemas: Record<string, { properties: Record<string, { anyOf?: { enum?: string[] }[] }> }> } })
      .components.schemas.StationNode!.properties.icon!;
    const allowed = prop.anyOf!.flatMap((b) => b.enum ?? []);
    expect(allowed.length).toBeGreaterThan(3);
    expect(Object.keys(NODE_ICONS).sort()).toEqual([...allowed].sort());
    expect(iconStyles().map((r) => r.selector).sort()).toEqual(allowed.map((a) => `node.icon-${a}`).sort());
    for (const r of iconStyles()) expect(String(r.style["background-image"])).toMatch(/^data:image\/svg\+xml;utf8,%3Csvg/);
  });
  it("draws a node with its icon", () => {
    const doc = { name: "i", nodes: [{ id: "sta1", kind: "station", icon: "ship", position: { x_m: 0, y_m: 0 } }, { id: "h1", kind: "host", position: { x_m: 10, y_m: 0 } }], links: [], flows: [] } as unknown as ScenarioDocument;
    const els = topologyElements(doc, 1).elements;
    expect(els.find((e) => e.data.id === "sta1")!.classes.split(" ")).toContain("icon-ship");
    expect(els.find((e) => e.data.id === "h1")!.classes).not.toMatch(/icon-/);
  });
});
