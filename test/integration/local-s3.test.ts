import { randomBytes } from "node:crypto";
import { ListObjectsV2Command, PutObjectCommand } from "@aws-sdk/client-s3";
import { describe, expect, it } from "vitest";
import { mapLimited } from "../../functions/shared/platform/concurrency.ts";
import { listKeys } from "../../functions/shared/storage/objects.ts";
import { useLocalStack } from "../support/local-stack.ts";

const api = useLocalStack({ workers: false });

const utf8Order = (a: string, b: string) => Buffer.compare(Buffer.from(a, "utf8"), Buffer.from(b, "utf8"));

describe("the local S3 front lists as S3 does", () => {
  it("pages 2,500 keys that mix cases, dashes and underscores in UTF-8 order, each key exactly once", async () => {
    const { clients, resources } = api.stack();
    const prefix = `namespaces/ns_listing${randomBytes(4).toString("hex")}/keyword/_/`;
    // Ids as the service makes them (base64url), plus keys whose locale order differs from byte order.
    const keys = [
      ...Array.from({ length: 2_494 }, () => `${prefix}doc_${randomBytes(16).toString("base64url").slice(0, 22)}/run.json`),
      ...["Zeta", "alpha", "Alpha", "_under", "-dash", "é-accent"].map((name) => `${prefix}${name}`),
    ];
    await mapLimited(keys, 32, (key) => clients.s3.send(new PutObjectCommand({ Bucket: resources.bucketName, Key: key, Body: "{}" })));

    const pages: string[][] = [];
    for await (const page of listKeys(prefix)) pages.push(page);
    expect(pages.map((page) => page.length)).toEqual([1000, 1000, 500]);
    expect(pages.flat()).toEqual([...keys].sort(utf8Order));
  });

  it("honours start-after and caps a page at 1,000 keys whatever max-keys asks", async () => {
    const { clients, resources } = api.stack();
    const prefix = `namespaces/ns_after${randomBytes(4).toString("hex")}/`;
    const keys = Array.from({ length: 1_200 }, (_, index) => `${prefix}k${String(index).padStart(4, "0")}${index % 2 ? "A" : "a"}`);
    await mapLimited(keys, 32, (key) => clients.s3.send(new PutObjectCommand({ Bucket: resources.bucketName, Key: key, Body: "" })));
    const sorted = [...keys].sort(utf8Order);
    const page = await clients.s3.send(new ListObjectsV2Command({ Bucket: resources.bucketName, Prefix: prefix, MaxKeys: 5000 }));
    expect(page.KeyCount).toBe(1000);
    expect(page.IsTruncated).toBe(true);
    const after = await clients.s3.send(new ListObjectsV2Command({ Bucket: resources.bucketName, Prefix: prefix, StartAfter: sorted[1_189] }));
    expect(after.Contents?.map((object) => object.Key)).toEqual(sorted.slice(1_190));
    expect(after.IsTruncated).toBe(false);
  });
});
