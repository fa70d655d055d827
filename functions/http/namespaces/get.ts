import { httpHandler, ok } from "../../shared/http/handler.ts";
import * as route from "./get.route.ts";
import { namespaceToWire } from "../../shared/domain/wire/namespace.ts";

export const handler = httpHandler(route.getNamespace, async ({ namespace }) =>
  ok(namespaceToWire(namespace)),
);
