import fs from "node:fs";
import { describe, expect, it } from "vitest";
import { AUTHORIZER, HTTP_FUNCTIONS } from "../../lib/routes.ts";
import { SCHEDULED_FUNCTIONS, WORKERS } from "../../lib/workers.ts";
import { installResponseStreaming, isStreamingHandler } from "../../local/response-streaming.ts";

// As Lambda's runtime (and the local gateway) do: a streaming handler marks itself when its module loads.
installResponseStreaming();

/** Every module the stack bundles, by the id of the function that runs it. */
const ENTRIES: [id: string, entry: string][] = [
  ...HTTP_FUNCTIONS.map((definition): [string, string] => [definition.id, definition.entry]),
  [AUTHORIZER.id, AUTHORIZER.entry],
  ...WORKERS.map((definition): [string, string] => [definition.id, definition.entry]),
  ...SCHEDULED_FUNCTIONS.map((definition): [string, string] => [definition.id, definition.entry]),
];

describe("function entry modules", () => {
  it("are named once each", () => {
    const ids = ENTRIES.map(([id]) => id);
    expect(new Set(ids).size).toBe(ids.length);
  });

  // Lambda calls `index.handler`; a module exporting `main` or a default would deploy and then fail
  // on every invocation.
  it.each(ENTRIES)("%s: %s exists and exports a function named handler", async (_id, entry) => {
    const url = new URL(`../../${entry}`, import.meta.url);
    expect(fs.existsSync(url), `${entry} is missing`).toBe(true);
    const module = (await import(url.href)) as Record<string, unknown>;
    expect(typeof module.handler).toBe("function");
  });

  // API Gateway hands a streamed integration's response on as Lambda streams it, and parses a
  // buffered one as a proxy result: a handler and a route that disagree fail on every request.
  it.each(HTTP_FUNCTIONS.map((definition) => [definition.id, definition] as const))("%s streams exactly when its route table entry says so", async (_id, definition) => {
    const module = (await import(new URL(`../../${definition.entry}`, import.meta.url).href)) as { handler: unknown };
    expect(isStreamingHandler(module.handler)).toBe(definition.streams === true);
  });

  // The handler validates with the contract the document is built from, not a look-alike.
  it.each(HTTP_FUNCTIONS.map((definition) => [definition.id, definition] as const))("%s is built from one of the contracts its row lists", async (_id, definition) => {
    const module = (await import(new URL(`../../${definition.entry}`, import.meta.url).href)) as { handler: { contract?: unknown } };
    expect(definition.routes).toContain(module.handler.contract);
  });
});
