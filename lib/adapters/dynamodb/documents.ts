import type {
  BatchWriteCommandInput,
  BatchWriteCommandOutput,
  DeleteCommandInput,
  DeleteCommandOutput,
  GetCommandInput,
  GetCommandOutput,
  PutCommandInput,
  PutCommandOutput,
  QueryCommandInput,
  QueryCommandOutput,
  UpdateCommandInput,
  UpdateCommandOutput,
} from '@aws-sdk/lib-dynamodb';

/** What every operation takes besides its input: the caller's signal ends the request and its retries. */
export interface DynamoCallOptions {
  abortSignal?: AbortSignal;
}

/**
 * The six DynamoDB operations the adapters send, document-shaped (plain JavaScript values in and
 * out, as the AWS SDK's document client takes and gives them). Two implementations:
 * sdk-documents.ts over a DynamoDBDocumentClient an embedder built (its X-Ray instrumentation and
 * all), and lean-documents.ts, which the Lambda functions and `npm start` use: the same requests
 * without the SDK's client, for a faster cold start (docs/deploying.md).
 *
 * Errors are the SDK's, or shaped as the SDK's: `name` is the DynamoDB error type
 * (ConditionalCheckFailedException, …), with `$metadata.httpStatusCode`. One difference: the
 * `Item` of a ConditionalCheckFailedException (ReturnValuesOnConditionCheckFailure) is a document
 * from lean-documents.ts but attribute values from the SDK's document client; read neither
 * without converting (no adapter reads it today).
 */
export interface DynamoDocuments {
  get(input: GetCommandInput, options?: DynamoCallOptions): Promise<GetCommandOutput>;
  put(input: PutCommandInput, options?: DynamoCallOptions): Promise<PutCommandOutput>;
  update(input: UpdateCommandInput, options?: DynamoCallOptions): Promise<UpdateCommandOutput>;
  delete(input: DeleteCommandInput, options?: DynamoCallOptions): Promise<DeleteCommandOutput>;
  query(input: QueryCommandInput, options?: DynamoCallOptions): Promise<QueryCommandOutput>;
  batchWrite(input: BatchWriteCommandInput, options?: DynamoCallOptions): Promise<BatchWriteCommandOutput>;
}
