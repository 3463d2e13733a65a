/**
 * A custom binding's jars and Maven coordinates (ExternalTarget.binding in lib/core/spec/schema.ts): what the structure cannot say.
 * Coordinates must name one fixed release, and a jar's URI no `.`/`..` segment (its object would not be the one the
 * prefix check in Plan admitted).
 */
import type { Issue } from '../../common/errors';
import type { ExternalTarget } from '../../spec/schema';

/**
 * Maven versions that are not one fixed release: the `RELEASE` and `LATEST` meta-versions (whatever the repository
 * says today) and `-SNAPSHOT` versions (republished under the same name), so a run could not say which code it ran
 * (https://maven.apache.org/guides/getting-started/index.html#what-is-a-snapshot-version).
 */
export function unpinnedVersionProblem(version: string): string | null {
  if (version === 'RELEASE' || version === 'LATEST')
    return `"${version}" is a Maven meta-version (whatever the repository holds today)`;
  if (/-SNAPSHOT$/i.test(version)) return `"${version}" is a snapshot (republished under the same version)`;
  return null;
}

/** A `.` or `..` path segment in a jar URI, or null. */
export function dotSegmentProblem(uri: string): string | null {
  const rest = uri.replace(/^[a-z][a-z0-9+.-]*:\/\//i, '');
  return rest.split('/').some((seg) => seg === '.' || seg === '..')
    ? 'a "." or ".." path segment (the object read would not be the one named)'
    : null;
}

/** A user's binding: pinned Maven versions, jar URIs without dot segments. */
export function coordinateChecks(
  binding: NonNullable<ExternalTarget['binding']>,
  at: string,
  issues: Issue[],
): void {
  binding.maven.forEach((coords, k) => {
    const problem = unpinnedVersionProblem(coords.split(':').pop() ?? '');
    if (problem)
      issues.push({
        path: `${at}.binding.maven[${k}]`,
        message: `expected group:artifact:version with a fixed release version, found ${problem}: pin a release`,
      });
  });
  binding.jars.forEach((jar, k) => {
    const problem = dotSegmentProblem(jar);
    if (problem)
      issues.push({
        path: `${at}.binding.jars[${k}]`,
        message: `expected the URI of one .jar, found ${problem}`,
      });
  });
}
