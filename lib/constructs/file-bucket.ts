import { Duration, Validations } from "aws-cdk-lib";
import { BlockPublicAccess, Bucket, BucketEncryption, HttpMethods, ObjectOwnership } from "aws-cdk-lib/aws-s3";
import { Construct } from "constructs";
import type { StageConfig } from "../config.ts";

/** Workers keep intermediate files (parsed text, partial chunk sets) under this prefix. */
export const STAGING_PREFIX = "staging/";

export interface FileBucketProps {
  config: StageConfig;
}

/**
 * Uploaded source files and chunks files. Private: clients reach objects only through presigned
 * URLs, so CORS is the one browser-facing setting.
 *
 * Abandoned presigned uploads (a URL issued, the file never ingested) are not expired by a
 * lifecycle rule: they live under the namespace's upload prefix next to files that are in use, and
 * only the table knows which is which. The reconciliation job removes them (issue 4).
 */
export class FileBucket extends Construct {
  readonly bucket: Bucket;

  constructor(scope: Construct, id: string, props: FileBucketProps) {
    super(scope, id);
    const { config } = props;

    this.bucket = new Bucket(this, "Bucket", {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      encryption: BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      versioned: false,
      removalPolicy: config.removalPolicy,
      autoDeleteObjects: config.autoDeleteObjects,
      cors: [
        {
          allowedMethods: [HttpMethods.PUT, HttpMethods.GET, HttpMethods.HEAD],
          allowedOrigins: config.corsOrigins,
          allowedHeaders: ["content-type", "content-length"],
          // Browsers hide response headers from scripts unless exposed; clients compare the ETag.
          exposedHeaders: ["ETag"],
          maxAge: 3600,
        },
      ],
      lifecycleRules: [
        { id: "abort-incomplete-multipart-uploads", abortIncompleteMultipartUploadAfter: Duration.days(1) },
        // Scratch space: a step that outlives this has long failed or been retried from scratch.
        { id: "expire-staging", prefix: STAGING_PREFIX, expiration: Duration.days(2) },
      ],
    });

    Validations.of(this.bucket).acknowledge({
      id: "AwsSolutions-S1",
      reason:
        "Objects are reachable only through presigned URLs that the service's functions issue and log with the " +
        "organization and key; server access logs would add a second bucket and a log object per request for no " +
        "extra audit value (CloudTrail S3 data events are the option if per-request audit is ever required).",
    });
  }
}
