import { created, httpHandler } from "../../shared/http/handler.ts";
import * as route from "./enable.route.ts";
import { enableHosting } from "../../shared/workflows/hosted/hosting.ts";
import { hostingToWire } from "../../shared/domain/wire/hosting.ts";

/** Enables hosting with its defaults. The body is ignored (the agentset SDK sends `{}`). */
export const handler = httpHandler(route.enableHosting, async ({ namespace }) =>
  created(hostingToWire(await enableHosting(namespace))),
);
