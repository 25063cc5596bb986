import { StoreError, errorMessage } from '../../core/errors.ts';

/** The condition of a conditional write did not hold (the SDK error's name is its stable identity). */
export const isConditionalCheckFailed = (error: unknown): boolean =>
  error instanceof Error && error.name === 'ConditionalCheckFailedException';

/** Wraps an SDK error once, at the boundary, keeping it as the cause. */
export const storeUnavailable = (operation: string, tableName: string, error: unknown): StoreError =>
  new StoreError(
    'store_unavailable',
    `DynamoDB ${operation} on table "${tableName}" failed: ${errorMessage(error)}`,
    { cause: error },
  );
