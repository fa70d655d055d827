/** The work queues, named once for the functions, the CDK stack and the local stack. */
export const QUEUE_NAMES = ["ingest", "delete", "mail"] as const;

export type QueueName = (typeof QUEUE_NAMES)[number];
