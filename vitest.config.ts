import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // One DynamoDB Local and one S3/SQS emulator serve the whole run; each test file creates its
    // own table, bucket and queues in them.
    globalSetup: ["test/support/global-setup.ts"],
    pool: "forks",
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Lambda runs Node 24; the SDK's notice about Node 20 on this machine is noise in test output.
    env: { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: "true" },
    // CI reads the JSON report to print its "N passed, N failed" line.
    reporters: process.env.CI ? ["default", "json"] : ["default"],
    outputFile: { json: ".test-results.json" },
  },
});
