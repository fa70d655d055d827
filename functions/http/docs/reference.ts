import { renderApiReference } from "../../shared/http/api-reference.ts";
import { httpHandler } from "../../shared/http/handler.ts";
import * as route from "./reference.route.ts";
import document from "./openapi.json" with { type: "json" };

const page = renderApiReference(document);

/** The API reference page, rendered from the OpenAPI document once per cold start. */
export const handler = httpHandler(route.getApiReference, async () => ({
  status: 200,
  data: null,
  raw: page,
  headers: { "content-type": "text/html; charset=utf-8", "cache-control": "public, max-age=300" },
}));
