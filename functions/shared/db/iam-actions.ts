/**
 * The DynamoDB actions the data layer sends, by the access a function declares (`table` in
 * lib/routes.ts). The CDK grants exactly these on the table and its indexes. TransactWriteItems has
 * no action of its own: each of its Put, Update, Delete and ConditionCheck needs its item action.
 */
export const DYNAMODB_IAM_ACTIONS = {
  read: ["dynamodb:GetItem", "dynamodb:BatchGetItem", "dynamodb:Query"],
  readWrite: [
    "dynamodb:GetItem",
    "dynamodb:BatchGetItem",
    "dynamodb:Query",
    "dynamodb:PutItem",
    "dynamodb:UpdateItem",
    "dynamodb:DeleteItem",
    "dynamodb:ConditionCheckItem",
  ],
  /** The item writes of readWrite: what a function restricted to its own items may do only on them. */
  write: ["dynamodb:PutItem", "dynamodb:UpdateItem", "dynamodb:DeleteItem", "dynamodb:ConditionCheckItem"],
  /** Only the reconciler reads the whole table (db/table-scan.ts). */
  scan: ["dynamodb:Scan"],
} as const;
