import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../lib/core/errors.ts';
import { parseSuite } from '../../lib/evals/load-suite.ts';

const SOURCE = '/suites/tools.yml';

function suiteFailure(text: string, environment: Record<string, string> = {}): string {
  try {
    parseSuite(text, { source: SOURCE, environment });
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error('expected a ConfigError');
}

describe('an evaluation suite', () => {
  it('reads one question and a conversation into turns, with runs and pass marks settled', () => {
    const suite = parseSuite(
      [
        'config: ../agent.yml',
        'repeat: 3',
        'cases:',
        '  - { name: one, question: "上海天气怎么样？", expect: { called: [getWeather] }, approvals: [{ tool: "*", decision: approve }] }',
        '  - name: two',
        '    passRate: 0.5',
        '    repeat: 5',
        '    turns: [{ question: first }, { question: "${SECOND}" }]',
      ].join('\n'),
      { source: SOURCE, environment: { SECOND: 'second' } },
    );
    expect(suite).toEqual({
      name: 'tools',
      source: SOURCE,
      configPath: '/agent.yml',
      cases: [
        { name: 'one', repeat: 3, passRate: 1, turns: [{ question: '上海天气怎么样？', expect: { called: ['getWeather'] }, approvals: [{ tool: '*', decision: 'approve' }] }] },
        { name: 'two', repeat: 5, passRate: 0.5, turns: [{ question: 'first', expect: {} }, { question: 'second', expect: {} }] },
      ],
    });
  });

  it('reads the judge model as agent.yml reads a model, without the agent model overrides of the environment', () => {
    const suite = parseSuite(
      ['judge:', '  model: { name: gpt-4o, baseURL: "https://judge.example/v1", apiKey: "${JUDGE_KEY}" }', '  threshold: 0.6', 'cases: [{ name: graded, question: q, expect: { judge: { criteria: accurate } } }]'].join('\n'),
      { source: SOURCE, environment: { JUDGE_KEY: 'sk-judge', LLM_MODEL: 'demo', OPENAI_BASE_URL: 'http://agent.example/v1' } },
    );
    expect(suite.judge).toMatchObject({ threshold: 0.6, model: { provider: 'openai', name: 'gpt-4o', baseURL: 'https://judge.example/v1', apiKey: 'sk-judge', configured: true } });
  });

  it.each([
    ['a wrong stop reason', 'cases: [{ name: a, question: q, expect: { stopReason: done } }]', /cases\.0\.expect\.stopReason: Invalid option: expected one of "completed"\|"max_rounds"/],
    ['a misspelt check, with the key it likely means', 'cases: [{ name: a, question: q, expect: { caled: [getWeather] } }]', /cases\.0\.expect\.caled: unknown key, did you mean "called"\?/],
    ['a turn without a question', 'cases: [{ name: a, turns: [{ expect: {} }] }]', /cases\.0\.turns\.0\.question: Invalid input: expected string, received undefined/],
    ['both a question and turns', 'cases: [{ name: a, question: q, turns: [{ question: r }] }]', /cases\.0: give either "question" \(one turn\) or "turns" \(a conversation\), not both or neither/],
    ['an unknown matcher operator', 'cases: [{ name: a, question: q, expect: { arguments: [{ tool: t, match: { city: { $startsWith: Sh } } }] } }]', /cases\.0\.expect\.arguments\.0\.match: at city: "\$startsWith" is not an operator/],
    ['a regular expression that is not one', 'cases: [{ name: a, question: q, expect: { reply: { matches: "(" } } }]', /cases\.0\.expect\.reply\.matches: not a valid regular expression/],
    ['an approval decision that is neither', 'cases: [{ name: a, question: q, approvals: [{ tool: t, decision: yes }] }]', /cases\.0\.approvals\.0\.decision: Invalid option: expected one of "approve"\|"decline"/],
    ['two cases of one name', 'cases: [{ name: a, question: q }, { name: a, question: r }]', /cases\.1\.name: another case is named "a"/],
    ['a judge check without a judge model', 'cases: [{ name: a, question: q, expect: { judge: { criteria: c } } }]', /judge: cases\.0 grade with a judge; give the judge's model/],
    ['a judge model key agent.yml does not have', 'judge: { model: { nmae: x } }\ncases: [{ name: a, question: q }]', /judge\.model\.nmae: unknown key, did you mean "name"\?/],
    ['no cases', 'name: empty\ncases: []', /cases: a suite needs at least one case/],
    ['a variable that is not set', 'cases: [{ name: a, question: "${QUESTION}" }]', /cases\[0\]\.question: environment variable QUESTION is not set/],
  ])('is refused for %s, naming the path of the field', (_, text, message) => {
    const failure = suiteFailure(text);
    expect(failure).toMatch(new RegExp(`^${SOURCE.replace(/\//g, '\\/')}.* is invalid:\\n`));
    expect(failure).toMatch(message);
  });

  it('is refused when it is not YAML, or not a mapping', () => {
    expect(suiteFailure('cases: [')).toMatch(/^\/suites\/tools\.yml is not valid YAML/);
    expect(suiteFailure('- a\n- b')).toBe('/suites/tools.yml must be a YAML mapping with a "cases" list (see docs/evaluations.md)');
  });
});
