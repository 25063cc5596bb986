import { GetSecretValueCommand, type SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { GetParameterCommand, type SSMClient } from '@aws-sdk/client-ssm';
import { ConfigError, errorMessage } from '../../core/errors.ts';

export interface ModelApiKeySources {
  /** A Secrets Manager secret: the plain key, or JSON with an `apiKey` or `OPENAI_API_KEY` field. */
  secretId?: string;
  /** An SSM parameter (SecureString or String) holding the key. */
  parameterName?: string;
  secretsManager: () => SecretsManagerClient;
  ssm: () => SSMClient;
}

/**
 * Reads the model's API key once, at cold start, so it never sits in the function's environment
 * (and so in the template) as plain text. Returns undefined when no source is configured.
 */
export async function readModelApiKey(sources: ModelApiKeySources): Promise<string | undefined> {
  if (sources.secretId) {
    try {
      const secret = await sources.secretsManager().send(new GetSecretValueCommand({ SecretId: sources.secretId }));
      return keyFromSecret(secret.SecretString ?? '', sources.secretId);
    } catch (error) {
      if (error instanceof ConfigError) throw error;
      throw new ConfigError(`cannot read the model API key from Secrets Manager secret ${sources.secretId}: ${errorMessage(error)}`, { cause: error });
    }
  }
  if (sources.parameterName) {
    try {
      const parameter = await sources.ssm().send(new GetParameterCommand({ Name: sources.parameterName, WithDecryption: true }));
      const value = parameter.Parameter?.Value?.trim();
      if (!value) throw new ConfigError(`SSM parameter ${sources.parameterName} is empty: store the model API key in it`);
      return value;
    } catch (error) {
      if (error instanceof ConfigError) throw error;
      throw new ConfigError(`cannot read the model API key from SSM parameter ${sources.parameterName}: ${errorMessage(error)}`, { cause: error });
    }
  }
  return undefined;
}

function keyFromSecret(text: string, secretId: string): string {
  const trimmed = text.trim();
  if (trimmed.startsWith('{')) {
    try {
      const fields = JSON.parse(trimmed) as Record<string, unknown>;
      const value = fields.apiKey ?? fields.OPENAI_API_KEY;
      if (typeof value === 'string' && value.trim() !== '') return value.trim();
    } catch {
      // Not JSON after all: a key that happens to start with "{" is used as it is.
      return trimmed;
    }
    throw new ConfigError(`secret ${secretId} is JSON without an "apiKey" (or "OPENAI_API_KEY") field holding the model API key`);
  }
  if (trimmed === '') throw new ConfigError(`secret ${secretId} is empty: store the model API key in it`);
  return trimmed;
}
