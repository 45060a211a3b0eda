// The TypeScript declarations, compiled as a consumer sees them (types/consumer.mts through import, types/consumer.cts
// through require), with Debian's tsc when it is installed (apt-get install node-typescript); skipped otherwise.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const tsc = spawnSync('sh', ['-c', 'command -v tsc'], { encoding: 'utf8' }).stdout.trim();

test('the declarations compile for ES module and CommonJS consumers', { skip: tsc === '' ? 'tsc is not installed (apt-get install node-typescript)' : false }, () => {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'gatehouse-types-'));
  try {
    for (const file of ['consumer.mts', 'consumer.cts', 'tsconfig.json']) fs.copyFileSync(path.join(here, 'types', file), path.join(directory, file));
    fs.mkdirSync(path.join(directory, 'node_modules'));
    fs.symlinkSync(path.resolve(here, '..'), path.join(directory, 'node_modules', 'gatehouse-receipts'), 'dir');
    try {
      execFileSync(tsc, ['-p', path.join(directory, 'tsconfig.json')], { encoding: 'utf8' });
    } catch (error) {
      assert.fail(`tsc found errors:\n${error.stdout}${error.stderr}`);
    }
  } finally {
    fs.rmSync(directory, { recursive: true, force: true });
  }
});
