import { httpHandler, ok } from "../../shared/http/handler.ts";
import * as route from "./get.route.ts";
import { requireHosting } from "../../shared/workflows/hosted/hosting.ts";
import { hostingToWire } from "../../shared/domain/wire/hosting.ts";

export const handler = httpHandler(route.getHosting, async ({ namespace }) =>
  ok(hostingToWire(await requireHosting(namespace.id))),
);
