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

  it('lets the page connect to its own origin only, and to the one API origin its ?api= names', async () => {
    const connectSources = async (url: string) => /connect-src ([^;]*);/.exec((await readPageFile('GET', url))!.headers['content-security-policy']!)?.[1];

    expect(await connectSources('/')).toBe("'self'");
    expect(await connectSources('/?api=https://abc123.execute-api.eu-west-1.amazonaws.com/prod/')).toBe("'self' https://abc123.execute-api.eu-west-1.amazonaws.com");
    expect(await connectSources('/?api=http://127.0.0.1:8080')).toBe("'self' http://127.0.0.1:8080");
    // Anything but an http(s) URL adds nothing, and nothing can smuggle in a second source or directive.
    expect(await connectSources('/?api=javascript:alert(1)')).toBe("'self'");
    expect(await connectSources('/?api=' + encodeURIComponent('https://a.example; script-src *'))).toBe("'self'");
    expect(await connectSources('/?api=' + encodeURIComponent('https://a.example https://b.example'))).toBe("'self'");
    expect(await connectSources('/?api=/relative')).toBe("'self'");
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
