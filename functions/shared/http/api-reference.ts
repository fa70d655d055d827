/**
 * The API reference page: plain HTML rendered on the server from the OpenAPI document, so it works
 * without JavaScript, without a CDN and offline on the local stack, and stays a few kilobytes in the
 * function (Swagger UI or Redoc would ship a megabyte or more of script to every visitor and into
 * the bundle). Generated clients and interactive tools read /openapi.json directly.
 */

import { escapeHtml } from "./html.ts";

type Json = Record<string, unknown>;

interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  description?: string;
  schema?: Json;
}

interface Operation {
  operationId: string;
  summary?: string;
  description?: string;
  tags?: string[];
  security?: unknown[];
  parameters?: Parameter[];
  requestBody?: { content: Record<string, { schema: Json }> };
  responses: Record<string, { description?: string; content?: Record<string, { schema: Json }> }>;
}

const METHODS = ["get", "post", "put", "patch", "delete"] as const;

/** `code spans` of the descriptions, and nothing else of Markdown. */
function inline(text: string): string {
  return escapeHtml(text).replace(/`([^`]+)`/g, "<code>$1</code>");
}

/** A one-line reading of a schema for tables: `string (pattern ^ns_…)`, `integer 1–100, default 30`. */
function describeSchema(schema: Json | undefined): string {
  if (!schema) return "";
  if (typeof schema.$ref === "string") return schema.$ref.split("/").pop()!;
  const parts: string[] = [];
  if (Array.isArray(schema.enum)) parts.push(schema.enum.map((value) => JSON.stringify(value)).join(" | "));
  else if (schema.type) parts.push(String(schema.type));
  if (schema.pattern) parts.push(`pattern ${schema.pattern}`);
  if (schema.minimum !== undefined || schema.maximum !== undefined) parts.push(`${schema.minimum ?? ""}–${schema.maximum ?? ""}`);
  if (schema.default !== undefined) parts.push(`default ${JSON.stringify(schema.default)}`);
  return parts.join(", ");
}

function schemaBlock(label: string, schema: Json): string {
  return `<details><summary>${escapeHtml(label)}</summary><pre><code>${escapeHtml(JSON.stringify(schema, null, 2))}</code></pre></details>`;
}

function renderOperation(method: string, path: string, operation: Operation): string {
  const parts = [
    `<section class="operation" id="${escapeHtml(operation.operationId)}" aria-labelledby="${escapeHtml(operation.operationId)}-title">`,
    `<h3 id="${escapeHtml(operation.operationId)}-title"><span class="method method-${method}">${method.toUpperCase()}</span> <code>${escapeHtml(path)}</code></h3>`,
    `<p>${inline(operation.summary ?? "")}${operation.security?.length === 0 ? " <strong>No key needed.</strong>" : ""}</p>`,
  ];
  if (operation.description) parts.push(`<p>${inline(operation.description)}</p>`);
  if (operation.parameters?.length) {
    parts.push(
      `<table><caption>Parameters</caption><thead><tr><th scope="col">Name</th><th scope="col">In</th><th scope="col">Required</th><th scope="col">Schema</th></tr></thead><tbody>`,
      ...operation.parameters.map(
        (parameter) =>
          `<tr><td><code>${escapeHtml(parameter.name)}</code></td><td>${escapeHtml(parameter.in)}</td><td>${parameter.required ? "yes" : "no"}</td><td>${escapeHtml(describeSchema(parameter.schema))}${parameter.description ? ` (${inline(parameter.description)})` : ""}</td></tr>`,
      ),
      `</tbody></table>`,
    );
  }
  const body = operation.requestBody?.content["application/json"]?.schema;
  if (body) parts.push(schemaBlock("Request body (application/json)", body));
  parts.push(
    `<table><caption>Responses</caption><thead><tr><th scope="col">Status</th><th scope="col">Meaning</th><th scope="col">Body</th></tr></thead><tbody>`,
    ...Object.entries(operation.responses).map(([status, response]) => {
      const [type, content] = Object.entries(response.content ?? {})[0] ?? [];
      const data = (content?.schema.properties as Json | undefined)?.data as Json | undefined;
      const body = data ? (data.type === "array" ? `array of ${describeSchema(data.items as Json)}` : describeSchema(data)) : describeSchema(content?.schema);
      return `<tr><td>${escapeHtml(status)}</td><td>${inline(response.description ?? "")}</td><td>${escapeHtml(body || type || "")}</td></tr>`;
    }),
    `</tbody></table>`,
    `</section>`,
  );
  return parts.join("\n");
}

export function renderApiReference(document: Json): string {
  const info = (document.info ?? {}) as { title?: string; version?: string; description?: string };
  const paths = (document.paths ?? {}) as Record<string, Partial<Record<(typeof METHODS)[number], Operation>>>;
  const schemas = ((document.components as Json | undefined)?.schemas ?? {}) as Record<string, Json>;
  const byTag = new Map<string, string[]>();
  const nav = new Map<string, string[]>();
  for (const [path, item] of Object.entries(paths)) {
    for (const method of METHODS) {
      const operation = item[method];
      if (!operation) continue;
      const tag = operation.tags?.[0] ?? "Other";
      (byTag.get(tag) ?? byTag.set(tag, []).get(tag)!).push(renderOperation(method, path, operation));
      (nav.get(tag) ?? nav.set(tag, []).get(tag)!).push(
        `<li><a href="#${escapeHtml(operation.operationId)}">${method.toUpperCase()} ${escapeHtml(path)}</a></li>`,
      );
    }
  }
  const title = escapeHtml(info.title ?? "API reference");
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
<style>
body { font: 16px/1.5 system-ui, sans-serif; color: #1a1a1a; background: #fff; margin: 0; }
.layout { display: grid; grid-template-columns: minmax(14rem, 20rem) 1fr; }
nav { border-right: 1px solid #ccc; padding: 1rem; position: sticky; top: 0; max-height: 100vh; overflow: auto; }
nav ul { list-style: none; padding-left: 0; font-size: 0.9rem; }
main { padding: 1rem 2rem; max-width: 60rem; }
a { color: #0b57d0; }
a:focus, summary:focus { outline: 3px solid #0b57d0; outline-offset: 2px; }
code, pre { font-family: ui-monospace, monospace; }
pre { background: #f4f4f4; padding: 0.75rem; overflow: auto; }
table { border-collapse: collapse; margin: 0.5rem 0 1rem; width: 100%; }
caption { text-align: left; font-weight: 600; }
th, td { border: 1px solid #ccc; padding: 0.3rem 0.5rem; text-align: left; vertical-align: top; }
.operation { border-top: 1px solid #ccc; padding-top: 0.5rem; }
.method { display: inline-block; min-width: 4.5rem; font-weight: 700; color: #fff; background: #1f4e79; padding: 0 0.4rem; border-radius: 3px; text-align: center; }
.method-post { background: #1b5e20; } .method-delete { background: #8b1a1a; } .method-patch, .method-put { background: #6a3d00; }
@media (max-width: 48rem) { .layout { grid-template-columns: 1fr; } nav { position: static; max-height: none; border-right: 0; } }
</style>
</head>
<body>
<div class="layout">
<nav aria-label="Operations">
<p><a href="#top">${title}</a></p>
${[...nav].map(([tag, items]) => `<h2>${escapeHtml(tag)}</h2>\n<ul>${items.join("")}</ul>`).join("\n")}
<h2>Schemas</h2><ul>${Object.keys(schemas).map((name) => `<li><a href="#schema-${escapeHtml(name)}">${escapeHtml(name)}</a></li>`).join("")}</ul>
</nav>
<main id="top">
<h1>${title} <small>${escapeHtml(info.version ?? "")}</small></h1>
<p>${inline(info.description ?? "")}</p>
<p>Authenticate with <code>Authorization: Bearer &lt;API key&gt;</code>. The machine-readable contract: <a href="openapi.json">openapi.json</a> (OpenAPI 3.1).</p>
${[...byTag].map(([tag, sections]) => `<h2>${escapeHtml(tag)}</h2>\n${sections.join("\n")}`).join("\n")}
<h2>Schemas</h2>
${Object.entries(schemas).map(([name, schema]) => `<section id="schema-${escapeHtml(name)}"><h3>${escapeHtml(name)}</h3>${schemaBlock(`${name} schema`, schema)}</section>`).join("\n")}
</main>
</div>
</body>
</html>
`;
}
