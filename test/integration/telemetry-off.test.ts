/**
 * Telemetry off costs nothing: without OTEL_EXPORTER_OTLP_ENDPOINT no OpenTelemetry module is
 * loaded at all; with it, the SDK and the OTLP exporters are. Each case in a fresh process, whose
 * module loads a hook records.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const SCRIPT = fileURLToPath(new URL('../fixtures/telemetry-modules.ts', import.meta.url));

async function modulesLoaded(environment: Record<string, string>): Promise<{ telemetry: boolean; packages: string[] }> {
  const { stdout } = await run(process.execPath, [SCRIPT], { env: { PATH: process.env.PATH ?? '', ...environment }, timeout: 60_000 });
  return JSON.parse(stdout);
}

describe('loadTelemetry', () => {
  it('loads no OpenTelemetry module when OTEL_EXPORTER_OTLP_ENDPOINT is unset', async () => {
    expect(await modulesLoaded({})).toEqual({ telemetry: false, packages: [] });
  });

  it('loads the SDK and the OTLP/HTTP exporters when it is set', async () => {
    const loaded = await modulesLoaded({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9' });
    expect(loaded.telemetry).toBe(true);
    expect(loaded.packages).toEqual(expect.arrayContaining(['api', 'sdk-trace', 'sdk-metrics', 'exporter-trace-otlp-http', 'exporter-metrics-otlp-http']));
  });
});
