import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import ts from "typescript";

/**
 * The import graph of the project's TypeScript sources, read with the TypeScript compiler's own
 * pre-processor (no type checking, so it takes a second). Paths are relative to the project root
 * with forward slashes. Static imports and re-exports are edges; `import()` expressions are
 * recorded apart, since a lazily loaded module is not part of its importer's load.
 */
export interface ModuleImports {
  /** Project files imported statically (import/export ... from). */
  files: string[];
  /** Those of `files` imported for their types only (erased when compiled, so never loaded). */
  typeOnlyFiles: string[];
  /** Project files loaded with import(). */
  lazyFiles: string[];
  /** Bare specifiers (packages, node: modules), static and lazy alike. */
  packages: string[];
}

export type ImportGraph = Map<string, ModuleImports>;

export function readImportGraph(root: string, folders: string[]): ImportGraph {
  const graph: ImportGraph = new Map();
  for (const folder of folders) {
    for (const file of sourceFiles(join(root, folder))) {
      const name = relative(root, file).split("\\").join("/");
      graph.set(name, importsOf(root, file));
    }
  }
  return graph;
}

function sourceFiles(dir: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) found.push(...sourceFiles(path));
    else if (entry.name.endsWith(".ts") && !entry.name.endsWith(".d.ts")) found.push(path);
  }
  return found;
}

function importsOf(root: string, file: string): ModuleImports {
  const text = readFileSync(file, "utf8");
  const info = ts.preProcessFile(text, true, true);
  const lazy = new Set(lazySpecifiers(text));
  const result: ModuleImports = { files: [], typeOnlyFiles: [], lazyFiles: [], packages: [] };
  const typeOnly = typeOnlySpecifiers(text);
  for (const { fileName } of info.importedFiles) {
    if (fileName.startsWith(".")) {
      const target = relative(root, resolve(dirname(file), fileName)).split("\\").join("/");
      const isLazy = lazy.has(fileName) && !staticSpecifiers(text).has(fileName);
      (isLazy ? result.lazyFiles : result.files).push(target);
      if (!isLazy && typeOnly.has(fileName)) result.typeOnlyFiles.push(target);
    } else {
      result.packages.push(fileName);
    }
  }
  return result;
}

/** Specifiers every import or re-export of which is `import type` / `export type` (or lists only `type` names). */
function typeOnlySpecifiers(text: string): Set<string> {
  const verdicts = new Map<string, boolean>();
  for (const match of text.matchAll(/^(import|export)\s+(type\s+)?(\{[^}]*\}|\*(?:\s+as\s+\w+)?|\w+)(?:\s*,\s*\{[^}]*\})?\s+from\s+["']([^"']+)["']/gm)) {
    const [, , typeKeyword, clause, specifier] = match;
    const names = clause!.startsWith("{") ? clause!.slice(1, -1).split(",").map((name) => name.trim()).filter(Boolean) : [];
    const onlyTypes = Boolean(typeKeyword) || (names.length > 0 && names.every((name) => name.startsWith("type ")));
    verdicts.set(specifier!, (verdicts.get(specifier!) ?? true) && onlyTypes);
  }
  return new Set([...verdicts].filter(([, only]) => only).map(([specifier]) => specifier));
}

function lazySpecifiers(text: string): string[] {
  return [...text.matchAll(/\bimport\(\s*["']([^"']+)["']\s*\)/g)].map((match) => match[1]!);
}

function staticSpecifiers(text: string): Set<string> {
  return new Set([...text.matchAll(/\b(?:from|import)\s+["']([^"']+)["']/g)].map((match) => match[1]!));
}

/** Every cycle's members, one list per strongly connected component of more than one node (or a self-loop). */
export function cycles(edges: Map<string, Iterable<string>>): string[][] {
  let index = 0;
  const indexes = new Map<string, number>();
  const lowlinks = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string) => {
    indexes.set(node, index);
    lowlinks.set(node, index);
    index += 1;
    stack.push(node);
    onStack.add(node);
    for (const next of edges.get(node) ?? []) {
      if (!indexes.has(next)) {
        visit(next);
        lowlinks.set(node, Math.min(lowlinks.get(node)!, lowlinks.get(next)!));
      } else if (onStack.has(next)) {
        lowlinks.set(node, Math.min(lowlinks.get(node)!, indexes.get(next)!));
      }
    }
    if (lowlinks.get(node) === indexes.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      const selfLoop = [...(edges.get(node) ?? [])].includes(node);
      if (component.length > 1 || selfLoop) found.push(component.sort());
    }
  };
  for (const node of edges.keys()) if (!indexes.has(node)) visit(node);
  return found;
}
