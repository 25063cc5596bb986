import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { bundledExtensions } from '../../infra/bundled-extensions.ts';
import { functionSubstitutes } from '../../infra/bundling.ts';
import { temporaryFolder } from '../support/temporary-folder.ts';

const folder = temporaryFolder('bundled-extensions-');
const extensionsOf = (yaml: string) => {
  const file = path.join(folder, `agent-${Math.random().toString(36).slice(2)}.yml`);
  writeFileSync(file, yaml);
  return bundledExtensions(file);
};

describe('bundledExtensions: the switched extensions an agent.yml turns on, and so what its functions bundle', () => {
  it('bundles none of them when agent.yml turns none on', () => {
    expect(extensionsOf('model: { name: gpt-4o-mini }\n')).toEqual({ memory: false, historySummary: false, todoList: false });
    expect(extensionsOf('memory: { enabled: false }\nhistory: { strategy: window }\ntodoList: false\n')).toEqual({ memory: false, historySummary: false, todoList: false });
  });

  it('bundles each one agent.yml turns on, or that a variable could turn on', () => {
    expect(extensionsOf('memory: true\n')).toMatchObject({ memory: true });
    expect(extensionsOf('memory: { maxNotes: 50 }\n')).toMatchObject({ memory: true });
    expect(extensionsOf('history: { strategy: summarize }\n')).toMatchObject({ historySummary: true });
    expect(extensionsOf('todoList: ${TODO_LIST}\n')).toMatchObject({ todoList: true });
  });

  it('leaves out of the bundle the ones that are off, and only those', () => {
    const off = functionSubstitutes({ modelProvider: 'openai', ssmClient: false });
    expect(off).toHaveProperty('#memory-extension');
    expect(off).toHaveProperty('#history-summary');
    expect(off).toHaveProperty('#todo-list');
    const on = functionSubstitutes({ modelProvider: 'openai', ssmClient: false, memory: true, historySummary: true, todoList: true });
    expect(on).not.toHaveProperty('#memory-extension');
    expect(on).not.toHaveProperty('#history-summary');
    expect(on).not.toHaveProperty('#todo-list');
  });
});
