import { describe, expect, it } from 'vitest';
import { readPageFile } from '../../lib/local/page-files.ts';

describe('the chat page\'s files, as npm start serves them', () => {
  it('serves the page at / and its modules by name, with a policy that allows no inline or foreign script', async () => {
    const page = await readPageFile('GET', '/');
    expect(page?.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page?.body.toString()).toContain('<script type="module" src="app.js"></script>');
    const script = await readPageFile('GET', '/app.js');
    expect(script?.headers).toMatchObject({ 'content-type': 'text/javascript; charset=utf-8', 'x-content-type-options': 'nosniff' });
    expect(script?.headers['content-security-policy']).toMatch(/default-src 'self';/);
    expect(script?.headers['content-security-policy']).not.toMatch(/unsafe-inline|unsafe-eval/);
    expect((await readPageFile('HEAD', '/style.css'))?.headers['content-type']).toBe('text/css; charset=utf-8');
  });

  it.each([
    ['an API route', 'GET', '/conversations'],
    ['a file outside the folder', 'GET', '/../agent.yml'],
    ['an encoded way out', 'GET', '/..%2Fagent.yml'],
    ['a file in a sub-folder', 'GET', '/x/app.js'],
    ['a file that is not there', 'GET', '/missing.js'],
    ['another kind of file', 'GET', '/README.md'],
    ['a POST', 'POST', '/'],
  ])('leaves %s to the API', async (_case, method, path) => {
    expect(await readPageFile(method, path)).toBeUndefined();
  });
});
