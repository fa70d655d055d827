import { AttributeType, Billing, ProjectionType, TableV2 } from "aws-cdk-lib/aws-dynamodb";
import { Construct } from "constructs";
import {
  ALL_INDEXES,
  LIST_SORT_KEY,
  PARTITION_KEY,
  SORT_KEY,
  TTL_ATTRIBUTE,
} from "../../functions/shared/db/dynamo/table-schema.ts";
import type { StageConfig } from "../config.ts";

export interface SingleTableProps {
  config: StageConfig;
}

/**
 * The service's one DynamoDB table. Key and index names come from the data layer's schema module,
 * so the deployed table is exactly the one the code queries.
 */
export class SingleTable extends Construct {
  readonly table: TableV2;

  constructor(scope: Construct, id: string, props: SingleTableProps) {
    super(scope, id);
    const { config } = props;

    this.table = new TableV2(this, "Table", {
      partitionKey: { name: PARTITION_KEY, type: AttributeType.STRING },
      sortKey: { name: SORT_KEY, type: AttributeType.STRING },
      billing: Billing.onDemand(),
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      timeToLiveAttribute: TTL_ATTRIBUTE,
      deletionProtection: config.tableDeletionProtection,
      removalPolicy: config.removalPolicy,
      globalSecondaryIndexes: ALL_INDEXES.map((index) => ({
        indexName: index.name,
        partitionKey: { name: index.partitionKey, type: AttributeType.STRING },
        sortKey: { name: LIST_SORT_KEY, type: AttributeType.STRING },
        // Lists return whole records; projecting everything saves a read per item.
        projectionType: ProjectionType.ALL,
      })),
    });
  }
}
