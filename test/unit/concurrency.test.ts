import { describe, expect, it } from "vitest";
import { mapLimited } from "../../functions/shared/platform/concurrency.ts";

describe("mapLimited", () => {
  it("keeps input order and never runs more than the limit at once", async () => {
    let running = 0;
    let peak = 0;
    const results = await mapLimited(Array.from({ length: 50 }, (_, index) => index), 4, async (value) => {
      running += 1;
      peak = Math.max(peak, running);
      await new Promise((resolve) => setTimeout(resolve, (value * 7) % 5));
      running -= 1;
      return value * 2;
    });
    expect(results).toEqual(Array.from({ length: 50 }, (_, index) => index * 2));
    expect(peak).toBe(4);
  });

  it("rejects with the first failure", async () => {
    await expect(mapLimited([1, 2, 3], 2, async (value) => {
      if (value === 2) throw new Error("two");
      return value;
    })).rejects.toThrow("two");
  });

  it("handles an empty list", async () => {
    expect(await mapLimited([], 3, async () => 1)).toEqual([]);
  });
});
