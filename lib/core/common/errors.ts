/**
 * The project's own error types. Domain code throws these; the CLI maps them to exit codes
 * (InputError -> 2, anything else -> 1) and adapters translate SDK errors into them.
 */

/** One problem with user input: where it is (a JSON path or a file:line) and what was expected. */
export interface Issue {
  path: string;
  message: string;
}

/** Bad input from the user: a spec, a file, a flag. Carries every problem found, not only the first. */
export class InputError extends Error {
  readonly issues: Issue[];
  constructor(issues: Issue[] | string) {
    const list = typeof issues === 'string' ? [{ path: '', message: issues }] : issues;
    super(list.map(formatIssue).join('\n'));
    this.name = 'InputError';
    this.issues = list;
  }
}

export function formatIssue(issue: Issue): string {
  return issue.path ? `${issue.path}: ${issue.message}` : issue.message;
}
