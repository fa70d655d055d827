/**
 * Retrieval-quality benchmark: a labelled evaluation the script builds itself, so a change to
 * chunking, keyword scoring, embeddings or fusion can be judged by numbers. 3,000 documents of
 * prose; 200 of them carry one planted fact each ("The Vantrel relay in Lisbon is recalibrated
 * every 37 days by the night shift."), and 400 others mention the same made-up names without the
 * fact, as distractors. Each fact is asked twice: literally (the fact's own words) and in paraphrase
 * (only the name kept, the rest in other words). The relevant chunk is the one holding the fact.
 * Everything goes through the HTTP API of the local stack (LOCAL embedder, embedded vector store).
 * No reranking model can be reached here, so "hybrid + rerank" reranks through the Cohere protocol
 * against a server on 127.0.0.1 that scores by the query's words (test/support/rerank-providers.ts):
 * a stand-in that exercises the path (50 hybrid candidates, best 10 kept), not a model's quality.
 *
 *   npx tsx bench/retrieval-quality.ts [--documents 3000] [--facts 200]
 *
 * Reports recall@10 and MRR@10 per search mode and phrasing, and how the two ways of fusing the
 * keyword and semantic lists compare (S3 Vectors' own RRF, and the relative-score fusion search
 * uses at several semantic weights), computed from the same two top-100 lists; writes
 * bench/results/retrieval-quality.json.
 */
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { MAX_BATCH_ITEMS } from "../functions/shared/domain/ingest-job.ts";
import { startLocalStack } from "../local/stack.ts";
import { fuse } from "../functions/shared/workflows/search.ts";
import { startRerankProviders } from "../test/support/rerank-providers.ts";
import { argument, numberArgument, benchApi, createNamespace, generateProse, isEntryPoint, newOrganizationKey, saveResults, seededRandom, waitForJobs, startRun } from "./support.ts";

const DEFAULT_RESULTS_FILE = fileURLToPath(new URL("./results/retrieval-quality.json", import.meta.url));
const MODES = ["keyword", "semantic", "hybrid", "hybrid + rerank"] as const;
const K = 10;
/** Candidates the reranker sees in the rerank row; the best K of them are scored. */
const RERANK_CANDIDATES = 50;

const DEVICES = ["relay", "valve", "gateway", "turbine", "scanner", "router", "boiler", "compressor"];
const CITIES = ["Lisbon", "Oslo", "Nairobi", "Osaka", "Quito", "Tallinn", "Perth", "Lyon"];
const TEAMS = ["night shift", "field team", "vendor", "site lead", "facilities crew", "on-call engineer"];
// Each fact's action, in its own words and in another's: the paraphrase keeps none of the words.
const ACTIONS: [literal: string, paraphrase: string][] = [
  ["recalibrated", "how often does someone adjust the settings of"],
  ["inspected", "how frequently does anyone examine"],
  ["replaced", "after what interval is a new one swapped in for"],
  ["cleaned", "how regularly is the dirt removed from"],
  ["tested", "what is the check cadence for"],
];

interface Fact {
  name: string;
  document: number;
  sentence: string;
  literal: string;
  paraphrase: string;
}

function makeName(random: () => number, used: Set<string>): string {
  const onsets = ["v", "z", "k", "tr", "qu", "br", "dr", "pl", "sk", "gr"];
  const vowels = ["a", "e", "i", "o", "u", "ae", "io"];
  const codas = ["n", "rt", "l", "x", "ss", "m", "nd"];
  for (;;) {
    const part = () => `${onsets[Math.floor(random() * onsets.length)]}${vowels[Math.floor(random() * vowels.length)]}${codas[Math.floor(random() * codas.length)]}`;
    const name = `${part()}${part()}`;
    const capitalised = `${name.charAt(0).toUpperCase()}${name.slice(1)}`;
    if (!used.has(capitalised)) {
      used.add(capitalised);
      return capitalised;
    }
  }
}

export function buildCorpus(documents: number, factCount: number): { texts: string[]; facts: Fact[] } {
  const random = seededRandom(4242);
  const texts = Array.from({ length: documents }, (_, index) => generateProse(70_000 + index, 1_200, 2_400));
  const used = new Set<string>();
  const facts: Fact[] = [];
  const step = Math.floor(documents / factCount);
  for (let index = 0; index < factCount; index++) {
    const name = makeName(random, used);
    const device = DEVICES[index % DEVICES.length]!;
    const city = CITIES[Math.floor(random() * CITIES.length)]!;
    const [action, askedOtherwise] = ACTIONS[index % ACTIONS.length]!;
    const days = 7 + Math.floor(random() * 80);
    const team = TEAMS[Math.floor(random() * TEAMS.length)]!;
    const sentence = `The ${name} ${device} in ${city} is ${action} every ${days} days by the ${team}.`;
    const document = index * step;
    // The fact lands in the middle of its document, between two paragraphs.
    const paragraphs = texts[document]!.split("\n\n");
    paragraphs.splice(Math.floor(paragraphs.length / 2), 0, sentence);
    texts[document] = paragraphs.join("\n\n");
    // Two distractors name the same thing without the fact.
    for (const offset of [1, 2]) {
      const other = (document + offset * 7) % documents;
      texts[other] = `${texts[other]}\n\nThe ${name} ${device} was mentioned in the quarterly newsletter of the ${city} office.`;
    }
    facts.push({
      name,
      document,
      sentence,
      literal: `How often is the ${name} ${device} in ${city} ${action}?`,
      paraphrase: `${askedOtherwise} ${name}?`,
    });
  }
  return { texts, facts };
}

export interface QualityRow {
  mode: (typeof MODES)[number];
  phrasing: "literal" | "paraphrase";
  queries: number;
  recallAt10: number;
  mrrAt10: number;
}

export interface FusionRow {
  fusion: string;
  phrasing: "literal" | "paraphrase";
  mrrAt10: number;
}

type Listed = { id: string; score: number; text: string }[];

/** Reciprocal rank fusion as S3 Vectors documents it for hybrid queries (k = 60). */
function rrf(semantic: Listed, keyword: Listed): Listed {
  const fused = new Map<string, { id: string; score: number; text: string }>();
  for (const list of [semantic, keyword]) {
    list.forEach((entry, rank) => {
      const found = fused.get(entry.id) ?? { ...entry, score: 0 };
      found.score += 1 / (60 + rank + 1);
      fused.set(entry.id, found);
    });
  }
  return [...fused.values()].sort((a, b) => b.score - a.score);
}

/** The relative-score fusion of workflows/search.ts (`fuse`), on the lists as the API scored them. */
function relative(semantic: Listed, keyword: Listed, weight: number): Listed {
  const wire = (list: Listed) =>
    list.map((entry) => {
      const [documentId, sequence] = entry.id.split("#");
      return { documentId: documentId!, runId: "", sequence: Number(sequence), text: entry.text, metadata: {}, score: entry.score };
    });
  return fuse(wire(semantic), wire(keyword), weight).map((candidate) => ({ id: `${candidate.documentId}#${candidate.sequence}`, score: candidate.score, text: candidate.text }));
}

const FUSION_WEIGHTS = [0, 0.05, 0.1, 0.2, 0.3, 0.5];

function markdownTable(rows: readonly QualityRow[]): string {
  const lines = ["| mode | phrasing | queries | recall@10 | MRR@10 |", "|---|---|---:|---:|---:|"];
  for (const row of rows) lines.push(`| ${row.mode} | ${row.phrasing} | ${row.queries} | ${row.recallAt10.toFixed(3)} | ${row.mrrAt10.toFixed(3)} |`);
  return lines.join("\n");
}

export async function runRetrievalQualityBench(options: { documents?: number; facts?: number; resultsFile?: string | null; log?: (line: string) => void } = {}) {
  const log = options.log ?? console.log;
  const { texts, facts } = buildCorpus(options.documents ?? 3_000, options.facts ?? 200);
  const run = startRun();
  const reranker = await startRerankProviders();
  const stack = await startLocalStack({
    workerConcurrency: 4,
    rateLimit: { ratePerSecond: 10_000, burst: 10_000 },
    env: { RERANKER_BASE_URLS: JSON.stringify({ COHERE: reranker.baseUrl }) },
  });
  try {
    const { key } = await newOrganizationKey(`bench-quality-${Date.now()}`);
    const api = benchApi(stack.baseUrl, key);
    const namespaceId = await createNamespace(api, "quality", { rerankingConfig: { provider: "COHERE", apiKey: "local-bench-key", model: "rerank-v3.5" } });
    const base = `/v1/namespace/${namespaceId}`;
    const began = performance.now();
    const jobIds: string[] = [];
    for (let start = 0; start < texts.length; start += MAX_BATCH_ITEMS) {
      const items = texts.slice(start, start + MAX_BATCH_ITEMS).map((text, offset) => ({ type: "TEXT", text, fileName: `doc-${start + offset}.txt` }));
      const job = await api.expect<{ data: { id: string } }>(201, "POST", `${base}/ingest-jobs`, { payload: { type: "BATCH", items }, config: { chunkSize: 1024 } });
      jobIds.push(job.body.data.id);
    }
    await waitForJobs(api, base, jobIds);
    log(`ingested ${texts.length} documents in ${((performance.now() - began) / 1000).toFixed(1)} s`);

    const rows: QualityRow[] = [];
    for (const mode of MODES) {
      for (const phrasing of ["literal", "paraphrase"] as const) {
        let found = 0;
        let reciprocal = 0;
        for (const fact of facts) {
          const request =
            mode === "hybrid + rerank"
              ? { query: fact[phrasing], mode: "hybrid", topK: RERANK_CANDIDATES, rerank: true, rerankLimit: K }
              : { query: fact[phrasing], mode, topK: K, rerank: false };
          const response = await api.expect<{ data: { text: string }[] }>(200, "POST", `${base}/search`, request);
          if (request.rerank && response.headers.get("x-rerank") !== "reranked") throw new Error(`the search was not reranked: ${response.headers.get("x-rerank")}`);
          const rank = response.body.data.findIndex((result) => result.text.includes(fact.sentence));
          if (rank >= 0) {
            found += 1;
            reciprocal += 1 / (rank + 1);
          }
        }
        rows.push({ mode, phrasing, queries: facts.length, recallAt10: found / facts.length, mrrAt10: reciprocal / facts.length });
        log(`${mode}, ${phrasing}: recall@10 ${(found / facts.length).toFixed(3)}, MRR@10 ${(reciprocal / facts.length).toFixed(3)}`);
      }
    }
    // The two lists once more, 100 each, fused here in every way compared.
    const fusionRows: FusionRow[] = [];
    for (const phrasing of ["literal", "paraphrase"] as const) {
      const reciprocal = new Map<string, number>();
      for (const fact of facts) {
        const list = async (mode: string) =>
          (await api.expect<{ data: Listed }>(200, "POST", `${base}/search`, { query: fact[phrasing], mode, topK: 100, rerank: false })).body.data;
        const [semantic, keyword] = [await list("semantic"), await list("keyword")];
        const fusions: [string, Listed][] = [
          ["keyword alone", keyword],
          ["semantic alone", semantic],
          ["RRF (k = 60, S3 Vectors' hybrid)", rrf(semantic, keyword)],
          ...FUSION_WEIGHTS.map((weight): [string, Listed] => [`relative score, semantic weight ${weight}`, relative(semantic, keyword, weight)]),
        ];
        for (const [name, fused] of fusions) {
          const rank = fused.slice(0, K).findIndex((result) => result.text.includes(fact.sentence));
          reciprocal.set(name, (reciprocal.get(name) ?? 0) + (rank >= 0 ? 1 / (rank + 1) : 0));
        }
      }
      for (const [fusion, sum] of reciprocal) fusionRows.push({ fusion, phrasing, mrrAt10: sum / facts.length });
    }
    const fusionMarkdown = [
      "| fusion of the top-100 lists | MRR@10 literal | MRR@10 paraphrase |",
      "|---|---:|---:|",
      ...[...new Set(fusionRows.map((row) => row.fusion))].map((fusion) => {
        const of = (phrasing: string) => fusionRows.find((row) => row.fusion === fusion && row.phrasing === phrasing)!.mrrAt10.toFixed(3);
        return `| ${fusion} | ${of("literal")} | ${of("paraphrase")} |`;
      }),
    ].join("\n");
    log(fusionMarkdown);

    const partial = {
      benchmark: "retrieval-quality" as const,
      ...run.conditions(),
      documents: texts.length,
      facts: facts.length,
      embedder: "LOCAL (local-hash-384)",
      reranker: `Cohere protocol, word-overlap scorer on 127.0.0.1; ${RERANK_CANDIDATES} hybrid candidates, best ${K} kept`,
      rows,
      fusionRows,
    };
    const report = { ...partial, markdown: `${markdownTable(rows)}\n\n${fusionMarkdown}` };
    log(report.markdown);
    saveResults(options.resultsFile, DEFAULT_RESULTS_FILE, report, log);
    return report;
  } finally {
    await stack.stop();
    await reranker.close();
  }
}

if (isEntryPoint(import.meta.url)) {
  await runRetrievalQualityBench({
    documents: numberArgument("documents"),
    facts: numberArgument("facts"),
    resultsFile: argument("results"),
  });
  process.exit(0);
}
