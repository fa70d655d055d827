/**
 * How much of the current invocation is left. Long work (a document's embedding, a cascade) runs in
 * steps and hands the rest over to a follow-up message before the invocation would time out.
 */
export interface StepBudget {
  remainingMs(): number;
}

/** `continue`: the step stopped early and the rest is queued as a follow-up message. */
export type StepResult = "done" | "continue";
