import { httpHandler } from "../../shared/http/handler.ts";
import * as route from "./openapi.route.ts";
import document from "./openapi.json" with { type: "json" };

const body = JSON.stringify(document);

/** The API's OpenAPI 3.1 document, without a key: what generated clients and the reference page read. */
export const handler = httpHandler(route.getOpenApiDocument, async () => ({
  status: 200,
  data: null,
  raw: body,
  headers: { "content-type": "application/json; charset=utf-8", "cache-control": "public, max-age=300" },
}));
