/**
 * The token store of a deployment: one Secrets Manager secret (created by the stack, its ARN in
 * MCP_OAUTH_TOKEN_SECRET_ARN) holding every OAuth server's record as one JSON document.
 *
 * Secrets Manager has no conditional write, but it has idempotent ones: a PutSecretValue with a
 * ClientRequestToken that names an existing version succeeds only when the content is the same,
 * and fails with ResourceExistsException otherwise. Deriving the token from the version that was
 * read makes that a compare-and-swap: two containers that read the same version and write different
 * documents cannot both win, and the loser reads again (lib/adapters/mcp/oauth/store.ts).
 */
import { createHash } from 'node:crypto';
import { GetSecretValueCommand, PutSecretValueCommand, type SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { errorMessage } from '../../core/errors.ts';
import {
  createDocumentTokenStore,
  parseTokenDocument,
  RevisionConflict,
  type OAuthTokenStore,
  type RevisedDocument,
  type TokenDocument,
} from '../mcp/oauth/store.ts';

interface SecretTokenStoreOptions {
  client: SecretsManagerClient;
  /** The secret's ARN (or name). */
  secretId: string;
}

export function createSecretsManagerTokenStore({ client, secretId }: SecretTokenStoreOptions): OAuthTokenStore {
  return createDocumentTokenStore({
    location: `Secrets Manager secret ${secretId}`,
    async load(): Promise<RevisedDocument> {
      let secret;
      try {
        secret = await client.send(new GetSecretValueCommand({ SecretId: secretId }));
      } catch (error) {
        // A secret created without a value has no AWSCURRENT version yet: nothing is stored.
        if (nameOf(error) === 'ResourceNotFoundException' && /value|staging label/i.test(errorMessage(error))) {
          return { document: parseTokenDocument('', secretId), revision: undefined };
        }
        throw new Error(`cannot read the MCP OAuth token secret ${secretId}: ${errorMessage(error)}`, { cause: error });
      }
      return { document: parseTokenDocument(secret.SecretString ?? '', secretId), revision: secret.VersionId };
    },
    async save(document: TokenDocument, revision: string | undefined): Promise<void> {
      try {
        await client.send(
          new PutSecretValueCommand({
            SecretId: secretId,
            SecretString: JSON.stringify(document),
            ClientRequestToken: versionAfter(revision),
          }),
        );
      } catch (error) {
        if (nameOf(error) === 'ResourceExistsException') throw new RevisionConflict();
        throw new Error(`cannot write the MCP OAuth token secret ${secretId}: ${errorMessage(error)}`, { cause: error });
      }
    },
  });
}

/** The version ID a write over `revision` gets: the same for every writer that read that revision. */
export function versionAfter(revision: string | undefined): string {
  // 64 hex characters: within ClientRequestToken's 32–64, and never equal to a UUID the console makes.
  return createHash('sha256').update(`mcp-oauth-tokens:${revision ?? 'none'}`).digest('hex');
}

function nameOf(error: unknown): string | undefined {
  return (error as { name?: string } | null)?.name;
}
