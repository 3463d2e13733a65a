/**
 * A Lambda execution environment for one function of the cloud twin (plain Node, no TypeScript):
 * `node lambda-runtime.js <asset dir> <handler>` with the function's environment. Loads the bundled
 * asset's module once (a warm container), then answers invocations sent over IPC
 * ({id, event, context} → {id, result} | {id, error: {errorType, errorMessage}}), as the Lambda
 * runtime interface reports a handler's error (its `name` as errorType).
 */
'use strict';
const path = require('node:path');

const [assetDir, handlerSpec] = process.argv.slice(2);
const dot = handlerSpec.lastIndexOf('.');
const mod = require(path.join(assetDir, handlerSpec.slice(0, dot)));
const handler = mod[handlerSpec.slice(dot + 1)];
if (typeof handler !== 'function') {
  process.stderr.write(`handler ${handlerSpec} is not a function in ${assetDir}\n`);
  process.exit(1);
}

process.on('message', (msg) => {
  const { id, event, context } = msg;
  const ctx = {
    ...context,
    getRemainingTimeInMillis: () => Math.max(0, context.deadlineMs - Date.now()),
  };
  Promise.resolve()
    .then(() => handler(event, ctx))
    .then(
      (result) => process.send({ id, result: result === undefined ? null : result }),
      (err) =>
        process.send({
          id,
          error: {
            errorType: (err && err.name) || 'Error',
            errorMessage: (err && err.message) || String(err),
          },
        }),
    );
});
process.send({ ready: true });
