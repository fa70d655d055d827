import { defineConfig } from "vitest/config";

const shared = {
  pool: "forks" as const,
  testTimeout: 60_000,
  hookTimeout: 120_000,
  // Lambda runs Node 24; the SDK's notice about Node 20 on this machine is noise in test output.
  // CDK's built-in CloudFormation validation costs ~40 s on the first synth of each process; only
  // the CLI synth test (test/infra/synth.test.ts) asserts it, and it turns it back on for its child.
  env: { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: "true", CDK_VALIDATION: "false" },
};

/**
 * Three projects: `unit` (pure logic, no emulators, no Java), `infra` (assertions on the synthesized
 * CDK stack) and `integration` (the real local emulators). `npx vitest --project unit` runs the first
 * alone; `npm test` runs all three.
 */
// Vitest's default (cores − 1) runs one file at a time on a 2-core machine. KIS_TEST_WORKERS sets
// one number for every project (1: files one by one).
const workers = Number(process.env.KIS_TEST_WORKERS) || undefined;

export default defineConfig({
  test: {
    // Unit and infra files compute: one per core.
    maxWorkers: workers ?? 2,
    // CI reads the JSON report to print its "N passed, N failed" line.
    reporters: process.env.CI ? ["default", "json"] : ["default"],
    outputFile: { json: ".test-results.json" },
    projects: [
      {
        test: {
          ...shared,
          name: "unit",
          include: ["test/unit/**/*.test.ts"],
          // A fresh module graph per file cost a third of the lane (each file re-imported the SDKs,
          // the parsers and the extraction code). Unit files keep no state another reads: what one
          // sets in process.env it puts back (a table name aside), and none uses vi.mock.
          isolate: false,
        },
      },
      // Likewise: every infra file imported aws-cdk-lib afresh (seconds each). Each builds its own App.
      { test: { ...shared, name: "infra", include: ["test/infra/**/*.test.ts"], isolate: false } },
      {
        test: {
          ...shared,
          name: "integration",
          include: ["test/integration/**/*.test.ts"],
          // One DynamoDB Local and one S3/SQS emulator serve the whole run; each test file creates
          // its own table, bucket and queues in them.
          globalSetup: ["test/support/global-setup.ts"],
          // Integration files spend much of their time waiting (queue polls, redeliveries, child
          // processes) and share nothing but the emulators: three at a time on 2 cores took the
          // project from 230 s to 152 s (four: 173 s). A project with its own maxWorkers needs its
          // own group, which runs after unit and infra.
          maxWorkers: workers ?? 3,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
