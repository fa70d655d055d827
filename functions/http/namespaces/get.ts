import { httpHandler, ok } from "../../shared/http/handler.ts";
import * as routes from "./routes.ts";
import { namespaceToWire } from "../../shared/domain/wire/namespace.ts";

export const handler = httpHandler(routes.getNamespace, async ({ namespace }) =>
  ok(namespaceToWire(namespace)),
);
