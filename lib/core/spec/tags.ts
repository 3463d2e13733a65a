/**
 * The spec's `tags` against AWS's tag rules, which every resource a run creates (tables, keyspaces, DAX clusters,
 * EC2 nodes) carries with fleetbench's own tags: checked at validate, not at CreateTable after the run started.
 *
 * AWS's rules (https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/Using_Tags.html#tag-restrictions,
 * https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/TaggingRestrictions.html): a key of 1-128 and a
 * value of 0-256 Unicode characters, of letters, digits, spaces and `_ . : / = + - @` (DynamoDB: without `@`); the
 * `aws:` prefix is reserved, for keys and values; at most 50 tags per resource.
 */
import type { Issue } from '../common/errors';
import { TAG_EXPIRES_AT, TAG_ROLE, TAG_RUN_ID, TAG_SPEC } from '../common/ports';
import { TAG_NODE_INDEX, TAG_TARGET } from '../targets/nodes/cluster';
import { jsonPath } from './errors';
import type { RunSpec } from './schema';
import { kindOf } from '../targets/registry';

export const AWS_MAX_TAGS_PER_RESOURCE = 50;
export const AWS_TAG_KEY_MAX_CHARS = 128;
export const AWS_TAG_VALUE_MAX_CHARS = 256;
const AWS_TAG_CHARS = /^[\p{L}\p{Z}\p{N}_.:/=+\-@]*$/u;

/**
 * The most tags fleetbench puts on one resource besides the spec's: a database node carries the run id, the spec,
 * the expiry, the role, its target and node index (runTags in lib/core/pipeline/run-context.ts, nodeTags in lib/core/targets/nodes/provision.ts) and an EC2
 * `Name` (lib/aws/ec2-cluster.ts).
 */
export const FLEETBENCH_OWN_TAG_KEYS = [
  TAG_RUN_ID,
  TAG_SPEC,
  TAG_EXPIRES_AT,
  TAG_ROLE,
  TAG_TARGET,
  TAG_NODE_INDEX,
  'Name',
] as const;

/** The spec's tags a resource can carry: AWS's 50 less fleetbench's own. */
export const MAX_SPEC_TAGS = AWS_MAX_TAGS_PER_RESOURCE - FLEETBENCH_OWN_TAG_KEYS.length;

/** Unicode characters (code points), as AWS counts them. */
const chars = (s: string): number => [...s].length;

const shown = (s: string): string => JSON.stringify(s.length > 40 ? `${s.slice(0, 37)}...` : s);

/** A service's narrower tag characters (a target kind's `tagCharacters`). */
type TagRule = { allowed: RegExp; refusal: string };

function tagTextProblem(
  what: 'key' | 'value',
  s: string,
  max: number,
  rules: readonly TagRule[],
): string | null {
  if (chars(s) > max) return `expected a tag ${what} of at most ${max} Unicode characters, found ${chars(s)}`;
  if (!AWS_TAG_CHARS.test(s))
    return `expected a tag ${what} of letters, digits, spaces and _ . : / = + - @ (AWS's tag characters), found ${shown(s)}`;
  const narrower = rules.find((r) => !r.allowed.test(s));
  if (narrower) return `expected a tag ${what} ${narrower.refusal}, found ${shown(s)}`;
  if (what === 'value' && s.toLowerCase().startsWith('aws:'))
    return 'tag values starting with "aws:" are reserved by AWS';
  return null;
}

export function tagChecks(spec: RunSpec, issues: Issue[]): void {
  const keys = Object.keys(spec.tags);
  // the narrower characters of the services whose resources the run tags, once each
  const rules = [
    ...new Map(
      spec.targets.flatMap((t) => kindOf(t).tagCharacters?.(t) ?? []).map((r) => [r.refusal, r]),
    ).values(),
  ];
  if (keys.length > MAX_SPEC_TAGS)
    issues.push({
      path: 'tags',
      message:
        `expected at most ${MAX_SPEC_TAGS} tags: AWS allows ${AWS_MAX_TAGS_PER_RESOURCE} per resource and fleetbench ` +
        `adds up to ${FLEETBENCH_OWN_TAG_KEYS.length} of its own (${FLEETBENCH_OWN_TAG_KEYS.join(', ')}), found ${keys.length}`,
    });
  for (const key of keys) {
    const at = jsonPath(['tags', key]);
    const lower = key.toLowerCase();
    if (lower.startsWith('aws:'))
      issues.push({ path: at, message: 'tag keys starting with "aws:" are reserved by AWS' });
    else if (lower.startsWith('fleetbench:') || key === 'Name')
      issues.push({
        path: at,
        message: `"${key}" is one of fleetbench's own tags (${FLEETBENCH_OWN_TAG_KEYS.join(', ')}); choose another key`,
      });
    const problem =
      tagTextProblem('key', key, AWS_TAG_KEY_MAX_CHARS, rules) ??
      tagTextProblem('value', spec.tags[key]!, AWS_TAG_VALUE_MAX_CHARS, rules);
    if (problem) issues.push({ path: at, message: problem });
  }
}
