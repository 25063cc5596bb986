/**
 * What the code interpreter tells the model: the tool's description (for the turn's model, which
 * decides to call it) and the request of the call that writes the code (for the same model, asked
 * on its own, without the conversation: the task must say everything the code needs).
 */

export const TOOL_NAME = 'code_interpreter';

export const TOOL_DESCRIPTION = `Runs Python for a task: computing, counting, parsing, converting or checking data, and reading or writing the conversation's files. Describe the task completely (the code is written from your description alone, with the names of the files available); you get back the code that ran, its printed output, any error, and the files it wrote. Standard library only (csv, json, re, math, statistics, datetime, sqlite3, …); no network, no packages such as numpy or pandas.`;

export const CODE_WRITER_PROMPT = `You write one Python 3 program that carries out the task you are given. It runs once, in a sandbox: Python's standard library only (no numpy, pandas or other packages, no pip), no network, no access outside its working folder. The files listed are in the working folder; open them by name. Print the results the task asks for, clearly labelled. Write any file the task asks for into the working folder, by a plain name without folders. Reply with the program only, in one \`\`\`python block.`;

/** The code-writing call's question: the task and the files there are. */
export function codeRequest(task: string, fileNames: readonly string[]): string {
  const files = fileNames.length === 0 ? 'Files in the working folder: none.' : `Files in the working folder:\n${fileNames.map((name) => `- ${name}`).join('\n')}`;
  return `Task:\n${task}\n\n${files}`;
}

/** The program in a reply: the first fenced block when there is one, else the whole reply. */
export function codeOf(reply: string): string {
  const fenced = /```(?:python|py)?[^\S\n]*\n([\s\S]*?)```/i.exec(reply);
  return (fenced ? fenced[1]! : reply).trim();
}
