/** The cold start of the hand-written baseline (baseline-loop.ts), bundled with the same settings (cold-loop.ts). */
import { createBaselineAgent } from './baseline-loop.ts';
import { answerCold } from './cold-loop.ts';

// The bundle evaluates every import before this line: the code is loaded.
await answerCold(performance.now(), createBaselineAgent);
