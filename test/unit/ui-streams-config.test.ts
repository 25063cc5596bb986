import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { usesUiStreams } from '../../infra/ui-streams.ts';
import { parseConfig } from '../../lib/config/load.ts';
import { configuredFrontDoors } from '../../lib/front-doors/configured.ts';
import { temporaryFolder } from '../support/temporary-folder.ts';

const parse = (yaml: string) => parseConfig(yaml, { source: 'test.yml', environment: { UI: 'true' } });
const folder = temporaryFolder('ui-streams-config-');
const file = (yaml: string) => {
  const written = path.join(folder, `${Math.random().toString(36).slice(2)}.yml`);
  writeFileSync(written, yaml);
  return written;
};

describe('uiStreams in agent.yml', () => {
  it.each([
    ['', false, ['native']],
    ['uiStreams: false', false, ['native']],
    ['uiStreams: true', true, ['ai-sdk-ui', 'ag-ui', 'native']],
  ])('%j serves the doors %j', (yaml, on, doors) => {
    const config = parse(yaml);
    expect(config.uiStreams).toBe(on);
    expect(configuredFrontDoors({ uiStreams: config.uiStreams }).map((door) => door.name)).toEqual(doors);
  });

  it('refuses a value that is not true or false', () => {
    expect(() => parse('uiStreams: ai-sdk')).toThrow(/uiStreams/);
  });

  it.each([
    ['', false],
    ['uiStreams: false', false],
    ['uiStreams: true', true],
    // A variable could be true: the doors are bundled.
    ['uiStreams: ${UI}', true],
  ])('the stack bundles the doors for %j: %j', (yaml, bundled) => {
    expect(usesUiStreams(file(yaml))).toBe(bundled);
  });
});
