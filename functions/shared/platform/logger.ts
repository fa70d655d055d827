import { Logger } from "@aws-lambda-powertools/logger";

/** The one logger of every function. Level and sampling come from the POWERTOOLS_* variables. */
export const logger = new Logger({ serviceName: "knowledge-ingestion-service" });
