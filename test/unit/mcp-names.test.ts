import { describe, expect, it } from 'vitest';
import { assignToolNames, isValidModelToolName, type ServerToolNames } from '../../lib/adapters/mcp/names.ts';

const namesOf = (catalog: ServerToolNames[]) => assignToolNames(catalog).map((entry) => entry.name);

describe('assignToolNames', () => {
  it('keeps a tool name as it is when it is valid and unique across all servers', () => {
    // Prepare
    const catalog = [
      { server: 'demo', tools: ['getWeather', 'get-sum'] },
      { server: 'files', tools: ['read_text_file'] },
    ];

    // Act
    const assigned = assignToolNames(catalog);

    // Assess
    expect(assigned).toEqual([
      { name: 'getWeather', server: 'demo', originalName: 'getWeather' },
      { name: 'get-sum', server: 'demo', originalName: 'get-sum' },
      { name: 'read_text_file', server: 'files', originalName: 'read_text_file' },
    ]);
  });

  it('prefixes every copy of a name that two servers share with its server name', () => {
    const assigned = assignToolNames([
      { server: 'alpha', tools: ['search', 'only-alpha'] },
      { server: 'beta', tools: ['search'] },
    ]);

    expect(assigned).toEqual([
      { name: 'alpha__search', server: 'alpha', originalName: 'search' },
      { name: 'only-alpha', server: 'alpha', originalName: 'only-alpha' },
      { name: 'beta__search', server: 'beta', originalName: 'search' },
    ]);
  });

  it.each([
    ['dots', 'weather.get', 'svc__weather_get'],
    ['spaces and slashes', 'files/read all', 'svc__files_read_all'],
    ['non-ASCII letters', '获取天气', 'svc__' + '____'],
    ['an empty name', '', 'svc__'],
  ])('replaces invalid characters when the name has %s', (_case, tool, expected) => {
    expect(namesOf([{ server: 'svc', tools: [tool] }])).toEqual([expected]);
  });

  it('sanitizes the server name as well when it carries invalid characters', () => {
    expect(namesOf([{ server: 'my.server', tools: ['a.b'] }])).toEqual(['my_server__a_b']);
  });

  it('shortens names over 64 characters to 64 with a stable hash suffix', () => {
    const longTool = 'x'.repeat(70);

    const [first] = namesOf([{ server: 'svc', tools: [longTool] }]);
    const [again] = namesOf([{ server: 'svc', tools: [longTool] }]);

    expect(first).toHaveLength(64);
    expect(first).toMatch(/^svc__x+_[0-9a-f]{8}$/);
    expect(again).toBe(first);
  });

  it('keeps two long names apart when they differ only after the cut', () => {
    const prefix = 'y'.repeat(80);

    const names = namesOf([{ server: 'svc', tools: [`${prefix}.one`, `${prefix}.two`] }]);

    expect(names[0]).not.toBe(names[1]);
    expect(names.every(isValidModelToolName)).toBe(true);
  });

  it('adds a hash suffix when two names collide after sanitizing', () => {
    // `x.y` and `x y` both sanitize to `svc__x_y` and must be told apart; `a_b` stays as it is.
    const assigned = assignToolNames([{ server: 'svc', tools: ['x.y', 'x y', 'a_b'] }]);
    const names = assigned.map((entry) => entry.name);

    expect(new Set(names).size).toBe(3);
    expect(names[2]).toBe('a_b');
    expect(names[0]).toMatch(/^svc__x_y_[0-9a-f]{8}$/);
    expect(names[1]).toMatch(/^svc__x_y_[0-9a-f]{8}$/);
  });

  it('lets a kept name win over a generated name that would equal it', () => {
    // `files` has a tool literally named `demo__search`; `demo` and `web` share `search`.
    const assigned = assignToolNames([
      { server: 'demo', tools: ['search'] },
      { server: 'web', tools: ['search'] },
      { server: 'files', tools: ['demo__search'] },
    ]);

    expect(assigned[2]).toEqual({ name: 'demo__search', server: 'files', originalName: 'demo__search' });
    expect(assigned[0]?.name).toMatch(/^demo__search_[0-9a-f]{8}$/);
    expect(assigned[1]?.name).toBe('web__search');
  });

  it('gives the same names whatever order the servers answered in', () => {
    const servers: ServerToolNames[] = [
      { server: 'a', tools: ['x.y', 'shared', 'z'.repeat(90)] },
      { server: 'b', tools: ['x y', 'shared', 'plain'] },
      { server: 'a_b', tools: ['x.y'] },
    ];
    const byPair = (catalog: ServerToolNames[]) =>
      Object.fromEntries(assignToolNames(catalog).map((entry) => [`${entry.server}/${entry.originalName}`, entry.name]));

    expect(byPair([...servers].reverse())).toEqual(byPair(servers));
  });

  it('produces only names the model API accepts, all distinct', () => {
    const assigned = assignToolNames([
      { server: 'one', tools: ['a', 'a.b', 'a_b', 'ä', 'q'.repeat(100), '', 'one__a_b'] },
      { server: 'two', tools: ['a', 'a.b', 'ä'] },
    ]);
    const names = assigned.map((entry) => entry.name);

    expect(names.every(isValidModelToolName)).toBe(true);
    expect(new Set(names).size).toBe(names.length);
  });

  it('lists a tool a server repeated only once', () => {
    expect(assignToolNames([{ server: 's', tools: ['echo', 'echo'] }])).toHaveLength(1);
  });
});
