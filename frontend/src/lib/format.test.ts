import { describe, expect, it } from "vitest";
import { formatClock } from "./format";

describe("formatClock", () => {
  it("reads as minutes and seconds to a tenth", () => {
    expect(formatClock(100.795)).toBe("1 min 40.8 s");
    expect(formatClock(59.25)).toBe("59.3 s");
    expect(formatClock(0)).toBe("0 s");
    expect(formatClock(120)).toBe("2 min 0 s");
    expect(formatClock(3725)).toBe("1 h 2 min 5 s");
    expect(formatClock(86400)).toBe("24 h 0 min 0 s");
    expect(formatClock(null)).toBe("—");
  });
});
