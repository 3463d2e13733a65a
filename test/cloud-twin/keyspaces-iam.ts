/**
 * The Amazon Keyspaces API calls of lib/aws/keyspaces-admin.ts as IAM evaluates them, for the twin's gateway
 * (./iam.ts routes the `cassandra` signing service here). Sources: the Service Authorization Reference for
 * Keyspaces (https://docs.aws.amazon.com/service-authorization/latest/reference/list_amazonkeyspacesforapachecassandra.html):
 * its operations table maps CreateKeyspace and CreateTable to cassandra:Create plus cassandra:TagResource (with
 * tags; both take aws:RequestTag/* and aws:TagKeys) and DeleteKeyspace to cassandra:Drop; the resource types are
 * keyspace `arn:aws:cassandra:<region>:<account>:/keyspace/<name>/` and table `…/keyspace/<name>/table/<table>`,
 * and cassandra:Select requires a table. The read operations (GetTable, ListKeyspaces, ListTagsForResource) are
 * mapped, as an assumption no stored copy of that table confirmed, to cassandra:Select on the table read: the
 * table itself for GetTable, Keyspaces' system_schema tables for the list and the tags.
 */
import { ACCOUNT, REGION } from './template';
import type { ApiRequest, IamCheck, Mapped } from './iam';

const keyspaceArn = (ks: string) => `arn:aws:cassandra:${REGION}:${ACCOUNT}:/keyspace/${ks}/`;
const tableArn = (ks: string, t: string) =>
  `arn:aws:cassandra:${REGION}:${ACCOUNT}:/keyspace/${ks}/table/${t}`;

/** The IAM checks of one Keyspaces API request; null when the operation is not one the project calls. */
export function mapKeyspaces(req: ApiRequest): Mapped | null {
  const op = String(req.headers['x-amz-target'] ?? '').replace(/^KeyspacesService\./, '');
  const p = (req.body.length ? JSON.parse(req.body.toString('utf8')) : {}) as Record<string, unknown>;
  const ks = String(p.keyspaceName);
  const creates = (resource: string): IamCheck[] => {
    const tags = (p.tags ?? []) as { key: string; value: string }[];
    const context: Record<string, string | string[]> = { 'aws:TagKeys': tags.map((t) => t.key) };
    for (const t of tags) context[`aws:RequestTag/${t.key}`] = t.value;
    return [
      { action: 'cassandra:Create', resource, context },
      ...(tags.length ? [{ action: 'cassandra:TagResource', resource, context }] : []),
    ];
  };
  const select = (resource: string): IamCheck[] => [{ action: 'cassandra:Select', resource, context: {} }];
  const checks: Record<string, () => IamCheck[]> = {
    CreateKeyspace: () => creates(keyspaceArn(ks)),
    CreateTable: () => creates(tableArn(ks, String(p.tableName))),
    GetTable: () => select(tableArn(ks, String(p.tableName))),
    DeleteKeyspace: () => [{ action: 'cassandra:Drop', resource: keyspaceArn(ks), context: {} }],
    ListKeyspaces: () => select(tableArn('system_schema', 'keyspaces')),
    ListTagsForResource: () => select(tableArn('system_schema_mcs', 'tags')),
  };
  const make = checks[op];
  return make ? { operation: `cassandra:${op}`, checks: make(), params: p } : null;
}
