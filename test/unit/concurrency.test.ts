import { describe, expect, it } from "vitest";
import { mapLimited, WeightedSemaphore } from "../../functions/shared/platform/concurrency.ts";

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

describe("WeightedSemaphore", () => {
  const tick = () => new Promise((resolve) => setTimeout(resolve, 5));

  it("runs work side by side while it fits and holds back what does not", async () => {
    const budget = new WeightedSemaphore(100);
    const first = await budget.acquire(40);
    const second = await budget.acquire(50);
    let third: (() => void) | null = null;
    void budget.acquire(30).then((release) => (third = release));
    await tick();
    expect(third).toBeNull();
    expect(budget.used).toBe(90);
    first!();
    await tick();
    expect(third).not.toBeNull();
    expect(budget.used).toBe(80);
    second!();
    third!();
    expect(budget.used).toBe(0);
  });

  it("lets work larger than the whole capacity run, but only alone", async () => {
    const budget = new WeightedSemaphore(100);
    const small = await budget.acquire(10);
    let huge: (() => void) | null = null;
    void budget.acquire(500).then((release) => (huge = release));
    await tick();
    expect(huge).toBeNull();
    small!();
    await tick();
    expect(huge).not.toBeNull();
    expect(budget.used).toBe(100);
    let next: (() => void) | null = null;
    void budget.acquire(1).then((release) => (next = release));
    await tick();
    expect(next).toBeNull();
    huge!();
    await tick();
    expect(next).not.toBeNull();
  });

  it("serves requests in arrival order, so small ones cannot starve a large one", async () => {
    const budget = new WeightedSemaphore(100);
    const order: string[] = [];
    const running = await budget.acquire(60);
    const large = budget.acquire(80).then((release) => (order.push("large"), release));
    const small = budget.acquire(10).then((release) => (order.push("small"), release));
    await tick();
    expect(order).toEqual([]);
    running!();
    (await large)!();
    (await small)!();
    expect(order).toEqual(["large", "small"]);
  });

  it("gives up after the timeout with null, and lets those queued behind it through", async () => {
    const budget = new WeightedSemaphore(100);
    const held = await budget.acquire(90);
    const blocked = budget.acquire(50, 20);
    const fits = budget.acquire(10);
    expect(await blocked).toBeNull();
    const release = await fits;
    expect(release).not.toBeNull();
    expect(budget.used).toBe(100);
    release!();
    held!();
    held!();
    expect(budget.used).toBe(0);
  });
});
