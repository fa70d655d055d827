import fs from "node:fs";
import { describe, expect, it } from "vitest";
import { AUTHORIZER, HTTP_FUNCTIONS } from "../../lib/routes.ts";
import { SCHEDULED_FUNCTIONS, WORKERS } from "../../lib/workers.ts";

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
});
