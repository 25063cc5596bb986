/**
 * Imported first by every function: zod parses without generating code. By default zod compiles a
 * parser for each object schema (`new Function`) the first time it parses with it; on a cold start
 * nearly every parse is such a first one (the MCP SDK checks every message it receives with its
 * schemas), and the compiling cost about 5 ms of CPU, while a warm tool call takes about 1 µs
 * longer interpreted (docs/benchmarks.md). It has to come before any schema is made: zod decides
 * for each schema when it is made.
 */
import { config } from 'zod/v4/core';

config({ jitless: true });
