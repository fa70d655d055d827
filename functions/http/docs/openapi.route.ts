import type { RouteContract } from "../../shared/http/contract.ts";

export const getOpenApiDocument = {
  operationId: "getOpenApiDocument",
  method: "GET",
  path: "/openapi.json",
  summary: "This OpenAPI document",
  tag: "Contract",
  request: { public: true },
  response: { status: 200, raw: "application/json" },
} as const satisfies RouteContract;
