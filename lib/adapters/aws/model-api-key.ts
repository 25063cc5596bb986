import { GetParameterCommand, type SSMClient } from '@aws-sdk/client-ssm';
import { ConfigError, errorMessage } from '../../core/errors.ts';
import type { ReadSecret } from './secret-reader.ts';

interface ModelApiKeySources {
  /** A Secrets Manager secret: the plain key, or JSON with an `apiKey` or `OPENAI_API_KEY` field. */
  secretId?: string;
  /** An SSM parameter (SecureString or String) holding the key. */
  parameterName?: string;
  readSecret: ReadSecret;
  ssm: () => SSMClient;
}

/**
 * Reads the model's API key once, at cold start, so it never sits in the function's environment
 * (and so in the template) as plain text. Returns undefined when no source is configured, or when
 * the source is still empty (the stack creates the secret as `{"apiKey": ""}` for the operator to
 * fill): the service then runs without a model and says how to configure one, health included.
 * A source that cannot be read at all is a deployment error and fails the cold start.
 */
export async function readModelApiKey(sources: ModelApiKeySources): Promise<string | undefined> {
  if (sources.secretId) {
    try {
      return keyFromSecret((await sources.readSecret(sources.secretId)) ?? '', sources.secretId);
    } catch (error) {
      if (error instanceof ConfigError) throw error;
      throw new ConfigError(`cannot read the model API key from Secrets Manager secret ${sources.secretId}: ${errorMessage(error)}`, { cause: error });
    }
  }
  if (sources.parameterName) {
    try {
      const parameter = await sources.ssm().send(new GetParameterCommand({ Name: sources.parameterName, WithDecryption: true }));
      return parameter.Parameter?.Value?.trim() || undefined;
    } catch (error) {
      if (error instanceof ConfigError) throw error;
      throw new ConfigError(`cannot read the model API key from SSM parameter ${sources.parameterName}: ${errorMessage(error)}`, { cause: error });
    }
  }
  return undefined;
}

function keyFromSecret(text: string, secretId: string): string | undefined {
  const trimmed = text.trim();
  if (!trimmed.startsWith('{')) return trimmed || undefined;
  let fields: Record<string, unknown>;
  try {
    fields = JSON.parse(trimmed) as Record<string, unknown>;
  } catch {
    // Not JSON after all: a key that happens to start with "{" is used as it is.
    return trimmed;
  }
  const value = fields.apiKey ?? fields.OPENAI_API_KEY;
  if (typeof value === 'string') return value.trim() || undefined;
  throw new ConfigError(`secret ${secretId} is JSON without an "apiKey" (or "OPENAI_API_KEY") field holding the model API key`);
}
