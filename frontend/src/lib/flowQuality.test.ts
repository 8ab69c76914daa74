/**
 * The run's loss of a udp, voice or video flow: the fraction lost of all the bits it sent, each interval weighted
 * by what it sent (`sent_mbps`), not the mean of the intervals' fractions. The on/off source below and its figures
 * are worked out by hand (the same source as tests/unit/cli/test_quality.py, so the page and the CLI agree).
 */
import { describe, expect, it } from "vitest";
import type { StrategyResult } from "../api/types";
import { flowSeries } from "./chartData";
import { flowQualitySummary, pooledLoss } from "./flowQuality";

const onOff = (sent?: number[]) =>
  ({
    engine: "fluid",
    flows: [
      {
        // 1 Mbit/s while on: on throughout interval 0 (1 Mbit, none lost), 0.25 s of interval 1 (0.25 Mbit, 40 % lost),
        // off in interval 2 (nothing sent: loss null), 0.5 s of interval 3 without a path (0.5 Mbit, all lost)
        id: "burst", src: "a", dst: "b", t_s: [0, 1, 2, 3], throughput_mbps: [1, 0.15, 0, 0], subflows: [],
        delay_ms: [5, 5, null, null], loss: [0, 0.4, null, 1], ...(sent ? { sent_mbps: sent } : {}),
      },
    ],
    events: [],
    summary: { flows: [], mean_mbps: 0, std_mbps: 0, min_mbps: 0, zero_s: 0, jain_index: 1 },
  }) as unknown as StrategyResult;

describe("the run's loss", () => {
  it("weighs each interval by what it sent", () => {
    const [f] = flowSeries(onOff([1, 0.25, 0, 0.5]));
    expect(f!.sentMbps).toEqual([1, 0.25, 0, 0.5]);
    // 0.1 + 0.5 = 0.6 Mbit lost of 1 + 0.25 + 0.5 = 1.75 sent: 12/35 (the mean of the fractions would be 1.4/3)
    expect(flowQualitySummary(f!)!.loss).toBeCloseTo(12 / 35, 12);
  });

  it("weighs every interval alike for a result stored before sent_mbps", () => {
    const [f] = flowSeries(onOff());
    expect(f!.sentMbps).toBeUndefined();
    // (0 + 0.4 + 1) / 3
    expect(flowQualitySummary(f!)!.loss).toBeCloseTo(1.4 / 3, 12);
  });

  it("leaves out the intervals that sent nothing, and has none without a loss", () => {
    expect(pooledLoss([{ loss: 0.5, sent: 2 }, { loss: null, sent: 0 }, { loss: 0, sent: 2 }])).toBeCloseTo(0.25, 12);
    expect(pooledLoss([{ loss: null, sent: 0 }])).toBeNull();
    // one interval without what it sent: the mean of the fractions, (0.5 + 0) / 2
    expect(pooledLoss([{ loss: 0.5, sent: 1 }, { loss: 0, sent: null }])).toBeCloseTo(0.25, 12);
  });
});
