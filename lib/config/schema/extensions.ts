/** agent.yml keys of the extensions: `todoList`, `history`, `memory`, `files`, `reports`, `codeInterpreter`, `deepSearch`. */

import * as z from 'zod';
import { boolean, numeric, positiveInt, switchable } from './shared.ts';

/** history.strategy summarize: the instructions of the call that writes the summary of older turns. */
export const DEFAULT_HISTORY_SUMMARY_PROMPT = `You keep the running summary of a conversation between a user and an assistant that uses tools. You get the summary so far (it may be empty) and the turns that follow it; write the summary that replaces both.
Keep what later turns may need: the user's goals, preferences and decisions; facts, names, ids, numbers and dates found with the tools; what was done, what failed, and what is still open. Leave out greetings, small talk and details that no longer matter. Write plain notes in the conversation's language. Reply with the summary only.`;

/** A built-in write_todos tool and its prompt: the model keeps a todo list while it works. */
export const todoListSchema = boolean().default(false);

/** The earlier turns of a conversation sent with each question: how many, and whether older ones are summarized. */
export const historySchema = z
  .strictObject({
    /** Estimated tokens of earlier turns sent with a question (newest whole turns first). */
    maxTokens: numeric(z.number().int().min(0)).default(16_000),
    /**
     * `window`: the newest whole turns within maxTokens; `summarize`: the newest whole turns within
     * maxTokens less summary.maxTokens, after a summary of every turn before them.
     */
    strategy: z.enum(['window', 'summarize']).default('window'),
    summary: z
      .strictObject({
        /** Estimated tokens the summary may take, kept back from maxTokens for it. */
        maxTokens: positiveInt().default(1_000),
        prompt: z.string().min(1).default(DEFAULT_HISTORY_SUMMARY_PROMPT),
      })
      .prefault({}),
  })
  .superRefine((history, context) => {
    if (history.strategy === 'summarize' && history.summary.maxTokens >= history.maxTokens) {
      context.addIssue({ code: 'custom', path: ['summary', 'maxTokens'], message: `must be less than history.maxTokens (${history.maxTokens}) with strategy summarize: the kept turns get what the summary leaves` });
    }
  })
  .prefault({});

/**
 * Notes kept per owner across conversations (built-in remember and recall tools). `true` turns it
 * on with the defaults below; an object with settings turns it on with those.
 */
export const memorySchema = switchable({
  /** Notes one owner may keep; remember answers "memory is full" beyond. */
  maxNotes: numeric(z.number().int().positive().max(1_000)).default(100),
  /** Characters of one note. */
  maxNoteChars: numeric(z.number().int().positive().max(2_000)).default(500),
  /** Notes put in the system prompt of each turn (the best matches for the question, then the newest); 0: only recall reaches them. */
  promptNotes: numeric(z.number().int().min(0).max(50)).default(5),
}, 'maxNotes, maxNoteChars, promptNotes');

/**
 * The files of a conversation (a built-in file_tool: upload and get; docs/files.md). `true` turns
 * it on with the defaults below; an object with settings turns it on with those.
 */
export const filesSchema = switchable({
  /** UTF-8 bytes one file may have; a larger upload is refused with a tool error. */
  maxBytes: numeric(z.number().int().positive().max(5 * 1024 * 1024)).default(1024 * 1024),
  /** Files one conversation may have; an upload of a new name beyond is refused. */
  maxFiles: numeric(z.number().int().positive().max(200)).default(50),
  /** Characters of a file `get` gives the model; a longer file is cut there, with a note saying so. */
  maxReadChars: numeric(z.number().int().positive().max(200_000)).default(20_000),
}, 'maxBytes, maxFiles, maxReadChars');

/**
 * A built-in report_tool (JoyAgent's): one model call writes a Markdown, HTML or slide-deck
 * report from a task, the conversation's files and its tool results, saved as a file of the
 * conversation (needs `files` on; docs/files.md). `true` turns it on with the defaults below.
 */
export const reportsSchema = switchable({
  /** Characters of files and tool results given to the report's model call (the newest first). */
  maxInputChars: numeric(z.number().int().positive().max(400_000)).default(60_000),
}, 'maxInputChars');

/**
 * A built-in code_interpreter tool (docs/code-interpreter.md): the model writes Python for a task,
 * which runs in a sandbox (Pyodide in a worker thread) with the conversation's files. `true` turns
 * it on with the defaults below; an object with settings turns it on with those.
 */
export const codeInterpreterSchema = switchable({
  /** The longest the code may run (the interpreter's start apart); tools.callTimeoutSeconds must leave room for it. */
  timeoutSeconds: numeric(z.number().positive().max(900)).default(20),
  /** The Python heap: past it the code gets MemoryError. Count about 150 MB more per run for the worker itself. */
  maxMemoryMb: numeric(z.number().int().min(32).max(2048)).default(256),
  /**
   * Python packages beyond the standard library, loaded in every sandbox before the code runs:
   * wheel files (absolute, or relative to the working directory) or names of wheels placed in
   * Pyodide's folder with its pyodide-lock.json. Each adds to every run's start.
   */
  packages: z.array(z.string().min(1)).default([]),
}, 'timeoutSeconds, maxMemoryMb, packages');

/**
 * A built-in deep_search tool (JoyAgent's; docs/deep-search.md): a model call breaks the query
 * into sub-queries, each is searched with `tool` of MCP server `server`, the best results are read
 * (with `readTool`, when given), and a model call writes a summary citing the URLs it used.
 */
export const deepSearchSchema = switchable({
  /** The MCP server (a name under mcpServers) whose tools search and read; it and `tool` are required (checked with mcpServers when the agent is made). */
  server: z.string().min(1).optional(),
  /** Its search tool, as the server lists it: called with { [queryArgument]: a sub-query }. */
  tool: z.string().min(1).optional(),
  queryArgument: z.string().min(1).default('query'),
  /** Its tool that fetches a page, called with { [readArgument]: a result's URL }; without it only the results' snippets are used. */
  readTool: z.string().min(1).optional(),
  readArgument: z.string().min(1).default('url'),
  /** Sub-queries searched per deep_search call (more asked for are dropped). */
  maxSubQueries: numeric(z.number().int().positive().max(10)).default(3),
  /** Results kept per sub-query (the search tool's first ones, each URL once). */
  maxResults: numeric(z.number().int().positive().max(20)).default(5),
  /** Results read with readTool per call, the best of each sub-query first; 0: snippets only. */
  maxReads: numeric(z.number().int().min(0).max(10)).default(3),
  /** Characters of each page read given to the summary. */
  maxReadChars: numeric(z.number().int().positive().max(50_000)).default(4_000),
}, 'server, tool, readTool, maxSubQueries, maxResults, maxReads, ...');
