/**
 * Converts a test collection in the SMART distribution's format (the classic Cornell collections:
 * ADI, CACM, CISI, CRAN, MED, ...) into the compact file bench/ir-collection.ts reads: one gzip'd
 * JSON object {documents: [{id, title, text}], queries: [{id, text}], qrels: [{query, document,
 * relevance}]}. Only the title (.T) and abstract (.W) of a document are kept; authors (.A), dates
 * (.B) and the other fields are dropped, as the usual BM25 runs on these collections index them.
 *
 *   npx tsx scripts/convert-smart-collection.ts --documents ADI.ALL --queries ADI.QRY \
 *     --judgments ADI.REL --out bench/data/adi.json.gz
 */
import { readFileSync, writeFileSync } from "node:fs";
import { gzipSync } from "node:zlib";
import { runWhenMain } from "./cli.ts";

interface SmartRecord {
  id: string;
  fields: Map<string, string>;
}

/** Splits a SMART file into records (`.I n`) of fields (`.T`, `.W`, ...), each field's lines joined. */
export function parseSmart(source: string): SmartRecord[] {
  const records: SmartRecord[] = [];
  let field: string | null = null;
  let repeated = false;
  for (const line of source.split(/\r?\n/)) {
    const marker = /^\.([A-Z])(?:\s+(\S+))?\s*$/.exec(line);
    if (marker && marker[1] === "I") {
      records.push({ id: String(Number(marker[2])), fields: new Map() });
      field = null;
      continue;
    }
    if (marker) {
      field = marker[1]!;
      // A field given twice (ADI document 67 repeats its title) keeps its first text.
      repeated = records[records.length - 1]?.fields.has(field) ?? false;
      continue;
    }
    const record = records[records.length - 1];
    if (!record || field === null || repeated) continue;
    const text = line.trim();
    if (text === "") continue;
    const previous = record.fields.get(field);
    record.fields.set(field, previous === undefined ? text : `${previous} ${text}`);
  }
  return records;
}

/**
 * `query document ...` lines, every pair relevant (grade 1): SMART's REL files list only relevant
 * pairs. A collection with graded judgments needs its own mapping of grades here.
 */
export function parseJudgments(source: string): { query: string; document: string; relevance: number }[] {
  const qrels: { query: string; document: string; relevance: number }[] = [];
  for (const line of source.split(/\r?\n/)) {
    const [query, document] = line.trim().split(/\s+/);
    if (!query || !document) continue;
    qrels.push({ query: String(Number(query)), document: String(Number(document)), relevance: 1 });
  }
  return qrels;
}

function option(argv: string[], name: string): string {
  const index = argv.indexOf(`--${name}`);
  const value = index === -1 ? undefined : argv[index + 1];
  if (!value) throw new Error(`--${name} <file> is required`);
  return value;
}

/** The collection as bench/ir-collection.ts reads it, from the three SMART files' texts. */
export function convertSmart(documentsSource: string, queriesSource: string, judgmentsSource: string) {
  const documents = parseSmart(documentsSource).map((record) => {
    const title = record.fields.get("T") ?? "";
    const body = record.fields.get("W") ?? "";
    return { id: record.id, title, text: [title, body].filter(Boolean).join("\n\n") };
  });
  // Query ids are renumbered 1..n in file order: Cranfield's .I numbers skip values while its
  // judgments count the queries in order; for ADI, CISI and MED the two agree anyway.
  const queries = parseSmart(queriesSource).map((record, index) => ({ id: String(index + 1), text: record.fields.get("W") ?? "" }));
  const qrels = parseJudgments(judgmentsSource);
  const known = new Set(documents.map((document) => document.id));
  const unknown = qrels.filter((qrel) => !known.has(qrel.document));
  if (unknown.length > 0) throw new Error(`${unknown.length} judgments name documents the collection does not have`);
  return { documents, queries, qrels };
}

runWhenMain(import.meta.url, async (argv) => {
  const read = (name: string) => readFileSync(option(argv, name), "utf8");
  const collection = convertSmart(read("documents"), read("queries"), read("judgments"));
  const out = option(argv, "out");
  writeFileSync(out, gzipSync(Buffer.from(JSON.stringify(collection)), { level: 9 }));
  console.log(`${out}: ${collection.documents.length} documents, ${collection.queries.length} queries, ${collection.qrels.length} judgments`);
  return 0;
});
