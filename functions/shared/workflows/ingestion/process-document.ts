import { randomUUID } from "node:crypto";
import { config } from "../../platform/env.ts";
import { faultPoint } from "../../platform/fault-points.ts";
import { documentUpdates, getDocument } from "../../db/documents.ts";
import { getIngestJob } from "../../db/ingest-jobs.ts";
import { getNamespace } from "../../db/namespaces.ts";
import type { DocumentRecord, ExtractionCheckpoint, ProcessingCheckpoint, VectorGeneration } from "../../domain/document.ts";
import { DEFAULT_CHUNK_SIZE, type IngestConfig, mergeConfigs } from "../../domain/ingest-config.ts";
import type { NamespaceRecord } from "../../domain/namespace.ts";
import { DELETION_STATUSES, FINAL_STATUSES, QUEUED_STATUSES } from "../../domain/statuses.ts";
import { embedderFor, isEmbeddingError } from "../../embedding/index.ts";
import { chunkText } from "../../text/chunker.ts";
import { DocumentExtractionError } from "../../extraction/extraction-error.ts";
import { enqueue } from "../../queue/send.ts";
import { deleteObjects, getObjectText, putObject } from "../../storage/objects.ts";
import { chunksKey, stagingChunksKey, stagingPagesKey } from "../../storage/object-keys.ts";
import type { ExtractedDocument } from "../../extraction/types.ts";
import { vectorStore } from "../../vector-store/index.ts";
import { chunkId, parseVectorKey, vectorKey } from "../../domain/chunks.ts";
import { isVectorValidationError, isZeroVector } from "../../vector-store/limits.ts";
import { documentMetadata } from "./vector-metadata.ts";
import { memoryBudget, memoryNeed } from "./memory-budget.ts";
import { FileFetchError } from "../../fetch/public-url.ts";
import { PermanentFailure, readSource } from "./read-source.ts";
import { chunkPlacements } from "./chunk-placement.ts";
import type { StepBudget } from "../step-budget.ts";
import { partitionOf } from "../../domain/partitions.ts";
import { afterSettled, finishCleanUpOfSettled, failDocument } from "./settlement.ts";
import { embeddingSpace, existingVectors, recordPointers, reusableChunks, type StagedChunks, uniqueTexts } from "./vector-reuse.ts";
import { deleteEmbeddingPointersOf } from "../../db/embedding-pointers.ts";

/** Stop starting new batches when less than this is left of the invocation. */
const SAFETY_MARGIN_MS = 60_000;

/** Time a step keeps, after its last page, to join the extracted pages, chunk them and stage the result. */
const JOIN_AND_CHUNK_MS = 30_000;

/** How long a delivery that steps aside waits before its copy checks that the work got done. */
const STEP_ASIDE_DELAY_SECONDS = 60;

/**
 * Processes one document of a run, or the next part of it. Parsing and chunking happen once and
 * their result is kept as the run's staging chunks file; embedding then advances in batches whose
 * progress is checkpointed, so a crash or a timeout resumes at the last written batch and a long
 * document spans as many invocations as it needs. The new vectors become the document's searchable
 * generation only when the whole run has completed.
 */
export async function processDocument(documentId: string, runId: string, budget: StepBudget): Promise<void> {
  let document = await getDocument(documentId);
  if (!document || document.runId !== runId || DELETION_STATUSES.includes(document.status)) return;
  if (FINAL_STATUSES.includes(document.status)) return afterSettled(document);
  const job = await getIngestJob(document.ingestJobId);
  if (!job || job.runId !== runId || DELETION_STATUSES.includes(job.status)) return;
  const namespace = await getNamespace(document.namespaceId);
  if (!namespace || namespace.status !== "ACTIVE") return;
  const settings = mergeConfigs(job.config, document.config);

  // Documents that would not fit in memory together take turns; one that cannot start before this
  // invocation's time runs out comes back in a later message instead.
  const release = await memoryBudget().acquire(await memoryNeed(document), Math.max(0, budget.remainingMs() - SAFETY_MARGIN_MS));
  if (!release) {
    await enqueue("ingest", { kind: "document", documentId, runId }, STEP_ASIDE_DELAY_SECONDS);
    return;
  }
  try {
    if (QUEUED_STATUSES.includes(document.status)) {
      const started = await documentUpdates.startPreProcessing(document);
      if (!started) return stepAside(document);
      document = started;
    }
    await faultPoint("document:pre-processing");
    let chunksFile: StagedChunks;
    if (document.status === "PRE_PROCESSING") {
      const prepared = await prepareChunks(document, settings, budget);
      if (prepared === "continue") return enqueue("ingest", { kind: "document", documentId, runId });
      if (!prepared) return stepAside(document);
      ({ chunksFile, document } = prepared);
    } else {
      if (document.checkpoint?.runId !== runId) throw new Error(`document ${documentId} is PROCESSING without a checkpoint of its run`);
      const staged = await getObjectText(document.checkpoint.stagingKey);
      if (staged === null) throw new Error(`the staging chunks file of document ${documentId} is missing`);
      chunksFile = JSON.parse(staged) as StagedChunks;
    }
    const progress = await embedFromCheckpoint(document, namespace, chunksFile, budget);
    if (progress === "continue") await enqueue("ingest", { kind: "document", documentId, runId });
    if (progress === "stopped") await stepAside(document);
    if (progress === "done") await complete(document, chunksFile);
  } catch (error) {
    if (!isPermanent(error)) throw error;
    await failDocument(documentId, runId, error instanceof Error ? error.message : String(error));
  } finally {
    release();
  }
}

function isPermanent(error: unknown): boolean {
  return (
    error instanceof PermanentFailure ||
    error instanceof DocumentExtractionError ||
    error instanceof FileFetchError ||
    (isEmbeddingError(error) && !error.retryable)
  );
}

/**
 * True when the document was deleted, moved to another run or failed in this run while this step
 * worked: whatever the step wrote since must be taken back, or it would outlive the document (a
 * failed run's vectors and chunks file are removed once, when it fails).
 */
async function abandoned(document: DocumentRecord): Promise<boolean> {
  const current = await getDocument(document.id);
  return !current || current.runId !== document.runId || DELETION_STATUSES.includes(current.status) || current.status === "FAILED";
}

/**
 * A delivery that finds another one ahead of it on the same run stops, but leaves a delayed copy of
 * its message behind: the other may be a duplicate delivery of this very message (SQS delivers at
 * least once, and again when a step outlives the visibility timeout), and if it died after this
 * one was acknowledged, nothing would be left to finish the run. The copy finds the work done, or
 * resumes it from the checkpoint.
 */
async function stepAside(document: DocumentRecord): Promise<void> {
  if (await abandoned(document)) return;
  await enqueue("ingest", { kind: "document", documentId: document.id, runId: document.runId }, STEP_ASIDE_DELAY_SECONDS);
}

/**
 * Parses and chunks the source, stages the result and moves to PROCESSING; `continue` when a long
 * paged file has more pages to read in the next step; null when another delivery got there first.
 */
async function prepareChunks(
  document: DocumentRecord,
  settings: IngestConfig,
  budget: StepBudget,
): Promise<{ chunksFile: StagedChunks; document: DocumentRecord } | "continue" | null> {
  // Extraction must leave the step time to stage its result; a file (or one page) that needs more fails.
  const deadlineMs = Date.now() + budget.remainingMs() - SAFETY_MARGIN_MS;
  const read = await readSource(document, settings, { deadlineMs, stopAtMs: deadlineMs - JOIN_AND_CHUNK_MS });
  if (read.kind === "partial") return (await saveExtractedPages(document, read.part, read.checkpoint)) ? "continue" : null;
  const { extracted, properties } = read;
  const chunkSize = Math.min(settings.chunkSize ?? DEFAULT_CHUNK_SIZE, settings.maxChunkSize ?? Number.POSITIVE_INFINITY);
  // A chunk of whitespace alone (a long run of spaces the chunker could not join to text) has
  // nothing to find and nothing to embed: a provider would return a zero vector, which S3 Vectors
  // refuses. Such chunks are left out before numbering.
  const chunks = chunkText(
    extracted.text,
    {
      chunkSize,
      chunkOverlap: settings.chunkOverlap ?? 0,
      maxChunkSize: settings.maxChunkSize,
      delimiter: settings.delimiter,
      strategy: settings.chunkingStrategy ?? "basic",
      languageCode: settings.languageCode,
    },
    extracted.pageOffsets,
  ).filter((chunk) => chunk.text.trim() !== "");
  if (chunks.length === 0) {
    // An image whose OCR could not run is empty for a reason the notes give; say it rather than "no text".
    throw new PermanentFailure(["the document contains no text", ...extracted.notes].join("; "));
  }
  const totalCharacters = chunks.reduce((sum, chunk) => sum + chunk.text.length, 0);
  const placements = chunkPlacements(chunks, extracted);
  const reuse = await reusableChunks(document, chunks);
  const chunksFile: StagedChunks = {
    metadata: documentMetadata(document, settings),
    total_chunks: chunks.length,
    total_characters: totalCharacters,
    chunks: chunks.map((chunk, sequence) => ({
      id: chunkId(document.id, sequence),
      text: chunk.text,
      metadata: { sequence_number: sequence, ...placements[sequence] },
    })),
    ...(reuse ? { reuse } : {}),
  };
  const stagingKey = stagingChunksKey(document.namespaceId, document.id, document.runId, randomUUID());
  await putObject(stagingKey, JSON.stringify(chunksFile), "application/json");
  await faultPoint("document:chunks-staged");
  const checkpoint: ProcessingCheckpoint = {
    runId: document.runId,
    stagingKey,
    embedded: 0,
    totalChunks: chunks.length,
    totalCharacters,
    totalPages: extracted.totalPages ?? extracted.pageOffsets?.length ?? Math.ceil(totalCharacters / 1000),
    tokens: 0,
  };
  const moved = await documentUpdates.startProcessing(document, { properties, checkpoint });
  if (moved) return { chunksFile, document: moved };
  // Another delivery staged its own file and moved first; it carries on with that one.
  await deleteObjects([stagingKey]);
  return null;
}

/**
 * Stages the pages one step read and moves the extraction checkpoint past them, conditional on no
 * other delivery having moved it first (its pages are then the ones kept; ours are dropped).
 */
async function saveExtractedPages(document: DocumentRecord, part: ExtractedDocument, checkpoint: ExtractionCheckpoint): Promise<boolean> {
  const key = stagingPagesKey(document.namespaceId, document.id, document.runId, randomUUID(), part.firstPage ?? 1);
  await putObject(key, JSON.stringify(part), "application/json");
  const previous = document.extraction?.runId === document.runId ? document.extraction : null;
  const moved = await documentUpdates.saveExtraction(document, { ...checkpoint, parts: [...checkpoint.parts, key] }, previous?.nextPage ?? null);
  await faultPoint("document:pages-staged");
  if (!moved) {
    // A copy of a fetched file made by this step is ours to remove as well; an upload never is.
    const copiedSource = !previous && document.source.type === "FILE";
    await deleteObjects(copiedSource ? [key, checkpoint.sourceKey] : [key]);
  }
  return moved !== null;
}

/**
 * Embeds and writes batches from the checkpoint on: `done` when every chunk is indexed, `continue`
 * when the step budget ran out, `stopped` when another delivery or a deletion took the document over.
 */
async function embedFromCheckpoint(
  document: DocumentRecord,
  namespace: NamespaceRecord,
  chunksFile: StagedChunks,
  budget: StepBudget,
): Promise<"done" | "continue" | "stopped"> {
  const checkpoint = document.checkpoint!;
  const embedder = await embedderFor(namespace.embeddingConfig);
  const store = (await vectorStore());
  const partition = partitionOf(document, namespace);
  const space = embeddingSpace(document, namespace, embedder.dimension);
  const stepLimit = checkpoint.embedded + config.ingestStepMaxChunks();
  let embedded = checkpoint.embedded;
  let tokens = checkpoint.tokens;
  while (embedded < chunksFile.chunks.length) {
    if (embedded >= stepLimit || budget.remainingMs() < SAFETY_MARGIN_MS) return "continue";
    const batch = chunksFile.chunks.slice(embedded, Math.min(embedded + embedder.maxBatch, stepLimit));
    // A chunk whose text already has a vector in the partition takes it; only the rest is embedded, each text once.
    const found = await existingVectors(store, partition, document, space, chunksFile.reuse, batch);
    const vectors = found.vectors;
    const fresh = batch.filter((chunk) => !vectors.has(chunk.metadata.sequence_number));
    const unique = uniqueTexts(fresh);
    const result = unique.texts.length > 0 ? await embedder.embedDocuments(unique.texts) : { vectors: [], tokens: 0 };
    fresh.forEach((chunk, index) => vectors.set(chunk.metadata.sequence_number, result.vectors[unique.indexOf[index]!]!));
    const records = batch.map((chunk) => ({
      key: vectorKey(document.id, document.runId, chunk.metadata.sequence_number),
      vector: vectors.get(chunk.metadata.sequence_number)!,
      text: chunk.text,
      metadata: { ...chunksFile.metadata, ...chunk.metadata },
    }));
    // A zero vector has no direction: cosine search cannot rank it and S3 Vectors refuses it, so
    // the document fails with the reason rather than the batch failing on every retry.
    const pointless = records.find((record) => isZeroVector(record.vector));
    if (pointless) {
      throw new PermanentFailure(
        `chunk ${parseVectorKey(pointless.key)?.sequence ?? "?"} has nothing the embedding model could represent (it returned a zero vector)`,
      );
    }
    // What the store refuses (over its limits) would be refused on every retry too.
    await store.upsert(partition, records).catch((error: unknown) => {
      throw isVectorValidationError(error) ? new PermanentFailure(`the vector store refused the document's vectors: ${(error as Error).message}`) : error;
    });
    await recordPointers(space, document, batch, found);
    await faultPoint("document:batch-written");
    const advanced = await documentUpdates.advanceCheckpoint(document, { ...checkpoint, embedded: embedded + batch.length, tokens: tokens + result.tokens }, embedded);
    if (!advanced) {
      // Another delivery of this run moved first and carries on (its keys are the same as ours);
      // after a deletion or a newer run, this batch would be left behind, so it is taken back.
      if (await abandoned(document)) {
        await store.deleteKeys(partition, records.map((record) => record.key));
        await deleteEmbeddingPointersOf(document.id);
      }
      return "stopped";
    }
    embedded += batch.length;
    tokens += result.tokens;
  }
  document.checkpoint = { ...checkpoint, embedded, tokens };
  return "done";
}

/**
 * Publishes the run: the chunks file moves into place, then one transaction makes the new vector
 * generation current, retires the previous one and counts the document on its job.
 */
async function complete(document: DocumentRecord, staged: StagedChunks): Promise<void> {
  const checkpoint = document.checkpoint!;
  const { reuse: _reuse, ...chunksFile } = staged;
  await putObject(chunksKey(document.namespaceId, document.id), JSON.stringify(chunksFile), "application/json");
  await faultPoint("document:chunks-published");
  const generation: VectorGeneration = { runId: document.runId, totalChunks: checkpoint.totalChunks };
  const previous = document.generation && document.generation.runId !== document.runId ? document.generation : null;
  const settled = await documentUpdates.complete(document, {
    totalChunks: checkpoint.totalChunks,
    totalCharacters: checkpoint.totalCharacters,
    totalPages: checkpoint.totalPages,
    totalTokens: checkpoint.tokens,
    generation,
    retiredGeneration: previous,
  });
  if (!settled) {
    if (await abandoned(document)) {
      await deleteObjects([chunksKey(document.namespaceId, document.id)]);
      return;
    }
    await finishCleanUpOfSettled(document.id, document.runId);
    return;
  }
  await faultPoint("document:settled");
  await afterSettled(settled);
}

