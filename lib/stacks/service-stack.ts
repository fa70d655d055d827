import { CfnOutput, Duration, Stack, type StackProps, Validations } from "aws-cdk-lib";
import { SnsAction } from "aws-cdk-lib/aws-cloudwatch-actions";
import { Topic } from "aws-cdk-lib/aws-sns";
import { Rule, Schedule } from "aws-cdk-lib/aws-events";
import { LambdaFunction } from "aws-cdk-lib/aws-events-targets";
import { CfnVectorBucket } from "aws-cdk-lib/aws-s3vectors";
import { EmailIdentity, Identity } from "aws-cdk-lib/aws-ses";
import type { Construct } from "constructs";
import type { StageConfig } from "../config.ts";
import { AppFunction } from "../constructs/app-function.ts";
import { FileBucket } from "../constructs/file-bucket.ts";
import { ServiceApi } from "../constructs/rest-api.ts";
import { SingleTable } from "../constructs/single-table.ts";
import { pascal, WorkQueues } from "../constructs/work-queues.ts";
import { AUTHORIZER, HTTP_FUNCTIONS, ROUTES } from "../routes.ts";
import { SCHEDULED_FUNCTIONS } from "../workers.ts";

export interface ServiceStackProps extends StackProps {
  config: StageConfig;
}

/**
 * The whole service in one stack: its table, buckets and queues are used by every function, and
 * nothing here is shared with other stacks, so a split would only add cross-stack references.
 */
export class ServiceStack extends Stack {
  /** The function of each HTTP_FUNCTIONS entry, by id. */
  readonly functions: Map<string, AppFunction> = new Map();
  /** The function of each SCHEDULED_FUNCTIONS entry, by id. */
  readonly scheduled: Map<string, AppFunction> = new Map();
  readonly authorizer: AppFunction;
  readonly work: WorkQueues;
  readonly api: ServiceApi;
  readonly alarmTopic: Topic;

  constructor(scope: Construct, id: string, props: ServiceStackProps) {
    super(scope, id, props);
    const { config } = props;

    const table = new SingleTable(this, "Data", { config }).table;
    const bucket = new FileBucket(this, "Files", { config }).bucket;
    const vectorBucket = new CfnVectorBucket(this, "VectorBucket", {
      encryptionConfiguration: { sseType: "AES256" },
    });
    vectorBucket.applyRemovalPolicy(config.removalPolicy);

    this.work = new WorkQueues(this, "Work", { config, resources: { table, bucket, vectorBucket } });

    // The sender of hosted-page sign-in links: SES e-mails the address a verification link once
    // (and, while the account is in the SES sandbox, may send only to verified recipients).
    if (config.signInSender) new EmailIdentity(this, "SignInSender", { identity: Identity.email(config.signInSender) });
    const { resources } = this.work;

    // Operators subscribe (e-mail, chat, paging) to the output topic; every alarm of the stack
    // notifies it when it fires and when it recovers.
    this.alarmTopic = new Topic(this, "AlarmTopic", { displayName: "knowledge-ingestion-service alarms", enforceSSL: true });
    Validations.of(this.alarmTopic).acknowledge({
      id: "AwsSolutions-SNS2",
      reason:
        "Alarm notifications carry an alarm's name and state, no customer data; CloudWatch can publish to an encrypted topic only " +
        "with a customer managed key, which would cost every idle deployment a monthly key fee.",
    });
    for (const { deadLetterAlarm } of Object.values(this.work.queues)) {
      deadLetterAlarm.addAlarmAction(new SnsAction(this.alarmTopic));
      deadLetterAlarm.addOkAction(new SnsAction(this.alarmTopic));
    }

    for (const definition of HTTP_FUNCTIONS) {
      this.functions.set(definition.id, AppFunction.fromDefinition(this, definition, config, resources));
    }

    for (const definition of SCHEDULED_FUNCTIONS) {
      const fn = AppFunction.fromDefinition(this, definition, config, resources);
      // The next scheduled run is the retry; Lambda's own async retries would only overlap it.
      fn.fn.configureAsyncInvoke({ retryAttempts: 0 });
      new Rule(this, `${definition.id}Schedule`, {
        description: `Runs ${definition.id} every ${definition.rateMinutes} minutes.`,
        schedule: Schedule.rate(Duration.minutes(definition.rateMinutes)),
        targets: [new LambdaFunction(fn.fn)],
      });
      this.scheduled.set(definition.id, fn);
    }

    this.authorizer = AppFunction.fromDefinition(this, AUTHORIZER, config, resources);

    this.api = new ServiceApi(this, "Api", {
      config,
      authorizerFunction: this.authorizer.fn,
      routes: ROUTES,
      functionFor: (definition) => {
        const fn = this.functions.get(definition.id);
        if (!fn) throw new Error(`route table entry ${definition.id} has no function`);
        return fn.fn;
      },
    });

    new CfnOutput(this, "ApiUrl", {
      description: "Base URL; routes are appended to it, e.g. <ApiUrl>/v1/namespace.",
      value: this.api.baseUrl,
    });
    new CfnOutput(this, "TableName", { value: table.tableName });
    new CfnOutput(this, "BucketName", { value: bucket.bucketName });
    new CfnOutput(this, "VectorBucketArn", { value: vectorBucket.attrVectorBucketArn });
    new CfnOutput(this, "AlarmTopicArn", {
      description: "SNS topic every alarm notifies (dead-letter queues receiving messages); subscribe to it to be told.",
      value: this.alarmTopic.topicArn,
    });
    new CfnOutput(this, "UsagePlanId", {
      description: "The key CLI registers each organization's usage key in this plan.",
      value: this.api.usagePlan.usagePlanId,
    });
    for (const [name, { queue, deadLetterQueue }] of Object.entries(this.work.queues)) {
      new CfnOutput(this, `${pascal(name)}QueueUrl`, { value: queue.queueUrl });
      new CfnOutput(this, `${pascal(name)}DeadLetterQueueUrl`, { value: deadLetterQueue.queueUrl });
    }
  }
}
