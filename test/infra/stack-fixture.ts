import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { App, Validations } from "aws-cdk-lib";
import { Template } from "aws-cdk-lib/assertions";
import { AwsSolutionsChecks } from "cdk-nag";
import { type Stage, stageConfig } from "../../lib/config.ts";
import { ServiceStack } from "../../lib/stacks/service-stack.ts";

const cdkJson = JSON.parse(fs.readFileSync(new URL("../../cdk.json", import.meta.url), "utf8")) as {
  context: Record<string, unknown>;
};

export interface BuiltStack {
  app: App;
  stack: ServiceStack;
  outdir: string;
}

/**
 * A test App with the feature flags of cdk.json (as `cdk synth` gets them), bundling skipped, and
 * its own throw-away output directory.
 */
export function buildApp(options: { context?: Record<string, unknown> } = {}): { app: App; outdir: string } {
  const outdir = fs.mkdtempSync(path.join(os.tmpdir(), "cdkout-"));
  const app = new App({
    outdir,
    context: { ...cdkJson.context, "aws:cdk:bundling-stacks": [], ...options.context },
  });
  return { app, outdir };
}

export function buildStack(stage: Stage = "dev", options: { nag?: boolean; waf?: boolean } = {}): BuiltStack {
  const { app, outdir } = buildApp();
  const stack = new ServiceStack(app, `KnowledgeIngestionService-${stage}`, { config: stageConfig(stage, { waf: options.waf }) });
  if (options.nag) Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  return { app, stack, outdir };
}

export function templateOf(stage: Stage = "dev"): { template: Template; stack: ServiceStack; outdir: string } {
  const { stack, outdir } = buildStack(stage);
  return { template: Template.fromStack(stack), stack, outdir };
}

export function removeOutdir(outdir: string): void {
  fs.rmSync(outdir, { recursive: true, force: true });
}

/** The cdk-nag rule ids (with finding) named in a ValidationFailed report. */
export function nagFindings(report: string): string[] {
  return [...new Set(report.match(/AwsSolutions-[A-Z]+\d+(\[[^\]\n]*\])?/g) ?? [])].sort();
}
