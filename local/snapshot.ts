import { mkdir, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { existsSync } from "node:fs";
import { dirname } from "node:path";
import { GetObjectCommand, ListObjectsV2Command, PutObjectCommand, type S3Client } from "@aws-sdk/client-s3";
import { SendMessageCommand, type SQSClient } from "@aws-sdk/client-sqs";
import type { Emulator } from "./emulator.ts";
import type { LocalResources } from "./resources.ts";

/**
 * The S3/SQS emulator keeps everything in memory. With a data directory, the local stack saves the
 * bucket's objects and the queues' pending messages when it stops and restores them when it starts
 * (DynamoDB Local persists by itself). A crash between the two loses what the emulator held.
 */
interface Manifest {
  objects: { key: string; file: string; contentType?: string }[];
  messages: Record<string, string[]>;
}

export async function saveSnapshot(
  manifestPath: string,
  clients: { s3: S3Client; sqs: SQSClient },
  resources: LocalResources,
  emulator: Pick<Emulator, "inspectQueue">,
): Promise<void> {
  const objectDir = `${dirname(manifestPath)}/s3`;
  await rm(objectDir, { recursive: true, force: true });
  await mkdir(objectDir, { recursive: true });
  const manifest: Manifest = { objects: [], messages: {} };
  let token: string | undefined;
  do {
    const page = await clients.s3.send(new ListObjectsV2Command({ Bucket: resources.bucketName, ContinuationToken: token }));
    for (const object of page.Contents ?? []) {
      if (!object.Key) continue;
      const got = await clients.s3.send(new GetObjectCommand({ Bucket: resources.bucketName, Key: object.Key }));
      const file = `${manifest.objects.length}`;
      await writeFile(`${objectDir}/${file}`, await got.Body!.transformToByteArray());
      manifest.objects.push({ key: object.Key, file, contentType: got.ContentType });
    }
    token = page.NextContinuationToken;
  } while (token);
  for (const [name, queue] of Object.entries(resources.queues)) {
    const queueName = queue.url.split("/").pop() ?? "";
    const state = await emulator.inspectQueue(queueName);
    if (!state) continue;
    manifest.messages[name] = [
      ...state.messages.ready.map((message) => message.body),
      ...state.messages.delayed.map((message) => message.body),
      ...state.messages.inflight.map((entry) => entry.message.body),
    ];
  }
  await writeFile(manifestPath, JSON.stringify(manifest));
}

export async function restoreSnapshot(
  manifestPath: string,
  clients: { s3: S3Client; sqs: SQSClient },
  resources: LocalResources,
): Promise<void> {
  if (!existsSync(manifestPath)) return;
  const manifest = JSON.parse(await readFile(manifestPath, "utf8")) as Manifest;
  const objectDir = `${dirname(manifestPath)}/s3`;
  const files = new Set(await readdir(objectDir).catch(() => [] as string[]));
  for (const object of manifest.objects) {
    if (!files.has(object.file)) continue;
    await clients.s3.send(
      new PutObjectCommand({
        Bucket: resources.bucketName,
        Key: object.key,
        Body: await readFile(`${objectDir}/${object.file}`),
        ContentType: object.contentType,
      }),
    );
  }
  for (const [name, bodies] of Object.entries(manifest.messages)) {
    const queue = resources.queues[name as keyof LocalResources["queues"]];
    if (!queue) continue;
    for (const body of bodies) await clients.sqs.send(new SendMessageCommand({ QueueUrl: queue.url, MessageBody: body }));
  }
}
