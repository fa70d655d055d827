/**
 * Named points in the workers where the fault-injection tests simulate a crash (a Lambda dying
 * between two steps). Without an injector, and always in production, a fault point does nothing.
 */
export type FaultInjector = (point: string) => void | Promise<void>;

let injector: FaultInjector | null = null;

export function setFaultInjector(next: FaultInjector | null): void {
  injector = next;
}

export async function faultPoint(point: string): Promise<void> {
  if (injector) await injector(point);
}

/**
 * An injector that crashes at `point` the first `times` times it is reached and then lets work
 * through: a fault that outlasts the retries (the message reaches the dead-letter queue) and is
 * gone by the time an operator redrives it.
 */
export function crashTimes(point: string, times: number): { injector: FaultInjector; crashes: () => number } {
  let crashes = 0;
  return {
    injector: (reached) => {
      if (reached !== point || crashes >= times) return;
      crashes += 1;
      throw new Error(`simulated crash at ${point} (${crashes} of ${times})`);
    },
    crashes: () => crashes,
  };
}
