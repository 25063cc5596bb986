/**
 * A test's own folder under the system's temporary folder, removed when the test is done, however it
 * ends: without this, every run of the suite left its folders behind in /tmp, thousands after a while.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, onTestFinished, TestRunner } from 'vitest';

/**
 * A new empty folder named `prefix` and a random tail, removed (with all it holds) when the test that
 * made it finishes, passed or failed, after its afterEach hooks; made outside a test (at the top of
 * the file or in a describe block's body), removed once the tests around it have run. Not for
 * beforeAll: an afterAll registered while the tests run is never called, so a folder made there is
 * removed by the matching afterAll itself, after whatever still uses it has ended.
 */
export function temporaryFolder(prefix: string): string {
  const folder = mkdtempSync(join(tmpdir(), prefix));
  const remove = () => rmSync(folder, { recursive: true, force: true });
  if (TestRunner.getCurrentTest()) onTestFinished(remove);
  else afterAll(remove);
  return folder;
}
