/**
 * Named points in the workers where the fault-injection tests simulate a crash (a Lambda dying
 * between two steps). Without an injector, and always in production, a fault point does nothing.
 */
type FaultInjector = (point: string) => void | Promise<void>;

let injector: FaultInjector | null = null;

export function setFaultInjector(next: FaultInjector | null): void {
  injector = next;
}

export async function faultPoint(point: string): Promise<void> {
  if (injector) await injector(point);
}
