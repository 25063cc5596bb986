/** The cold start of the Vercel AI SDK's agent (ai-sdk-loop.ts), bundled with the same settings (cold-loop.ts). */
import { createAiSdkAgent } from './ai-sdk-loop.ts';
import { answerCold } from './cold-loop.ts';

// The bundle evaluates every import before this line: the code is loaded.
await answerCold(performance.now(), createAiSdkAgent);
