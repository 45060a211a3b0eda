// Debian's node-express (apt-get install node-express; the Makefile's NODE_PACKAGES) lives in /usr/share/nodejs,
// which Debian's node searches but a Node from elsewhere may not: added to the search path when it is not found.
import { createRequire } from 'node:module';
import path from 'node:path';

export function loadExpress() {
  const require = createRequire(import.meta.url);
  try {
    return require('express');
  } catch {
    process.env.NODE_PATH = [process.env.NODE_PATH, '/usr/share/nodejs'].filter(Boolean).join(path.delimiter);
    require('node:module').Module._initPaths();
    return require('express');
  }
}
