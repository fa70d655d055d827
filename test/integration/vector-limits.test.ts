import { describe, expect, it } from "vitest";
import { useLocalStack } from "../support/local-stack.ts";
import { documentsOfJob, ingestText, newNamespace, waitForJob } from "../support/ingestion.ts";

// A ceiling of 10 indexes (each namespace has a registry index plus one per tenant partition).
const api = useLocalStack({ env: { VECTOR_INDEX_CEILING: "10" } });

describe("what S3 Vectors would refuse is refused at the door", () => {
  it("refuses a blank query with 422 naming the field", async () => {
    const ns = await newNamespace(api);
    const response = await ns.call("POST", "/search", { body: { query: "   \n\t " } });
    expect(response.status).toBe(422);
    expect(response.body.error.message).toMatch(/^query: must contain more than whitespace/);
  });

  it("leaves whitespace-only chunks out of a document (nothing to embed, nothing to find)", async () => {
    const ns = await newNamespace(api);
    const text = `First sentence here.${" ".repeat(20_000)}Second sentence after a long run of spaces.${"\n".repeat(9_000)}Third.`;
    const job = await waitForJob(ns, (await ingestText(ns, text, { config: { chunkSize: 256 } })).id);
    expect(job.status).toBe("COMPLETED");
    const [document] = await documentsOfJob(ns, job.id);
    const url = (await ns.call("POST", `/documents/${document.id}/chunks-download-url`)).body.data.url;
    const chunksFile: any = await (await fetch(url)).json();
    expect(chunksFile.chunks.length).toBe(document.totalChunks);
    for (const chunk of chunksFile.chunks) expect(chunk.text.trim()).not.toBe("");
    expect(chunksFile.chunks.map((chunk: { metadata: { sequence_number: number } }) => chunk.metadata.sequence_number)).toEqual(
      chunksFile.chunks.map((_: unknown, index: number) => index),
    );
  });

  it("indexes and finds a document of symbols only (the LOCAL embedder gives it a direction)", async () => {
    const ns = await newNamespace(api);
    const job = await waitForJob(ns, (await ingestText(ns, "!!! ??? 🙂🙂 → ←")).id);
    expect(job.status).toBe("COMPLETED");
    const found = await ns.call("POST", "/search", { body: { query: "🙂🙂", mode: "semantic" } });
    expect(found.status).toBe(200);
    expect(found.body.data[0].text).toContain("🙂");
  });

  it("refuses metadata that only breaks the limits once the job's and the item's are merged, naming the item's field", async () => {
    const ns = await newNamespace(api);
    const half = (prefix: string) => Object.fromEntries(Array.from({ length: 24 }, (_, index) => [`${prefix}${index}`, index]));
    const response = await ns.call("POST", "/ingest-jobs", {
      body: {
        config: { metadata: half("job") },
        payload: { type: "BATCH", items: [{ type: "TEXT", text: "fine" }, { type: "TEXT", text: "too many keys", config: { metadata: half("item") } }] },
      },
    });
    expect(response.status).toBe(422);
    expect(response.body.error.message).toMatch(/^payload\.items\.1\.config\.metadata: .*at most 50 keys/);
  });

  it("accepts the same metadata when it fits", async () => {
    const ns = await newNamespace(api);
    const keys = Object.fromEntries(Array.from({ length: 30 }, (_, index) => [`key${index}`, index]));
    const response = await ns.call("POST", "/ingest-jobs", { body: { config: { metadata: keys }, payload: { type: "TEXT", text: "fits well" } } });
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    const job = await waitForJob(ns, response.body.data.id);
    expect(job.status).toBe("COMPLETED");
  });
});

describe("the vector index ceiling", () => {
  it("refuses a new (namespace, tenant) partition past it with 409 and keeps serving existing ones", async () => {
    const ns = await newNamespace(api);
    const untenanted = await ingestText(ns, "the namespace's own partition");
    await waitForJob(ns, untenanted.id);
    // Earlier tests of this file hold indexes too: add tenants until the ceiling refuses one.
    let tenants = 0;
    for (;;) {
      const headers = { "x-tenant-id": `t${tenants}` };
      const created = await ns.call("POST", "/ingest-jobs", { body: { payload: { type: "TEXT", text: `tenant ${tenants}` } }, headers });
      if (created.status === 409) {
        expect(created.body.error.message).toMatch(/admits new namespace\/tenant partitions up to 10/);
        break;
      }
      expect(created.status).toBe(201);
      await waitForJob(ns, created.body.data.id, undefined, headers);
      tenants += 1;
      expect(tenants).toBeLessThan(10);
    }
    // Existing partitions still take new documents.
    const again = await ingestText(ns, "more for the namespace's own partition");
    expect((await waitForJob(ns, again.id)).status).toBe("COMPLETED");
    expect((await documentsOfJob(ns, again.id))[0].status).toBe("COMPLETED");
  });
});
