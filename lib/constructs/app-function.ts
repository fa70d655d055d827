import { AssetHashType, Duration, Fn, Stack } from "aws-cdk-lib";
import type { ITableV2 } from "aws-cdk-lib/aws-dynamodb";
import { PolicyStatement, Role, ServicePrincipal } from "aws-cdk-lib/aws-iam";
import { Architecture, Code, Function as LambdaFunction, type FunctionProps, Runtime } from "aws-cdk-lib/aws-lambda";
import { NodejsFunction, OutputFormat } from "aws-cdk-lib/aws-lambda-nodejs";
import { LogGroup } from "aws-cdk-lib/aws-logs";
import type { IBucket } from "aws-cdk-lib/aws-s3";
import type { CfnVectorBucket } from "aws-cdk-lib/aws-s3vectors";
import type { IQueue } from "aws-cdk-lib/aws-sqs";
import { Construct } from "constructs";
import { ENV } from "../../functions/shared/platform/env-names.ts";
import { bundleSplit, ESBUILD_OPTIONS } from "../bundling.ts";
import { copyExtractionRuntimeFiles, EXTRACTION_EXTERNAL_MODULES } from "../extraction-asset.ts";
import type { StageConfig } from "../config.ts";
import { acknowledgeWildcardActions, acknowledgeWildcardResource } from "../nag.ts";
import { DYNAMODB_IAM_ACTIONS } from "../../functions/shared/db/iam-actions.ts";
import { OWNED_ITEM_PREFIXES } from "../../functions/shared/db/dynamo/keys.ts";
import { chatModelAllowList } from "../../functions/shared/domain/catalogs/llm-providers.ts";
import { marketplaceProductIds } from "../../functions/shared/domain/catalogs/embedding-providers.ts";
import { BEDROCK_RERANK_MODELS, rerankMarketplaceProductIds } from "../../functions/shared/domain/catalogs/reranking-providers.ts";
import { VECTOR_STORES } from "../../functions/shared/vector-store/registry.ts";
import { VECTOR_BUCKET_SLOTS } from "../../functions/shared/vector-store/limits.ts";
import { nodeOptions } from "../node-options.ts";
import { projectPath } from "../project.ts";
import type { FunctionAccess, QueueName } from "../routes.ts";

export const SERVICE_NAME = "knowledge-ingestion-service";

/** What a function may be granted access to; `FunctionAccess` says which of these it gets. */
export interface ServiceResources {
  table: ITableV2;
  bucket: IBucket;
  queues: Record<QueueName, IQueue>;
  vectorBucket: CfnVectorBucket;
}

export interface AppFunctionProps {
  /** Handler module, from the project root; it exports `handler`. */
  entry: string;
  config: StageConfig;
  memoryMb?: number;
  timeoutSeconds?: number;
  description?: string;
  /**
   * Reads uploaded documents (PDF, Office, images): bundled with code splitting so each format's
   * library loads on first use, with the OCR runtime shipped beside the bundle (lib/extraction-asset.ts).
   */
  extractsDocuments?: boolean;
}

const QUEUE_URL_ENV: Record<QueueName, string> = {
  ingest: ENV.ingestQueueUrl,
  delete: ENV.deleteQueueUrl,
  mail: ENV.mailQueueUrl,
};

/** The deployed vector store; its registry row lists the actions of each operation. */
const DEPLOYED_VECTOR_STORE = VECTOR_STORES.s3vectors;

/** The wildcard actions in CDK's bucket grants, by the access level that calls each grant. */
const BUCKET_WILDCARD_ACTIONS: Record<NonNullable<FunctionAccess["bucket"]>, string[]> = {
  read: ["s3:GetObject*", "s3:GetBucket*", "s3:List*"],
  put: ["s3:Abort*"],
  readWrite: ["s3:GetObject*", "s3:GetBucket*", "s3:List*", "s3:DeleteObject*", "s3:Abort*"],
};

/**
 * Every Lambda of the service: the one place that decides runtime, architecture, bundling, logging
 * and how least-privilege access is granted, so no function can drift from the others.
 */
export class AppFunction extends Construct {
  readonly fn: LambdaFunction;
  readonly logGroup: LogGroup;
  private readonly config: StageConfig;

  /** The function of a route, worker or scheduled-table entry, with exactly the access it declares. */
  static fromDefinition(
    scope: Construct,
    definition: { id: string; entry: string; access: FunctionAccess; memoryMb?: number; timeoutSeconds?: number; extractsDocuments?: boolean },
    config: StageConfig,
    resources: ServiceResources,
  ): AppFunction {
    const fn = new AppFunction(scope, definition.id, {
      entry: definition.entry,
      config,
      memoryMb: definition.memoryMb,
      timeoutSeconds: definition.timeoutSeconds,
      extractsDocuments: definition.extractsDocuments,
    });
    fn.grantAccess(definition.access, resources);
    return fn;
  }

  constructor(scope: Construct, id: string, props: AppFunctionProps) {
    super(scope, id);
    const { config } = props;
    this.config = config;

    this.logGroup = new LogGroup(this, "LogGroup", {
      retention: config.logRetention,
      removalPolicy: config.removalPolicy,
    });

    // Its own role instead of AWSLambdaBasicExecutionRole, whose logs permissions span every log
    // group of the account; this one can write only to the function's own group.
    const role = new Role(this, "Role", { assumedBy: new ServicePrincipal("lambda.amazonaws.com") });
    role.addToPrincipalPolicy(
      new PolicyStatement({
        actions: ["logs:CreateLogStream", "logs:PutLogEvents"],
        resources: [this.logGroup.logGroupArn],
      }),
    );

    const common = {
      runtime: Runtime.NODEJS_24_X,
      architecture: Architecture.ARM_64,
      memorySize: props.memoryMb ?? 512,
      // Well inside API Gateway's 29 s integration limit, so a stuck call ends as the function's
      // own failure (a 500 envelope) rather than a gateway timeout.
      timeout: Duration.seconds(props.timeoutSeconds ?? 10),
      description: props.description,
      role,
      logGroup: this.logGroup,
      environment: {
        NODE_OPTIONS: nodeOptions(props.memoryMb ?? 512),
        POWERTOOLS_SERVICE_NAME: SERVICE_NAME,
        POWERTOOLS_LOG_LEVEL: "INFO",
        [ENV.stage]: config.stage,
        [ENV.defaultEmbeddingProvider]: config.defaultEmbeddingProvider,
      },
    } satisfies Omit<FunctionProps, "code" | "handler">;

    this.fn = props.extractsDocuments
      ? new LambdaFunction(this, "Function", { ...common, handler: "index.handler", code: splitBundleCode(props.entry) })
      : new NodejsFunction(this, "Function", {
          ...common,
          entry: projectPath(props.entry),
          handler: "handler",
          projectRoot: projectPath("."),
          depsLockFilePath: projectPath("package-lock.json"),
          bundling: {
            format: OutputFormat.ESM,
            target: ESBUILD_OPTIONS.target,
            mainFields: ESBUILD_OPTIONS.mainFields,
            minify: ESBUILD_OPTIONS.minify,
            sourceMap: ESBUILD_OPTIONS.sourcemap,
            sourcesContent: ESBUILD_OPTIONS.sourcesContent,
            banner: ESBUILD_OPTIONS.banner.js,
            externalModules: ESBUILD_OPTIONS.external,
            define: ESBUILD_OPTIONS.define,
            // NodejsFunction has no prop for aliases; each becomes `--alias:<module>=<path>` on the command line.
            esbuildArgs: {
              "--alias": Object.entries(ESBUILD_OPTIONS.alias).map(([module, replacement]) => `${module}=${replacement}`),
            },
          },
        });
  }

  addEnvironment(name: string, value: string): void {
    this.fn.addEnvironment(name, value);
  }

  /**
   * Grants exactly what `access` declares, and sets the environment variables the function needs
   * to find those resources. Wildcards that the grants imply are acknowledged here, next to the
   * grant, each with its reason.
   */
  grantAccess(access: FunctionAccess, resources: ServiceResources): void {
    const { table, bucket, queues, vectorBucket } = resources;

    // The data layer's own action list rather than CDK's read/write grants, which add Scan and
    // batch writes the service never sends.
    if (access.table && access.writesOnly) {
      if (access.table !== "readWrite" || access.tableScan) throw new Error(`${this.node.path}: writesOnly needs table readWrite without tableScan`);
      table.grant(this.fn, ...DYNAMODB_IAM_ACTIONS.read);
      // A public function writes only its own items: a flaw in it cannot touch organizations' records.
      this.fn.addToRolePolicy(
        new PolicyStatement({
          actions: [...DYNAMODB_IAM_ACTIONS.write],
          resources: [table.tableArn],
          conditions: { "ForAllValues:StringLike": { "dynamodb:LeadingKeys": access.writesOnly.map((item) => `${OWNED_ITEM_PREFIXES[item]}*`) } },
        }),
      );
    } else if (access.table) {
      table.grant(this.fn, ...DYNAMODB_IAM_ACTIONS[access.table], ...(access.tableScan ? DYNAMODB_IAM_ACTIONS.scan : []));
    }
    if (access.table) {
      this.addEnvironment(ENV.tableName, table.tableName);
      acknowledgeWildcardResource(
        this,
        `${table.tableArn}/index/*`,
        "List queries run on the table's global secondary indexes (table-schema.ts); the grant covers the indexes of this one table only.",
      );
    }

    if (access.bucket) {
      if (access.bucket === "read") bucket.grantRead(this.fn);
      else if (access.bucket === "put") bucket.grantPut(this.fn);
      else bucket.grantReadWrite(this.fn);
      this.addEnvironment(ENV.bucketName, bucket.bucketName);
      this.addEnvironment(ENV.uploadUrlTtlSeconds, String(this.config.uploadUrlTtlSeconds));
      this.addEnvironment(ENV.downloadUrlTtlSeconds, String(this.config.downloadUrlTtlSeconds));
      acknowledgeWildcardActions(
        this,
        BUCKET_WILDCARD_ACTIONS[access.bucket],
        `CDK's ${access.bucket} grant for objects; limited to the service's one file bucket.`,
      );
      acknowledgeWildcardResource(
        this,
        bucket.arnForObjects("*"),
        "Object keys are created at run time per namespace and upload; access is limited to the service's one file bucket.",
      );
    }

    for (const queue of access.queues ?? []) {
      queues[queue].grantSendMessages(this.fn);
      this.addEnvironment(QUEUE_URL_ENV[queue], queues[queue].queueUrl);
    }
    // Who queues sign-in mail refuses it alike for every address when the stage has no sender.
    if (access.queues?.includes("mail") && !access.sendsEmail) this.addEnvironment(ENV.emailBackend, this.config.signInSender ? "ses" : "none");

    if (access.vectors && access.vectors.length > 0) {
      const bucketArn = vectorBucket.attrVectorBucketArn;
      const indexes = `${bucketArn}/index/*`;
      // The slot buckets (`<bucket>-<n>`) the service creates as partitions need them (s3-vectors.ts).
      const slotBuckets = `${bucketArn}-*`;
      const slotIndexes = `${bucketArn}-*/index/*`;
      const actions = [...new Set(access.vectors.flatMap((operation) => DEPLOYED_VECTOR_STORE.iamActions[operation]))].sort();
      this.fn.addToRolePolicy(new PolicyStatement({ actions, resources: [bucketArn, indexes, slotBuckets, slotIndexes] }));
      for (const resource of [indexes, slotBuckets, slotIndexes]) {
        acknowledgeWildcardResource(
          this,
          resource,
          "Vector indexes (one per namespace and tenant) and the buckets of their hashed slots are created at run time; access is limited to the service's vector bucket and the buckets named after it.",
        );
      }
      // The vector bucket's ARN ends in `bucket/<name>`; the S3 Vectors API addresses it by name.
      this.addEnvironment(ENV.vectorBucketName, Fn.select(1, Fn.split("/", bucketArn)));
      this.addEnvironment(ENV.vectorStoreBackend, "s3vectors");
      this.addEnvironment(ENV.vectorBucketSlots, String(VECTOR_BUCKET_SLOTS));
    }

    if (access.embeds) {
      const models = Stack.of(this).formatArn({
        service: "bedrock",
        account: "",
        resource: "foundation-model",
        resourceName: "*",
      });
      this.fn.addToRolePolicy(new PolicyStatement({ actions: ["bedrock:InvokeModel"], resources: [models] }));
      acknowledgeWildcardResource(
        this,
        models,
        "The embedding model is chosen per namespace at run time; foundation models are AWS-owned, read-only and region-scoped.",
      );
    }

    if (access.reranks) {
      // Rerank has no resource type; the model it runs is checked as an InvokeModel on that model.
      this.fn.addToRolePolicy(new PolicyStatement({ actions: ["bedrock:Rerank"], resources: ["*"] }));
      this.fn.addToRolePolicy(
        new PolicyStatement({
          actions: ["bedrock:InvokeModel"],
          resources: BEDROCK_RERANK_MODELS.map((model) =>
            Stack.of(this).formatArn({ service: "bedrock", account: "", resource: "foundation-model", resourceName: model }),
          ),
        }),
      );
      this.addEnvironment(ENV.defaultReranker, this.config.defaultReranker);
    }

    if (access.chats) {
      // The model is the page's or caller's choice at run time, and a cross-Region inference profile
      // runs it in any Region of its geography: any foundation model, and this account's profiles here.
      const anyRegionModels = Stack.of(this).formatArn({ service: "bedrock", region: "*", account: "", resource: "foundation-model", resourceName: "*" });
      const profiles = Stack.of(this).formatArn({ service: "bedrock", resource: "inference-profile", resourceName: "*" });
      this.fn.addToRolePolicy(new PolicyStatement({ actions: ["bedrock:InvokeModelWithResponseStream"], resources: [anyRegionModels, profiles] }));
      for (const resource of [anyRegionModels, profiles]) {
        acknowledgeWildcardResource(
          this,
          resource,
          "The chat model is chosen per hosted page or request at run time, and cross-Region inference profiles route to the model in other Regions of their geography; streaming invocation only, and the account's Bedrock model access decides which models answer.",
        );
      }
      this.addEnvironment(ENV.defaultLlm, this.config.defaultLlm);
      if (this.config.chatModel) this.addEnvironment(ENV.defaultChatModel, this.config.chatModel);
    }

    if (access.chats || access.choosesChatModel) {
      // The allow-list, resolved here so the functions and the README's table agree on one list.
      this.addEnvironment(ENV.chatModels, chatModelAllowList(this.config.chatModels, this.config.chatModel).join(","));
    }

    if (access.sendsEmail) {
      const sender = this.config.signInSender;
      if (sender) {
        // SES authorizes SendEmail on the sending identity: the stack's one address (lib/stacks/service-stack.ts).
        const identity = Stack.of(this).formatArn({ service: "ses", resource: "identity", resourceName: sender });
        this.fn.addToRolePolicy(new PolicyStatement({ actions: ["ses:SendEmail"], resources: [identity] }));
        this.addEnvironment(ENV.emailBackend, "ses");
        this.addEnvironment(ENV.emailSender, sender);
      } else {
        this.addEnvironment(ENV.emailBackend, "none");
      }
    }

    const products = [...(access.embeds ? marketplaceProductIds() : []), ...(access.reranks ? rerankMarketplaceProductIds() : [])];
    if (products.length > 0) {
      // Bedrock subscribes the account to a third-party model (Cohere) on its first call, as the
      // caller: the role needs these, limited to the products the registries name.
      this.fn.addToRolePolicy(
        new PolicyStatement({
          actions: ["aws-marketplace:Subscribe", "aws-marketplace:Unsubscribe"],
          resources: ["*"],
          conditions: { "ForAnyValue:StringEquals": { "aws-marketplace:ProductId": products } },
        }),
      );
      this.fn.addToRolePolicy(new PolicyStatement({ actions: ["aws-marketplace:ViewSubscriptions"], resources: ["*"] }));
      acknowledgeWildcardResource(
        this,
        "*",
        "AWS Marketplace subscriptions and Bedrock Rerank have no resource ARN; Subscribe and Unsubscribe are limited by aws-marketplace:ProductId to the registries' Bedrock models, ViewSubscriptions only reads, and the rerank model itself is checked as InvokeModel on the named models.",
      );
    }
  }
}

/**
 * The asset of a function that extracts documents: the split bundle (lib/bundling.ts) and the OCR
 * runtime, built locally with the project's own esbuild as NodejsFunction builds the others. Hashed
 * by its output, like NodejsFunction's assets, so an unchanged bundle is not uploaded again.
 */
function splitBundleCode(entry: string): Code {
  return Code.fromAsset(projectPath("."), {
    assetHashType: AssetHashType.OUTPUT,
    bundling: {
      // Never used: local bundling always succeeds or throws, as NodejsFunction's does here.
      image: Runtime.NODEJS_24_X.bundlingImage,
      local: {
        tryBundle(outputDir: string): boolean {
          bundleSplit(projectPath(entry), outputDir, EXTRACTION_EXTERNAL_MODULES);
          copyExtractionRuntimeFiles(outputDir);
          return true;
        },
      },
    },
  });
}
