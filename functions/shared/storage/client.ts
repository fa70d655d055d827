import { S3Client } from "@aws-sdk/client-s3";
import { observed } from "../platform/sdk-observer.ts";

/** The S3 client, created once per process on first use; AWS_ENDPOINT_URL_S3 points it at the local emulator. */
let s3Client: S3Client | undefined;

export function s3(): S3Client {
  // Without WHEN_REQUIRED the SDK adds CRC32 checksum parameters computed over an empty body to
  // presigned PUT URLs, which real uploads then fail.
  s3Client ??= observed(
    new S3Client({
      requestChecksumCalculation: "WHEN_REQUIRED",
      responseChecksumValidation: "WHEN_REQUIRED",
      forcePathStyle: Boolean(process.env.AWS_ENDPOINT_URL_S3),
    }),
  );
  return s3Client;
}
