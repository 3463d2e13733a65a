/**
 * The login secrets of the run's cassandra-ec2 clusters (lib/core/targets/cassandra-ec2/cql-auth.ts) as a resource type
 * (lib/core/resources): named by the context's login entries, each deleted only when it carries the run's tag
 * (DescribeSecret, then DeleteSecret by the ARN it answered).
 */
import { removeOwned } from '../../pipeline/ownership';
import type { ResourceType } from '../../resources/resource-type';
import { entriesOf } from '../../resources/run-resource';
import { LOGIN_SECRET_ENTRY } from './entries';
import { sweepExpiredLoginSecrets } from './login-sweep';

export const LOGIN_SECRETS: ResourceType = {
  id: LOGIN_SECRET_ENTRY.shape.type.value,
  order: 25,
  service: 'Secrets Manager',
  noun: 'login secret',
  verb: 'deleted',
  activity: 'deleting login secrets',
  record: { removed: 'deletedSecrets', kept: 'keptSecrets' },
  swept: ['deletedSecrets'],
  available: (ports) => ports.secrets !== undefined,
  // without the context the names are unknown: the janitor's expiry sweep finds them
  mayExist: (run) => entriesOf(run, LOGIN_SECRET_ENTRY).length > 0,
  namedIn: () => [],
  async removeForRun(runId, run, { secrets }) {
    const arns = new Map<string, string>();
    const names = entriesOf(run, LOGIN_SECRET_ENTRY).map((c) => c.name);
    return removeOwned(runId, 'login secret', names, {
      tags: async (name) => {
        const s = await secrets!.describeSecret(name);
        if (s) arns.set(name, s.arn);
        return s?.tags ?? null;
      },
      remove: async (name) => {
        await secrets!.deleteSecret(arns.get(name)!);
        return true;
      },
    });
  },
  async sweepExpired({ secrets }, expired) {
    const errors: string[] = [];
    const deleted = await sweepExpiredLoginSecrets(secrets!, expired, errors);
    return { removed: { deletedSecrets: deleted }, errors };
  },
  liveByRun: async () => [],
};
