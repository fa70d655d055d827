import { chunkText } from "../../functions/shared/text/chunker.ts";
import { seededRandom } from "../support.ts";

/**
 * The synthetic corpus of the search-latency benchmark: a Zipf-distributed vocabulary with topics,
 * documents of prose about one main and one side topic, and the queries asked of them; all seeded,
 * so every run ingests and asks the same.
 */
const FUNCTION_WORDS = (
  "the of and to in a is that for it as was with be by on not this are or from at which but have an " +
  "they were there been one all we their has would when if so no will can more other its into only " +
  "some could time these two may then first any now such like over even most made after also many " +
  "before must through back years where much way well down should because each just those people how " +
  "little good very make still own work long here between both being under never day same another " +
  "while last might great old year since against right used take three new team data process report " +
  "system change review plan update result issue support level case part number group order service"
).split(" ");

const ONSETS = ["b", "br", "c", "ch", "cl", "cr", "d", "dr", "f", "fl", "fr", "g", "gl", "gr", "h", "j", "k", "l", "m", "n", "p", "pl", "pr", "qu", "r", "s", "sc", "sh", "sl", "sp", "st", "t", "th", "tr", "v", "w", "wh", "z"];

const NUCLEI = ["a", "e", "i", "o", "u", "ai", "ea", "ee", "ie", "oa", "ou", "y"];

const CODAS = ["", "", "", "n", "r", "l", "s", "t", "nd", "nt", "st", "m", "ck", "ng", "rd", "sh"];

const SUFFIXES = ["", "", "", "", "", "", "", "", "", "tion", "ment", "er", "ness", "al", "ity", "ive", "ous", "ance", "ure", "ize"];

const CATEGORIES = ["finance", "legal", "engineering", "support", "sales", "people", "security", "operations"] as const;

interface Vocabulary {
  /** Frequency-ranked general words: function words first, then made-up words. */
  general: string[];
  generalCumulative: Float64Array;
  /** Per topic, its words in frequency rank order. */
  topics: string[][];
  topicCumulative: Float64Array;
}

function zipfCumulative(size: number, exponent: number, offset: number): Float64Array {
  const cumulative = new Float64Array(size);
  let total = 0;
  for (let rank = 0; rank < size; rank++) {
    total += 1 / (rank + offset) ** exponent;
    cumulative[rank] = total;
  }
  for (let rank = 0; rank < size; rank++) cumulative[rank] = cumulative[rank]! / total;
  return cumulative;
}

function sampleRank(cumulative: Float64Array, roll: number): number {
  let low = 0;
  let high = cumulative.length - 1;
  while (low < high) {
    const mid = (low + high) >> 1;
    if (cumulative[mid]! < roll) low = mid + 1;
    else high = mid;
  }
  return low;
}

/** ~3,000 general words and 48 topics of 24 words: about 4,300 distinct words in all. */
export function buildVocabulary(seed: number, generalSize = 3_000, topicCount = 48, wordsPerTopic = 24): Vocabulary {
  const random = seededRandom(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  const seen = new Set<string>(FUNCTION_WORDS);
  const makeWord = (): string => {
    for (;;) {
      const roll = random();
      const syllables = roll < 0.45 ? 1 : roll < 0.88 ? 2 : 3;
      let word = "";
      for (let i = 0; i < syllables; i++) word += pick(ONSETS) + pick(NUCLEI) + (i === syllables - 1 || random() < 0.3 ? pick(CODAS) : "");
      word += pick(SUFFIXES);
      if (word.length < 4 || word.length > 14 || seen.has(word)) continue;
      seen.add(word);
      return word;
    }
  };
  const general = [...FUNCTION_WORDS];
  while (general.length < generalSize) general.push(makeWord());
  const topics = Array.from({ length: topicCount }, () => Array.from({ length: wordsPerTopic }, makeWord));
  return {
    general,
    generalCumulative: zipfCumulative(general.length, 1.0, 2.7),
    topics,
    topicCumulative: zipfCumulative(wordsPerTopic, 0.8, 1),
  };
}

export interface GeneratedDocument {
  text: string;
  topic: number;
  metadata: { topic: string; category: string; year: number };
}

function topicName(vocabulary: Vocabulary, topic: number): string {
  return `${vocabulary.topics[topic]![0]}-${topic}`;
}

function categoryOf(topic: number): string {
  return CATEGORIES[topic % CATEGORIES.length]!;
}

/** Prose of about `characters` characters about one main topic and one side topic. */
export function generateDocument(vocabulary: Vocabulary, seed: number, characters: number): GeneratedDocument {
  const random = seededRandom(seed);
  const between = (low: number, high: number) => low + Math.floor(random() * (high - low + 1));
  const topic = Math.floor(random() * vocabulary.topics.length);
  const side = Math.floor(random() * vocabulary.topics.length);
  const topicWord = (t: number) => vocabulary.topics[t]![sampleRank(vocabulary.topicCumulative, random())]!;
  const generalWord = () => vocabulary.general[sampleRank(vocabulary.generalCumulative, random())]!;
  const paragraphs: string[] = [];
  let length = 0;
  while (length < characters) {
    const sentences: string[] = [];
    for (let s = between(2, 6); s > 0; s--) {
      const words: string[] = [];
      for (let w = between(7, 22); w > 0; w--) {
        const roll = random();
        let word = roll < 0.16 ? topicWord(topic) : roll < 0.21 ? topicWord(side) : generalWord();
        if (random() < 0.015) word = String(between(2, 2030));
        words.push(word);
      }
      if (words.length > 8 && random() < 0.35) words[between(2, words.length - 4)] += ",";
      const sentence = words.join(" ");
      sentences.push(`${sentence.charAt(0).toUpperCase()}${sentence.slice(1)}${random() < 0.9 ? "." : "?"}`);
    }
    const paragraph = sentences.join(" ");
    paragraphs.push(paragraph);
    length += paragraph.length + 2;
  }
  return {
    text: paragraphs.join("\n\n"),
    topic,
    metadata: { topic: topicName(vocabulary, topic), category: categoryOf(topic), year: 2015 + between(0, 10) },
  };
}

const QUESTION_PREFIXES = ["how do we", "what is the", "why does the", "where can I find the", "explain", "summary of", "when should we", "who owns the"];

export interface BenchQuery {
  query: string;
  topic: number;
  category: string;
}

/**
 * Queries about one topic: two or three of its words (frequent or rare, so the number of matching
 * chunks varies a lot), sometimes a general word, and half the time phrased as a question.
 */
export function generateQueries(vocabulary: Vocabulary, seed: number, count: number): BenchQuery[] {
  const random = seededRandom(seed);
  const queries: BenchQuery[] = [];
  for (let i = 0; i < count; i++) {
    const topic = Math.floor(random() * vocabulary.topics.length);
    const words: string[] = [];
    for (let n = 2 + Math.floor(random() * 2); n > 0; n--) {
      words.push(vocabulary.topics[topic]![sampleRank(vocabulary.topicCumulative, random())]!);
    }
    if (random() < 0.5) words.push(vocabulary.general[60 + Math.floor(random() * 1_500)]!);
    const unique = [...new Set(words)];
    const prefix = random() < 0.5 ? `${QUESTION_PREFIXES[Math.floor(random() * QUESTION_PREFIXES.length)]} ` : "";
    queries.push({ query: `${prefix}${unique.join(" ")}${prefix ? "?" : ""}`, topic, category: categoryOf(topic) });
  }
  return queries;
}

export interface CorpusSpec {
  label: string;
  /** Exact number of chunks the namespace must end up with. */
  chunks: number;
  /** 1: one TEXT job per document; more: BATCH jobs of this many TEXT items. */
  documentsPerJob: number;
  seed: number;
}

export const DEFAULT_CORPORA: readonly CorpusSpec[] = [
  { label: "10k chunks", chunks: 10_000, documentsPerJob: 1, seed: 10_001 },
  { label: "100k chunks", chunks: 100_000, documentsPerJob: 5, seed: 100_001 },
];

export interface PlannedCorpus {
  documents: GeneratedDocument[];
  expectedChunks: number;
  characters: number;
}

/**
 * Documents of about `documentCharacters` each until the chunk target is reached, the last one cut
 * at a chunk end so the namespace holds exactly the target. Chunk counts are predicted with the
 * chunker the worker uses, with the settings the jobs send, and then checked against the API.
 */
export function planCorpus(vocabulary: Vocabulary, spec: CorpusSpec, documentCharacters: number, chunkSize: number): PlannedCorpus {
  const options = { chunkSize, chunkOverlap: 0, strategy: "basic" as const };
  const documents: GeneratedDocument[] = [];
  let chunks = 0;
  for (let index = 0; chunks < spec.chunks; index++) {
    const document = generateDocument(vocabulary, spec.seed * 7_919 + index, documentCharacters);
    const pieces = chunkText(document.text, options);
    const needed = spec.chunks - chunks;
    if (pieces.length > needed) {
      document.text = document.text.slice(0, pieces[needed - 1]!.end);
      const recount = chunkText(document.text, options).length;
      if (recount !== needed) throw new Error(`cutting the last document gave ${recount} chunks, not ${needed}`);
      chunks += needed;
    } else {
      chunks += pieces.length;
    }
    documents.push(document);
  }
  return { documents, expectedChunks: chunks, characters: documents.reduce((sum, document) => sum + document.text.length, 0) };
}
