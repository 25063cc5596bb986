/**
 * Stands in for `@aws-sdk/client-ssm` in the Lambda bundles of a deployment whose model key is not
 * in SSM Parameter Store (infra/bundling.ts, FUNCTION_SUBSTITUTES): only the key's reader imports
 * SSM, and it calls it only when OPENAI_API_KEY_PARAMETER_NAME is set, which the stack then does
 * not do. The client is 80 KB of every bundle otherwise.
 */
const NOT_BUNDLED = 'this bundle was built without the SSM client: deploy with the context key modelApiKeyParameterName to read the model key from SSM';

export class SSMClient {
  constructor() {
    throw new Error(NOT_BUNDLED);
  }
}

export class GetParameterCommand {
  constructor() {
    throw new Error(NOT_BUNDLED);
  }
}
