/**
 * What the CLI makes of an error (lib/cli/main.ts exitCodeFor): a machine that cannot build the loader (no Maven, no
 * access to Maven Central) is told what Maven said, with exit 2, not an "internal error" and a stack trace.
 */
import { LoaderBuildError } from '../../../lib/build/maven';
import { InputError } from '../../../lib/core/common/errors';
import { EXIT_INPUT, EXIT_INTERNAL, exitCodeFor } from '../../../lib/cli/main';

function stderrOf(f: () => number): { code: number; text: string } {
  const spy = jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
  try {
    const code = f();
    return { code, text: spy.mock.calls.map((c) => String(c[0])).join('') };
  } finally {
    spy.mockRestore();
  }
}

test('a loader build failure: exit 2 with Maven’s words, no stack', () => {
  const err = new LoaderBuildError(
    "cannot run the loader build: '/nonexistent/mvn' not found on PATH. Install Maven 3.8+ and a JDK 17",
  );
  const { code, text } = stderrOf(() => exitCodeFor(err));
  expect(code).toBe(EXIT_INPUT);
  expect(text).toMatch(/^cannot build the loader .*'\/nonexistent\/mvn' not found on PATH/);
  expect(text).not.toMatch(/internal error|\n\s+at /);
});

test('an input error is exit 2; anything else an internal error with its stack', () => {
  expect(stderrOf(() => exitCodeFor(new InputError([{ path: 'x', message: 'bad' }]))).code).toBe(EXIT_INPUT);
  const other = stderrOf(() => exitCodeFor(new TypeError('boom')));
  expect(other.code).toBe(EXIT_INTERNAL);
  expect(other.text).toMatch(/^internal error: TypeError: boom\n\s+at /);
});
