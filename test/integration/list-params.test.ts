import { beforeAll, describe, expect, it } from "vitest";
import { useLocalStack } from "../support/local-stack.ts";
import { newNamespace, type TestNamespace } from "../support/ingestion.ts";

// The list endpoints are under test, not the worker.
const api = useLocalStack({ workers: false });
let ns: TestNamespace;

const LONG = "a".repeat(700);

/** Bad values of every list parameter, each refused on its own. */
const BAD: Record<string, string[]> = {
  statuses: ["DONE", "QUEUED,nope", LONG, `${"QUEUED,".repeat(100)}x`],
  orderBy: [LONG, "updatedAt", "", "%00"],
  order: ["up", "", LONG],
  cursor: ["x", "", "a.b.c", `${LONG}.${"b".repeat(22)}`, "x".repeat(5000), "%C3%A9.%C3%A9"],
  cursorDirection: ["sideways", LONG],
  perPage: ["0", "101", "-1", "1.5", "1e2", "abc", "", "9".repeat(700)],
};

/** Parameter names that collide with what every JavaScript object inherits. */
const INHERITED_NAMES = ["__proto__", "constructor", "toString", "hasOwnProperty", "valueOf"];

function queryOf(params: [string, string][]): string {
  return params.map(([name, value]) => `${encodeURIComponent(name)}=${value.startsWith("%") ? value : encodeURIComponent(value)}`).join("&");
}

async function expectRefused(path: string, params: [string, string][], headers?: Record<string, string>) {
  const response = await ns.call("GET", `${path}?${queryOf(params)}`, { headers });
  const what = `${path} ${queryOf(params).slice(0, 120)} -> ${response.status} ${JSON.stringify(response.body).slice(0, 200)}`;
  expect([400, 422], what).toContain(response.status);
  const message: string = response.body.error.message;
  const named = params.map(([name]) => name).filter((name) => message.includes(name));
  expect(named.length, `${what}: the message names none of the parameters`).toBeGreaterThan(0);
}

beforeAll(async () => {
  ns = await newNamespace(api);
});

describe("list parameters", () => {
  for (const path of ["/ingest-jobs", "/documents"]) {
    it(`${path}: every bad value of every parameter is a 400 or 422 naming the parameter`, async () => {
      for (const [name, values] of Object.entries(BAD)) {
        for (const value of values) {
          // Skip values that are valid by design (an empty optional parameter is absent).
          if (name === "cursor" && value === "") continue;
          await expectRefused(path, [[name, value]]);
        }
      }
    });

    it(`${path}: every pair of bad parameters, in both orders and with a tenant, names one of them`, async () => {
      const names = Object.keys(BAD);
      for (const first of names) {
        for (const second of names) {
          if (first === second) continue;
          const params: [string, string][] = [
            [first, BAD[first]![0]!],
            [second, BAD[second]![0]!],
          ];
          await expectRefused(path, params);
          await expectRefused(path, params, { "x-tenant-id": "acme" });
        }
      }
      await expectRefused(path, Object.entries(BAD).map(([name, values]) => [name, values[0]!]));
    });

    it(`${path}: parameters and headers named like inherited object members are no 500`, async () => {
      for (const name of INHERITED_NAMES) {
        await expectRefused(path, [[name, "x"], ["cursor", "x"]]);
        await expectRefused(path, [["perPage", "0"], [name, "x"], [name, "y"]]);
        const header = await ns.call("GET", path, { headers: { [name]: "x" } });
        expect(header.status, `header ${name}: ${JSON.stringify(header.body)}`).toBe(200);
      }
    });
  }

  it("/documents: a bad ingestJobId with other bad parameters names one of them", async () => {
    for (const value of ["nope", `job_${LONG}`, LONG]) {
      await expectRefused("/documents", [["ingestJobId", value]]);
      await expectRefused("/documents", [["ingestJobId", value], ["cursor", "x"]]);
      await expectRefused("/documents", [["cursor", "x"], ["ingestJobId", value], ["orderBy", LONG]]);
    }
  });
});
