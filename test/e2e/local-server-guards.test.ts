/**
 * What `npm start` refuses and keeps private, through the real process with raw HTTP: requests for
 * another host (DNS rebinding), other origins' browsers reading its answers (CORS), bodies past
 * `http.maxBodyBytes` (answered before they are read), and the data folder's modes on disk.
 */
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { request, type IncomingHttpHeaders } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalServer, type LocalServer } from '../support/local-server.ts';

interface RawAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A request with exactly these headers, Host included (fetch would not let a test choose it). */
function rawRequest(url: string, options: { method?: string; path: string; headers: Record<string, string>; body?: string }): Promise<RawAnswer> {
  const { port } = new URL(url);
  return new Promise((resolve, reject) => {
    const outgoing = request({ host: '127.0.0.1', port: Number(port), method: options.method ?? 'GET', path: options.path, headers: options.headers }, (incoming) => {
      let body = '';
      incoming.setEncoding('utf8');
      incoming.on('data', (chunk: string) => (body += chunk));
      incoming.on('end', () => resolve({ status: incoming.statusCode ?? 0, headers: incoming.headers, body }));
    });
    outgoing.on('error', reject);
    outgoing.end(options.body);
  });
}

const portOf = (server: LocalServer) => new URL(server.url).port;

/** Every folder and file under a folder (the folder itself first), with its permission bits. */
function modesUnder(folder: string): Array<{ path: string; folder: boolean; mode: number }> {
  const found = [{ path: folder, folder: true, mode: statSync(folder).mode & 0o777 }];
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) found.push(...modesUnder(path));
    else found.push({ path, folder: false, mode: statSync(path).mode & 0o777 });
  }
  return found;
}

const ASK = { 'content-type': 'application/json' };

describe('npm start with its default settings', () => {
  let server: LocalServer;
  let root: string;
  let dataDir: string;

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'agent-e2e-guards-'));
    dataDir = join(root, 'data');
    // A data folder left by an older version: open to everyone.
    mkdirSync(join(dataDir, 'dynalite'), { recursive: true, mode: 0o755 });
    chmodSync(dataDir, 0o755);
    chmodSync(join(dataDir, 'dynalite'), 0o755);
    // No model configured: the offline stand-in answers, so a turn is stored without a model server.
    server = await startLocalServer({ LOCAL_DATA_DIR: dataDir });
  });

  afterAll(async () => {
    await server?.stop();
    rmSync(root, { recursive: true, force: true });
  });

  it.each(['localhost', '127.0.0.1', '[::1]'])('answers requests for %s at its port', async (name) => {
    const answer = await rawRequest(server.url, { path: '/health', headers: { host: `${name}:${portOf(server)}` } });

    expect(answer.status).toBe(200);
  });

  it.each([
    ['a name that resolved to it (DNS rebinding)', () => 'evil.example'],
    ['that name with its port', () => `evil.example:${portOf(server)}`],
    ['localhost at another port', () => 'localhost:1'],
  ])('refuses a request for %s with 421 host_not_allowed, the page included', async (_case, host) => {
    const health = await rawRequest(server.url, { path: '/health', headers: { host: host() } });
    const page = await rawRequest(server.url, { path: '/', headers: { host: host() } });
    const turn = await rawRequest(server.url, { method: 'POST', path: '/conversations', headers: { host: host(), ...ASK }, body: JSON.stringify({ message: 'What is the weather in Paris?' }) });

    for (const answer of [health, page, turn]) {
      expect(answer.status).toBe(421);
      expect(JSON.parse(answer.body).error).toMatchObject({ code: 'host_not_allowed', message: expect.stringContaining('ALLOWED_HOSTS') });
    }
  });

  it('lets no other origin read its answers: no access-control-allow-origin', async () => {
    const host = `localhost:${portOf(server)}`;
    const fromElsewhere = await rawRequest(server.url, { path: '/health', headers: { host, origin: 'http://evil.example' } });
    const fromItself = await rawRequest(server.url, { path: '/health', headers: { host, origin: `http://${host}` } });

    expect(fromElsewhere.status).toBe(200);
    expect(fromElsewhere.headers['access-control-allow-origin']).toBeUndefined();
    // The chat page it serves is the same origin: a browser needs no CORS header to read these.
    expect(fromItself.status).toBe(200);
    expect(fromItself.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('keeps the data folder to its user: folders 0700 and files 0600, after a turn is stored and across a restart', async () => {
    const asked = await fetch(`${server.url}/conversations`, { method: 'POST', headers: ASK, body: JSON.stringify({ message: 'What is the weather in Paris?' }) });
    expect(asked.status).toBe(201);

    const written = modesUnder(dataDir);
    expect(written.filter((entry) => !entry.folder).length).toBeGreaterThan(1);
    for (const entry of written) expect({ path: entry.path, mode: entry.mode.toString(8) }).toEqual({ path: entry.path, mode: entry.folder ? '700' : '600' });

    // Modes an older version left (or a careless copy) are put right on the next start.
    await server.stop();
    for (const entry of written) chmodSync(entry.path, entry.folder ? 0o755 : 0o644);
    server = await startLocalServer({ LOCAL_DATA_DIR: dataDir });
    for (const entry of modesUnder(dataDir)) expect({ path: entry.path, mode: entry.mode.toString(8) }).toEqual({ path: entry.path, mode: entry.folder ? '700' : '600' });
    const { conversationId } = (await asked.json()) as { conversationId: string };
    const read = await fetch(`${server.url}/conversations/${conversationId}`);
    expect(read.status).toBe(200);
  });

  /**
   * Sends the head and the first part of a body far over the limit (64 KB by default), and holds
   * back the rest until an answer comes: the answer must come while most of the body is unsent.
   */
  async function answerToPartOfABody(head: string, firstPart: Buffer): Promise<{ answer: string; unsentWhenAnswered: boolean }> {
    const { port } = new URL(server.url);
    const socket = connect(Number(port), '127.0.0.1');
    await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
    let received = '';
    let rest = true;
    const answered = new Promise<boolean>((resolve) => {
      socket.on('data', (chunk: Buffer) => {
        received += chunk.toString('utf8');
        // The whole answer: the head, and the JSON body after it.
        if (/\r\n\r\n[\s\S]*\}\}/.test(received)) resolve(rest);
      });
      // A server that closes with part of a body unread may reset the connection: what came before counts.
      socket.once('error', () => resolve(rest));
      socket.once('close', () => resolve(rest));
    });
    socket.write(head);
    socket.write(firstPart);
    const timeout = new Promise<'no answer'>((resolve) => setTimeout(() => resolve('no answer'), 20_000));
    const outcome = await Promise.race([answered, timeout]);
    rest = false;
    socket.destroy();
    return { answer: received, unsentWhenAnswered: outcome === true };
  }

  it('answers 413 body_too_large to a body whose length is over the limit, before reading it', async () => {
    const declared = 9 * 1024 * 1024;
    const head = `POST /conversations HTTP/1.1\r\nHost: localhost:${portOf(server)}\r\nContent-Type: application/json\r\nContent-Length: ${declared}\r\n\r\n`;

    const { answer, unsentWhenAnswered } = await answerToPartOfABody(head, Buffer.alloc(16 * 1024, 'a'));

    expect(unsentWhenAnswered).toBe(true);
    expect(answer).toMatch(/^HTTP\/1\.1 413 /);
    expect(answer).toMatch(/"code":"body_too_large"/);
  });

  it('answers 413 body_too_large to a chunked body once it passes the limit, before it ends', async () => {
    const head = `POST /conversations HTTP/1.1\r\nHost: localhost:${portOf(server)}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`;
    const piece = Buffer.alloc(32 * 1024, 'a');
    const chunk = Buffer.concat([Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from('\r\n')]);

    // 96 KB of a body that never ends: past the 64 KB limit, far short of the old 10 MB.
    const { answer, unsentWhenAnswered } = await answerToPartOfABody(head, Buffer.concat([chunk, chunk, chunk]));

    expect(unsentWhenAnswered).toBe(true);
    expect(answer).toMatch(/^HTTP\/1\.1 413 /);
    expect(answer).toMatch(/"code":"body_too_large"/);
  });

  it('answers /v1 bodies over the limit in OpenAI\'s error shape', async () => {
    const answer = await rawRequest(server.url, {
      method: 'POST',
      path: '/v1/chat/completions',
      headers: { host: `localhost:${portOf(server)}`, ...ASK },
      body: JSON.stringify({ model: 'mcp-agent', messages: [{ role: 'user', content: 'a'.repeat(70 * 1024) }] }),
    });

    expect(answer.status).toBe(413);
    expect(JSON.parse(answer.body).error).toMatchObject({ code: 'body_too_large', type: 'invalid_request_error' });
  });
});

describe('npm start with ALLOWED_HOSTS and CORS_ALLOW_ORIGINS', () => {
  let server: LocalServer;
  let dataDir: string;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'agent-e2e-guards-settings-'));
    server = await startLocalServer({ LOCAL_DATA_DIR: dataDir, ALLOWED_HOSTS: 'agent.lan, other.lan', CORS_ALLOW_ORIGINS: 'http://app.example:5173' });
  });

  afterAll(async () => {
    await server?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('answers the names ALLOWED_HOSTS adds, as well as the loopback ones, and no other', async () => {
    const port = portOf(server);
    const statuses = await Promise.all(['agent.lan', 'other.lan', 'localhost', 'evil.example'].map(async (name) => (await rawRequest(server.url, { path: '/health', headers: { host: `${name}:${port}` } })).status));

    expect(statuses).toEqual([200, 200, 200, 421]);
  });

  it('lets the origins of CORS_ALLOW_ORIGINS read its answers, and no other', async () => {
    const host = `localhost:${portOf(server)}`;
    const allowed = await rawRequest(server.url, { path: '/health', headers: { host, origin: 'http://app.example:5173' } });
    const other = await rawRequest(server.url, { path: '/health', headers: { host, origin: 'http://evil.example' } });

    expect(allowed.headers['access-control-allow-origin']).toBe('http://app.example:5173');
    expect(other.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('answers the preflight of an allowed origin\'s POST, as API Gateway does in a deployment, and no other\'s', async () => {
    const preflight = (origin: string) =>
      rawRequest(server.url, {
        method: 'OPTIONS',
        path: '/conversations',
        headers: { host: `localhost:${portOf(server)}`, origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type,authorization' },
      });
    const allowed = await preflight('http://app.example:5173');
    const other = await preflight('http://evil.example');

    expect(allowed.status).toBe(204);
    expect(allowed.headers).toMatchObject({ 'access-control-allow-origin': 'http://app.example:5173', 'access-control-allow-methods': expect.stringContaining('POST') });
    expect(allowed.headers['access-control-allow-headers']?.toLowerCase()).toMatch(/content-type.*authorization/);
    expect(other.headers['access-control-allow-origin']).toBeUndefined();
  });
});
