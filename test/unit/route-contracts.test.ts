import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { created, httpHandler, ok } from "../../functions/shared/http/handler.ts";
import type { RouteContract } from "../../functions/shared/http/contract.ts";
import { HTTP_FUNCTIONS, ROUTES } from "../../lib/routes.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** Every contract module under functions/http/, with what it exports. */
async function contractModules(): Promise<{ file: string; contracts: RouteContract[] }[]> {
  const files = fs
    .readdirSync(path.join(ROOT, "functions/http"), { recursive: true, encoding: "utf8" })
    .filter((file) => file.endsWith(".route.ts"))
    .map((file) => `functions/http/${file}`);
  return Promise.all(files.map(async (file) => ({ file, contracts: Object.values((await import(path.join(ROOT, file))) as Record<string, RouteContract>) })));
}

describe("the route table", () => {
  it("gives every function at least one contract, and its contracts one shared request", () => {
    for (const fn of HTTP_FUNCTIONS) {
      expect(fn.routes.length, fn.id).toBeGreaterThan(0);
      for (const contract of fn.routes) expect(contract.request, `${fn.id}: ${contract.operationId}`).toBe(fn.routes[0]!.request);
    }
  });

  it("names every route once: no operationId, and no method and path, twice", () => {
    const ids = ROUTES.map((route) => route.contract.operationId);
    expect(ids.filter((id, index) => ids.indexOf(id) !== index)).toEqual([]);
    const routes = ROUTES.map((route) => `${route.method} ${route.path}`);
    expect(routes.filter((route, index) => routes.indexOf(route) !== index)).toEqual([]);
  });

  it("lists every contract beside its handler (<entry>.route.ts), and serves every contract there is", async () => {
    const listed = new Set(ROUTES.map((route) => route.contract));
    for (const { file, contracts } of await contractModules()) {
      const fn = HTTP_FUNCTIONS.find((candidate) => candidate.entry === file.replace(/\.route\.ts$/, ".ts"));
      expect(fn, `${file} sits beside no handler of the route table`).toBeDefined();
      expect(fn!.routes, file).toEqual(contracts);
      for (const contract of contracts) expect(listed.has(contract), `${contract.operationId} is in no row`).toBe(true);
    }
  });
});

describe("a handler's reply", () => {
  const oneRoute = {
    operationId: "probe",
    method: "GET",
    path: "/probe",
    summary: "probe",
    tag: "Namespaces",
    request: {},
    response: { status: 200, data: "ReingestResult" },
  } as const satisfies RouteContract;
  const listRoute = { ...oneRoute, response: { status: 200, data: "ReingestResult", list: true, paginated: true } } as const satisfies RouteContract;
  const pagination = { nextCursor: null, prevCursor: null, hasMore: false };

  // Checked by the compiler (npx tsc -p .): each @ts-expect-error fails the type check once the reply it marks is accepted.
  it("is typed by the contract's response component, status and pagination", () => {
    const handler = httpHandler(oneRoute, async () => ok({ id: "job_1" }));
    expect(handler.contract).toBe(oneRoute);
    // @ts-expect-error a field the component does not have
    httpHandler(oneRoute, async () => ok({ id: "job_1", extra: true }));
    // @ts-expect-error a missing field
    httpHandler(oneRoute, async () => ok({}));
    // @ts-expect-error 201 where the contract says 200
    httpHandler(oneRoute, async () => created({ id: "job_1" }));
    expect(httpHandler(listRoute, async () => ok([{ id: "job_1" }], { pagination })).contract).toBe(listRoute);
    // @ts-expect-error a paginated list without its pagination
    httpHandler(listRoute, async () => ok([{ id: "job_1" }]));
    // @ts-expect-error one item where the contract says a list
    httpHandler(listRoute, async () => ok({ id: "job_1" }, { pagination }));
  });
});
