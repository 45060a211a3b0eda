// Type declarations of gatehouse-receipts' ES module entry (index.js): the declarations of the CommonJS entry
// (index.d.cts), which is the one implementation both entries share, and the library object as the default export.
export * from './index.cjs';
import * as library from './index.cjs';
export default library;
