import { httpHandler, ok } from "../../shared/http/handler.ts";
import * as route from "./delete.route.ts";
import { deleteHosting } from "../../shared/workflows/hosted/hosting.ts";
import { hostingToWire } from "../../shared/domain/wire/hosting.ts";

/** deleteHosting: deletes the hosting configuration and returns it as it was, with 200 so the body survives. */
export const handler = httpHandler(route.deleteHosting, async ({ namespace }) =>
  ok(hostingToWire(await deleteHosting(namespace.id))),
);
