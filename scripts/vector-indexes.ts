import { parseArgs } from "node:util";
import { ENV } from "../functions/shared/platform/env-names.ts";
import { vectorStore } from "../functions/shared/vector-store/index.ts";
import { S3VectorsStore } from "../functions/shared/vector-store/s3-vectors.ts";
import { type IndexUsage, indexCeiling, indexUsage } from "../functions/shared/vector-store/quota.ts";
import { S3_VECTORS_LIMITS, VECTOR_BUCKET_SLOTS } from "../functions/shared/vector-store/limits.ts";
import { runWhenMain } from "./cli.ts";

const USAGE = `Usage: npm run vector-indexes -- [count|upgrade|empty] --vector-bucket NAME|ARN [--slots N] [--region REGION] [--yes]

The stack's vector bucket and the slot buckets named after it (<name>-1 … <name>-${VECTOR_BUCKET_SLOTS - 1}; --slots as
deployed, ${VECTOR_BUCKET_SLOTS} by default) are all covered.

count (default): counts the vector indexes of a deployed stack's S3 Vectors bucket (stack output VectorBucketArn) and
compares them with the ceiling past which new (namespace, tenant) partitions are refused
(VECTOR_INDEX_CEILING) and with S3 Vectors' quota of indexes per bucket. Uses your AWS credentials.
The local stack's vectors live inside the npm run dev process, which admits partitions the same way.

upgrade: rebuilds every partition index created before full-text search (not ENHANCED, or without the
chunk text as a full-text field) under the same name, so keyword and hybrid search work in it, and
moves indexes from before slots into their slot's bucket; the others are left alone. Resumable: run it again after an interruption. Pause ingestion while it runs.

empty --yes: deletes every index of the bucket, and with them every vector, so that cdk destroy can
delete the bucket (CloudFormation cannot delete a vector bucket that still holds indexes). For a
stage you are destroying only; the table still names the documents whose vectors are gone.`;

export function describeUsage(usage: IndexUsage): string[] {
  const percent = (value: number) => `${((value / usage.quota) * 100).toFixed(1)}%`;
  return [
    `indexes:  ${usage.indexes} (${percent(usage.indexes)} of the bucket quota)`,
    `ceiling:  ${usage.ceiling} (new namespace/tenant partitions are refused with 409 past it)`,
    `quota:    ${usage.quota} indexes per vector bucket (S3 Vectors)`,
    `room:     about ${Math.max(0, usage.ceiling - usage.indexes)} more indexes: one per new tenant of a namespace, plus one per new namespace`,
  ];
}

export async function run(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { "vector-bucket": { type: "string" }, slots: { type: "string" }, region: { type: "string" }, yes: { type: "boolean" }, help: { type: "boolean" } },
  });
  const command = positionals[0] ?? "count";
  if (values.help || !values["vector-bucket"] || !["count", "upgrade", "empty"].includes(command)) {
    console.log(USAGE);
    return values.help ? 0 : 2;
  }
  if (command === "empty" && !values.yes) {
    console.error("empty deletes every vector of the bucket; add --yes to confirm");
    return 2;
  }
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = "true";
  if (values.region) process.env.AWS_REGION = values.region;
  // The stack outputs the ARN (`arn:...:bucket/<name>`); the API wants the name.
  process.env[ENV.vectorBucketName] = values["vector-bucket"].split("/").pop();
  process.env[ENV.vectorStoreBackend] = "s3vectors";
  // An explicit --slots wins over the environment; without either, the slots the stack deploys.
  process.env[ENV.vectorBucketSlots] = String(values.slots ?? process.env[ENV.vectorBucketSlots] ?? VECTOR_BUCKET_SLOTS);
  const store = await vectorStore();
  const s3 = store instanceof S3VectorsStore ? store : undefined;
  if (!s3) {
    if (command !== "count") throw new Error(`${command} works on a deployed S3 Vectors bucket only`);
    for (const line of describeUsage(await indexUsage(store, { fresh: true }))) console.log(line);
    return 0;
  }
  if (command === "upgrade") {
    const { upgraded, current } = await s3.upgradeIndexes(console.log);
    console.log(`upgraded ${upgraded} indexes; ${current} were current`);
    return 0;
  }
  if (command === "empty") {
    console.log(`deleted ${await s3.deleteAllIndexes()} indexes`);
    return 0;
  }
  // The quota and the ceiling apply per bucket: the stack's and each slot's (VECTOR_BUCKET_SLOTS).
  const limits = { ceiling: indexCeiling(), quota: S3_VECTORS_LIMITS.maxIndexesPerBucket };
  for (const [bucket, indexes] of await s3.countIndexesByBucket()) {
    console.log(`bucket ${bucket}`);
    for (const line of describeUsage({ ...limits, indexes })) console.log(`  ${line}`);
  }
  return 0;
}

runWhenMain(import.meta.url, run);
