/**
 * The SDK's check of a result's structuredContent against its tool's outputSchema, through the same
 * compiler that judged the tool when it was listed (lib/json-schema/compile.ts), so what was judged
 * valid there never throws here.
 */
import type { jsonSchemaValidator as SdkSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js';
import type { JsonObject } from '../../../core/json.ts';
import { compileSchema } from '../../../json-schema/compile.ts';

export { compileSchema, type Compiled } from '../../../json-schema/compile.ts';

/** The SDK's validator interface over `compileSchema`. */
export const schemaValidator: SdkSchemaValidator = {
  getValidator<T>(schema: unknown) {
    const result = compileSchema(schema as JsonObject);
    return (input: unknown) => {
      if ('error' in result) return { valid: false, data: undefined, errorMessage: `the tool's outputSchema is invalid: ${result.error}` };
      if (result.validate(input)) return { valid: true, data: input as T, errorMessage: undefined };
      const problems = (result.validate.errors ?? []).map((error) => `${error.instancePath || '(root)'} ${error.message ?? 'is invalid'}`);
      return { valid: false, data: undefined, errorMessage: problems.join('; ') };
    };
  },
};
