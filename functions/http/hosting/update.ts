import { httpHandler, ok } from "../../shared/http/handler.ts";
import * as route from "./update.route.ts";
import { updateHosting } from "../../shared/workflows/hosted/hosting.ts";
import { hostingToWire } from "../../shared/domain/wire/hosting.ts";

export const handler = httpHandler(route.updateHosting, async ({ namespace, body }) => ok(hostingToWire(await updateHosting(namespace.id, body))));
