import { Duration } from "aws-cdk-lib";
import { ComparisonOperator, TreatMissingData, type Alarm } from "aws-cdk-lib/aws-cloudwatch";
import { SqsEventSource } from "aws-cdk-lib/aws-lambda-event-sources";
import { Queue, QueueEncryption } from "aws-cdk-lib/aws-sqs";
import { Construct } from "constructs";
import { ENV } from "../../functions/shared/platform/env-names.ts";
import type { StageConfig } from "../config.ts";
import type { QueueName } from "../routes.ts";
import { QUEUES, visibilityTimeoutSeconds, WORKERS, workerForQueue } from "../workers.ts";
import { AppFunction, type ServiceResources } from "./app-function.ts";

export interface WorkQueuesProps {
  config: StageConfig;
  /** What the workers may be granted; the queues are this construct's own. */
  resources: Omit<ServiceResources, "queues">;
}

export interface WorkQueue {
  queue: Queue;
  deadLetterQueue: Queue;
  deadLetterAlarm: Alarm;
}

/** The SQS maximum: time for an operator to inspect and redrive a dead message. */
const DEAD_LETTER_RETENTION = Duration.days(14);

/**
 * Gathering messages for a moment lets a burst (a namespace deletion fanning out, a batch ingest)
 * reach a worker as one batch instead of one invocation per message.
 */
const MAX_BATCHING_WINDOW = Duration.seconds(1);

/** `ingest` → `Ingest`, for construct ids and output names derived from a queue name. */
export function pascal(name: string): string {
  return name.charAt(0).toUpperCase() + name.slice(1);
}

/**
 * The work queues of `lib/workers.ts`, each with its dead-letter queue and an alarm on it, and the
 * worker functions subscribed to them.
 */
export class WorkQueues extends Construct {
  readonly queues: Record<QueueName, WorkQueue>;
  readonly workers: Map<string, AppFunction> = new Map();
  /** The resources given plus these queues: everything a function can be granted. */
  readonly resources: ServiceResources;

  constructor(scope: Construct, id: string, props: WorkQueuesProps) {
    super(scope, id);
    const { config } = props;

    const entries = Object.values(QUEUES).map((definition) => {
      const name = pascal(definition.name);
      const deadLetterQueue = new Queue(this, `${name}DeadLetterQueue`, {
        retentionPeriod: DEAD_LETTER_RETENTION,
        encryption: QueueEncryption.SQS_MANAGED,
        enforceSSL: true,
      });
      const worker = workerForQueue(definition.name);
      const queue = new Queue(this, `${name}Queue`, {
        // A queue nobody consumes yet keeps the SQS default until its worker is added.
        visibilityTimeout: worker ? Duration.seconds(visibilityTimeoutSeconds(worker)) : undefined,
        deadLetterQueue: { queue: deadLetterQueue, maxReceiveCount: definition.maxReceiveCount },
        encryption: QueueEncryption.SQS_MANAGED,
        enforceSSL: true,
      });
      const deadLetterAlarm = deadLetterQueue
        .metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(1), statistic: "Maximum" })
        .createAlarm(this, `${name}DeadLetterAlarm`, {
          alarmDescription: `Messages of the ${definition.name} queue failed ${definition.maxReceiveCount} times and wait in its dead-letter queue.`,
          threshold: 0,
          comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
          evaluationPeriods: 1,
          treatMissingData: TreatMissingData.NOT_BREACHING,
        });
      return [definition.name, { queue, deadLetterQueue, deadLetterAlarm }] as const;
    });
    this.queues = Object.fromEntries(entries) as Record<QueueName, WorkQueue>;

    this.resources = {
      ...props.resources,
      queues: Object.fromEntries(entries.map(([name, { queue }]) => [name, queue])) as Record<QueueName, Queue>,
    };

    for (const definition of WORKERS) {
      const worker = AppFunction.fromDefinition(this, definition, config, this.resources);
      // The worker marks work FAILED on the last delivery before the dead-letter queue takes it.
      worker.addEnvironment(ENV.maxReceiveCount, String(QUEUES[definition.queue].maxReceiveCount));
      worker.fn.addEventSource(
        new SqsEventSource(this.queues[definition.queue].queue, {
          batchSize: definition.batchSize,
          maxBatchingWindow: MAX_BATCHING_WINDOW,
          reportBatchItemFailures: true,
          maxConcurrency: definition.maxConcurrency[config.stage],
        }),
      );
      this.workers.set(definition.id, worker);
    }
  }
}
