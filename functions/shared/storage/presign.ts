import { GetObjectCommand, PutObjectCommand } from "@aws-sdk/client-s3";
import { getSignedUrl } from "@aws-sdk/s3-request-presigner";
import { s3 } from "./client.ts";
import { config } from "../platform/env.ts";

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

/** A presigned GET whose download is saved under `downloadName`; valid for the configured download lifetime unless `expiresInSeconds` is shorter. */
export async function presignDownload(key: string, downloadName: string, contentType?: string, expiresInSeconds?: number): Promise<string> {
  return getSignedUrl(
    s3(),
    new GetObjectCommand({
      Bucket: config.bucketName(),
      Key: key,
      ResponseContentDisposition: contentDisposition(downloadName),
      ResponseContentType: contentType,
    }),
    { expiresIn: Math.min(expiresInSeconds ?? Infinity, config.downloadUrlTtlSeconds()) },
  );
}

/**
 * RFC 6266: `filename` is a quoted ASCII fallback, `filename*` the exact name as UTF-8 in RFC 8187
 * percent-encoding. Only the base name is offered, so a document named `../../etc/passwd.txt` is
 * saved as `passwd.txt`.
 */
export function contentDisposition(name: string): string {
  const base = downloadBaseName(name);
  const fallback = base.replace(/[^\x20-\x7e]|["\\%]/gu, "_");
  return `attachment; filename="${fallback}"; filename*=UTF-8''${encodeRfc8187(base)}`;
}

/**
 * What follows the last `/` or `\`, with control characters replaced and lone surrogates (names
 * stored before requests were checked for them) made well-formed; "download" when nothing is left.
 */
export function downloadBaseName(name: string): string {
  const base = (name.split(/[\\/]/).pop() ?? "")
    .toWellFormed()
    .replace(/[\u0000-\u001f\u007f-\u009f]/g, "_")
    .trim();
  return base === "" || base === "." || base === ".." ? "download" : base;
}

/** RFC 8187 attr-char: everything else is percent-encoded from its UTF-8 bytes. */
const ATTR_CHAR = /^[A-Za-z0-9!#$&+\-.^_`|~]$/;

export function encodeRfc8187(value: string): string {
  let encoded = "";
  for (const byte of Buffer.from(value, "utf8")) {
    const char = String.fromCharCode(byte);
    encoded += ATTR_CHAR.test(char) ? char : `%${byte.toString(16).toUpperCase().padStart(2, "0")}`;
  }
  return encoded;
}
