/**
 * Rules of an Amazon Keyspaces target that need the whole spec (the structure is KeyspacesTarget in
 * lib/core/spec/schema.ts).
 */
import type { Issue } from '../../common/errors';
import type { RunSpec } from '../../spec/schema';

/**
 * Keyspaces' maximum row size, 1 MB (https://docs.aws.amazon.com/keyspaces/latest/devguide/quotas.html, "Maximum
 * row size"): a YCSB row of fieldCount × fieldLength bytes of values alone above it cannot be written.
 */
export const KEYSPACES_MAX_ROW_BYTES = 1024 * 1024;

/** `at`: the target's JSON path (`targets[2]`). */
export function keyspacesTargetChecks(spec: RunSpec, at: string, issues: Issue[]): void {
  const valueBytes = spec.dataset.fieldCount * spec.dataset.fieldLength;
  if (valueBytes > KEYSPACES_MAX_ROW_BYTES)
    issues.push({
      path: 'dataset.fieldLength',
      message:
        `${at} is Amazon Keyspaces, whose rows are at most 1 MB (1,048,576 B): fieldCount × fieldLength ` +
        `is ${valueBytes.toLocaleString('en-US')} B`,
    });
}
