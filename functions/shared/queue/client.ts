import { SQSClient } from "@aws-sdk/client-sqs";
import { observed } from "../platform/sdk-observer.ts";

/** The SQS client, created once per process on first use; AWS_ENDPOINT_URL_SQS points it at the local emulator. */
let sqsClient: SQSClient | undefined;

export function sqs(): SQSClient {
  // Emulator queue URLs name a host that does not resolve; with an explicit endpoint the SDK must
  // send to that endpoint rather than to the queue URL's host.
  sqsClient ??= observed(new SQSClient({ useQueueUrlAsEndpoint: !process.env.AWS_ENDPOINT_URL_SQS }));
  return sqsClient;
}
