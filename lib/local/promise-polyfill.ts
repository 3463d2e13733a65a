/** aws-local-stepfunctions 3 calls Promise.withResolvers (Node 22+): defined here for Node 20. */
const P = Promise as unknown as { withResolvers?: () => unknown };
if (!P.withResolvers) {
  P.withResolvers = function withResolvers() {
    let resolve!: (v: unknown) => void;
    let reject!: (e: unknown) => void;
    const promise = new Promise((a, b) => {
      resolve = a;
      reject = b;
    });
    return { promise, resolve, reject };
  };
}

export {};
