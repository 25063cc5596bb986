/** The offline stand-in as a model provider (`model.provider: demo`, or LLM_MODEL=demo): nothing to configure. */
import type { ModelProvider } from './model-provider.ts';
import { createDemoModel } from '../demo/model.ts';

export const demoProvider: ModelProvider = {
  name: 'demo',
  notConfigured: () => undefined,
  create: () => createDemoModel(),
  describe: () => 'the offline demo model',
};
