import type { PythonResult } from '../../core/ports/code-sandbox.ts';

/**
 * The tool result the model reads: the code that ran (so it can tell what went wrong), what it
 * printed, its error, and the files it wrote. Its length is bounded like any tool result's
 * (tools.maxOutputChars), and stdout and stderr were already bounded in the sandbox.
 */
export function resultText(code: string, result: PythonResult, saved: readonly string[], notSaved: string | undefined): string {
  const sections = [`Code that ran:\n\`\`\`python\n${code}\n\`\`\``];
  sections.push(result.stdout ? `Output:\n${result.stdout.trimEnd()}` : 'Output: (nothing printed)');
  if (result.stderr.trim()) sections.push(`Standard error:\n${result.stderr.trimEnd()}`);
  if (result.error) sections.push(`Error:\n${result.error.trimEnd()}`);
  if (saved.length > 0) {
    const sizes = new Map(result.files.map((file) => [file.name, file.content.byteLength]));
    sections.push(`Files written to the conversation: ${saved.map((name) => `${name} (${sizes.get(name)} bytes)`).join(', ')}`);
  }
  if (notSaved) sections.push(notSaved);
  return sections.join('\n\n');
}
