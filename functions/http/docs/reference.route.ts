import type { RouteContract } from "../../shared/http/contract.ts";

export const getApiReference = {
  operationId: "getApiReference",
  method: "GET",
  path: "/docs",
  summary: "The API reference page, rendered from this document",
  tag: "Contract",
  request: { public: true },
  response: { status: 200, raw: "text/html" },
} as const satisfies RouteContract;
