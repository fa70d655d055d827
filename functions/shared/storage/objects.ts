import { DeleteObjectsCommand, GetObjectCommand, HeadObjectCommand, ListObjectsV2Command, PutObjectCommand } from "@aws-sdk/client-s3";
import { s3 } from "./client.ts";
import { config } from "../platform/env.ts";

function isMissing(error: unknown): boolean {
  const name = (error as { name?: string } | null)?.name;
  const status = (error as { $metadata?: { httpStatusCode?: number } } | null)?.$metadata?.httpStatusCode;
  return name === "NotFound" || name === "NoSuchKey" || status === 404;
}

export async function headObject(key: string): Promise<{ size: number; contentType: string | undefined } | null> {
  try {
    const head = await s3().send(new HeadObjectCommand({ Bucket: config.bucketName(), Key: key }));
    return { size: head.ContentLength ?? 0, contentType: head.ContentType };
  } catch (error) {
    if (isMissing(error)) return null;
    throw error;
  }
}

/** The object's bytes with the ETag of exactly those bytes (a later overwrite has another). */
export async function readObject(key: string): Promise<{ bytes: Uint8Array; etag: string } | null> {
  try {
    const result = await s3().send(new GetObjectCommand({ Bucket: config.bucketName(), Key: key }));
    return { bytes: await result.Body!.transformToByteArray(), etag: result.ETag ?? "" };
  } catch (error) {
    if (isMissing(error)) return null;
    throw error;
  }
}

export async function getObjectText(key: string): Promise<string | null> {
  const stored = await readObject(key);
  return stored === null ? null : Buffer.from(stored.bytes).toString("utf8");
}

/** Writes the object; resolves with its ETag. */
export async function putObject(key: string, body: string | Uint8Array, contentType: string): Promise<string> {
  const result = await s3().send(new PutObjectCommand({ Bucket: config.bucketName(), Key: key, Body: body, ContentType: contentType }));
  return result.ETag ?? "";
}

/** Deletes keys, 1,000 per request; missing keys are not an error. */
export async function deleteObjects(keys: string[]): Promise<void> {
  for (let start = 0; start < keys.length; start += 1000) {
    const batch = keys.slice(start, start + 1000);
    const result = await s3().send(
      new DeleteObjectsCommand({ Bucket: config.bucketName(), Delete: { Objects: batch.map((Key) => ({ Key })), Quiet: true } }),
    );
    if (result.Errors && result.Errors.length > 0) {
      throw new Error(`could not delete ${result.Errors.length} object(s): ${result.Errors[0]?.Message ?? "unknown reason"}`);
    }
  }
}

/** Every key under a prefix, page by page. */
export interface StoredObject {
  key: string;
  lastModified: Date | undefined;
}

/** Pages of objects under a prefix with their last-modified times. */
export async function* listObjectPages(prefix: string): AsyncGenerator<StoredObject[]> {
  let token: string | undefined;
  do {
    const page = await s3().send(new ListObjectsV2Command({ Bucket: config.bucketName(), Prefix: prefix, ContinuationToken: token }));
    const objects = (page.Contents ?? []).flatMap((object) => (object.Key ? [{ key: object.Key, lastModified: object.LastModified }] : []));
    if (objects.length > 0) yield objects;
    token = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (token);
}

export async function* listKeys(prefix: string): AsyncGenerator<string[]> {
  for await (const page of listObjectPages(prefix)) yield page.map((object) => object.key);
}

export async function deletePrefix(prefix: string): Promise<number> {
  let deleted = 0;
  for await (const keys of listKeys(prefix)) {
    await deleteObjects(keys);
    deleted += keys.length;
  }
  return deleted;
}
