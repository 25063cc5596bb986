import { runLoop } from '../agent/loop/run-loop.ts';
import type { TurnStrategy } from '../agent/loop/turn-strategy.ts';

/** The plain loop of the original request: the model calls tools round after round until it answers. */
export const reactStrategy: TurnStrategy = { run: (loop) => runLoop(loop) };
