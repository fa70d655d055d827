import { GetObjectCommand, PutObjectCommand } from "@aws-sdk/client-s3";
import { getSignedUrl } from "@aws-sdk/s3-request-presigner";
import { s3 } from "../aws-clients.ts";
import { config } from "../env.ts";

/**
 * A presigned PUT that S3 accepts only with the declared Content-Type and exactly the declared
 * number of bytes: both headers are signed, so a different type or size fails the signature.
 */
export async function presignUpload(key: string, contentType: string, contentLength: number): Promise<string> {
  return getSignedUrl(
    s3(),
    new PutObjectCommand({ Bucket: config.bucketName(), Key: key, ContentType: contentType, ContentLength: contentLength }),
    { expiresIn: config.uploadUrlTtlSeconds(), signableHeaders: new Set(["content-type", "content-length"]) },
  );
}

/** A presigned GET whose download is saved under `downloadName`. */
export async function presignDownload(key: string, downloadName: string, contentType?: string): Promise<string> {
  return getSignedUrl(
    s3(),
    new GetObjectCommand({
      Bucket: config.bucketName(),
      Key: key,
      ResponseContentDisposition: contentDisposition(downloadName),
      ResponseContentType: contentType,
    }),
    { expiresIn: config.downloadUrlTtlSeconds() },
  );
}

/** RFC 6266: an ASCII fallback plus the exact UTF-8 name for clients that read `filename*`. */
export function contentDisposition(name: string): string {
  const ascii = name.replace(/[^\x20-\x7e]/g, "_").replace(/["\\]/g, "_");
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name)}`;
}
