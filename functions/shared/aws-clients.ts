import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { S3Client } from "@aws-sdk/client-s3";
import { SQSClient } from "@aws-sdk/client-sqs";

/**
 * SDK clients, created once per process on first use. Endpoints come from the standard
 * AWS_ENDPOINT_URL_* variables, which is how the local stack redirects them to the emulators.
 */
let documentClient: DynamoDBDocumentClient | undefined;
let s3Client: S3Client | undefined;
let sqsClient: SQSClient | undefined;

export function dynamo(): DynamoDBDocumentClient {
  documentClient ??= DynamoDBDocumentClient.from(new DynamoDBClient({}), {
    marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false },
  });
  return documentClient;
}

export function s3(): S3Client {
  // Without WHEN_REQUIRED the SDK adds CRC32 checksum parameters computed over an empty body to
  // presigned PUT URLs, which real uploads then fail.
  s3Client ??= new S3Client({
    requestChecksumCalculation: "WHEN_REQUIRED",
    responseChecksumValidation: "WHEN_REQUIRED",
    forcePathStyle: Boolean(process.env.AWS_ENDPOINT_URL_S3),
  });
  return s3Client;
}

export function sqs(): SQSClient {
  // Emulator queue URLs name a host that does not resolve; with an explicit endpoint the SDK must
  // send to that endpoint rather than to the queue URL's host.
  sqsClient ??= new SQSClient({ useQueueUrlAsEndpoint: !process.env.AWS_ENDPOINT_URL_SQS });
  return sqsClient;
}
