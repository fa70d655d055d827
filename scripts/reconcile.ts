import { parseArgs } from "node:util";
import { ENV } from "../functions/shared/platform/env-names.ts";
import { RECONCILE_DEFAULTS, reconcile, type ReconcileOptions, type ReconcileReport } from "../functions/shared/workflows/maintenance/run-reconciliation.ts";
import { totalRepairs } from "../functions/shared/workflows/maintenance/report.ts";
import { logger } from "../functions/shared/platform/logger.ts";
import { useRunningLocalStack } from "./local-target.ts";
import { runWhenMain } from "./cli.ts";

const USAGE = `Usage: npm run reconcile -- [options]

Finds and repairs what failures left behind: stuck jobs and documents get their work queued again
(and are failed after ${RECONCILE_DEFAULTS.maxSweeps} tries), objects whose record is gone and vectors no document claims
are deleted. Safe to run at any time, and alongside the hourly scheduled run.

Options:
  --dry-run                 report what would change, change nothing
  --json                    print the whole report as JSON
  --stale-minutes N         working records untouched this long are stuck (default ${RECONCILE_DEFAULTS.staleAfterMs / 60_000})
  --upload-grace-hours N    keep unreferenced uploads this long (default ${RECONCILE_DEFAULTS.uploadGraceMs / 3_600_000})
  --grace-minutes N         keep objects whose record may still be written this long (default ${RECONCILE_DEFAULTS.graceMs / 60_000})

Target (default: the running local stack started by npm run dev; its vectors live inside that
process, so the vector pass is skipped there and runs only in the tests and the scheduled function):
  --table NAME --bucket NAME --ingest-queue-url URL --delete-queue-url URL
                            a deployed stack (its outputs); uses your AWS credentials
  --vector-bucket NAME|ARN  also reconcile the stack's S3 Vectors bucket (output VectorBucketArn)
  --region REGION`;

interface Values {
  table?: string;
  bucket?: string;
  "ingest-queue-url"?: string;
  "delete-queue-url"?: string;
  "vector-bucket"?: string;
  region?: string;
}

/** Sets the environment the data layer reads; returns whether the vector store is reachable. */
function selectTarget(values: Values): { vectors: boolean } {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = "true";
  const deployed = [values.table, values.bucket, values["ingest-queue-url"], values["delete-queue-url"]];
  if (deployed.every((value) => value === undefined)) {
    useRunningLocalStack();
    return { vectors: false };
  }
  if (deployed.some((value) => value === undefined)) {
    throw new Error("a deployed target needs --table, --bucket, --ingest-queue-url and --delete-queue-url");
  }
  Object.assign(process.env, {
    [ENV.tableName]: values.table,
    [ENV.bucketName]: values.bucket,
    [ENV.ingestQueueUrl]: values["ingest-queue-url"],
    [ENV.deleteQueueUrl]: values["delete-queue-url"],
  });
  if (values.region) process.env.AWS_REGION = values.region;
  const vectorBucket = values["vector-bucket"];
  if (!vectorBucket) return { vectors: false };
  // The stack outputs the ARN (`arn:...:bucket/<name>`); the API wants the name.
  process.env[ENV.vectorBucketName] = vectorBucket.split("/").pop();
  process.env[ENV.vectorStoreBackend] = "s3vectors";
  return { vectors: true };
}

function number(value: string | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  const parsed = Number(value);
  if (!Number.isFinite(parsed) || parsed < 0) throw new Error(`${name} must be a non-negative number`);
  return parsed;
}

export function summarize(report: ReconcileReport): string[] {
  const { records, objects, vectors } = report;
  const verb = report.dryRun ? "would" : "did";
  const nonZero = (counts: object) =>
    Object.entries(counts)
      .filter(([, count]) => typeof count === "number" && count > 0)
      .map(([name, count]) => `${name} ${count}`)
      .join(", ") || "none";
  return [
    `Reconciliation ${report.dryRun ? "(dry run) " : ""}${report.complete ? "finished" : "stopped early (time budget)"} in ${report.durationMs} ms over ${report.namespaces} namespace(s).`,
    `  stuck records ${verb} requeue: ${nonZero(records.requeued)}; ${verb} fail: ${nonZero(records.failed)}; left to their owner: ${records.skipped}`,
    `  objects: ${objects.scanned} scanned, ${objects.deleted} orphaned (${nonZero({ ...objects, scanned: 0, deleted: 0, unrecognised: 0 })}), ${objects.unrecognised} unrecognised`,
    `  vectors: ${vectors.scanned} scanned in ${vectors.partitions} partition(s), ${vectors.deleted} orphaned (${nonZero({ ...vectors, scanned: 0, deleted: 0, partitions: 0 })})`,
    `  ${totalRepairs(report)} repair(s) ${report.dryRun ? "needed" : "made"}.`,
    ...report.findings.map((finding) => `  ${finding.action} ${finding.kind} ${finding.id}: ${finding.reason}`),
  ];
}

export async function run(argv: string[], print: (line: string) => void = console.log): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      "dry-run": { type: "boolean" },
      json: { type: "boolean" },
      "stale-minutes": { type: "string" },
      "upload-grace-hours": { type: "string" },
      "grace-minutes": { type: "string" },
      table: { type: "string" },
      bucket: { type: "string" },
      "ingest-queue-url": { type: "string" },
      "delete-queue-url": { type: "string" },
      "vector-bucket": { type: "string" },
      region: { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help) {
    print(USAGE);
    return 0;
  }
  const target = selectTarget(values);
  // The summary below says what the functions' structured log lines would.
  logger.setLogLevel("ERROR");
  const inMs = (name: keyof typeof values & `${string}-${"minutes" | "hours"}`, unitMs: number) => {
    const value = number(values[name] as string | undefined, `--${name}`);
    return value === undefined ? undefined : value * unitMs;
  };
  const options: ReconcileOptions = {
    dryRun: values["dry-run"] ?? false,
    staleAfterMs: inMs("stale-minutes", 60_000),
    uploadGraceMs: inMs("upload-grace-hours", 3_600_000),
    graceMs: inMs("grace-minutes", 60_000),
    skipVectors: !target.vectors,
  };
  const report = await reconcile(options);
  if (values.json) print(JSON.stringify(report, null, 2));
  else summarize(report).forEach((line) => print(line));
  if (!target.vectors) print("  (vector pass skipped: no vector store reachable from this process)");
  return 0;
}

runWhenMain(import.meta.url, run);
