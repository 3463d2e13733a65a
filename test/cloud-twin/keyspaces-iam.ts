/**
 * The Amazon Keyspaces API calls of lib/aws/keyspaces-admin.ts as IAM evaluates them, for the twin's gateway
 * (./iam.ts routes the `cassandra` signing service here). Sources: the Service Authorization Reference for
 * Keyspaces (https://docs.aws.amazon.com/service-authorization/latest/reference/list_amazonkeyspacesforapachecassandra.html):
 * its operations table maps CreateKeyspace and CreateTable to cassandra:Create plus cassandra:TagResource (with
 * tags; both take aws:RequestTag/* and aws:TagKeys) and DeleteKeyspace to cassandra:Drop; the resource types are
 * keyspace `arn:aws:cassandra:<region>:<account>:/keyspace/<name>/` and table `…/keyspace/<name>/table/<table>`,
 * and cassandra:Select acts on tables. The reads follow the Keyspaces API reference: GetTable needs Select "for the
 * table and the system keyspace" (https://docs.aws.amazon.com/keyspaces/latest/APIReference/API_GetTable.html),
 * ListTagsForResource "for the specified resource and the system keyspace" (…/API_ListTagsForResource.html),
 * ListTables "for the system keyspace" (…/API_ListTables.html), which is how ListKeyspaces is mapped too. The
 * Service Authorization Reference gives cassandra:Select the table resource only (and the simulator refuses a
 * Select on a keyspace ARN), so a read of the system keyspace is checked on the system table that holds what the
 * call returns: system_schema.tables, system_schema.keyspaces, system_schema_mcs.tags (where the developer guide
 * reads tags, https://docs.aws.amazon.com/keyspaces/latest/devguide/Tagging.Operations.view.table.html); a tag read
 * of a table checks that table too. The grants (lib/constructs/keyspaces-access.ts) also allow Select on fb_
 * keyspace ARNs and `…/keyspace/system*`, so IAM's string match of either reading is covered. DeleteKeyspace carries
 * the keyspace's tags (aws:ResourceTag/<key>, a condition key of the keyspace resource type) from `tagsOf`.
 */
import { ACCOUNT, REGION } from './template';
import {
  resourceTagContext,
  type ApiRequest,
  type IamCheck,
  type Mapped,
  type ResourceTags,
} from './iam-request';

const keyspaceArn = (ks: string) => `arn:aws:cassandra:${REGION}:${ACCOUNT}:/keyspace/${ks}/`;
const tableArn = (ks: string, t: string) =>
  `arn:aws:cassandra:${REGION}:${ACCOUNT}:/keyspace/${ks}/table/${t}`;

/** The IAM checks of one Keyspaces API request; null when the operation is not one the project calls. */
export function mapKeyspaces(req: ApiRequest, tagsOf: ResourceTags = () => ({})): Mapped | null {
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
  const select = (...resources: string[]): IamCheck[] =>
    resources.map((resource) => ({ action: 'cassandra:Select', resource, context: {} }));
  const system = (table: string) => tableArn(table === 'tags' ? 'system_schema_mcs' : 'system_schema', table);
  // the SDK sends the ARN the service returned: the twin's account and region stand in for the emulator's
  const resourceArn = String(p.resourceArn).replace(
    /^arn:aws:cassandra:[^:]*:\d*:/,
    `arn:aws:cassandra:${REGION}:${ACCOUNT}:`,
  );
  const checks: Record<string, () => IamCheck[]> = {
    CreateKeyspace: () => creates(keyspaceArn(ks)),
    CreateTable: () => creates(tableArn(ks, String(p.tableName))),
    GetTable: () => select(tableArn(ks, String(p.tableName)), system('tables')),
    DeleteKeyspace: () => [
      {
        action: 'cassandra:Drop',
        resource: keyspaceArn(ks),
        context: resourceTagContext(tagsOf(keyspaceArn(ks))),
      },
    ],
    // UpdateTable authorizes cassandra:Alter ("alter a keyspace or table") on the table
    UpdateTable: () => [
      { action: 'cassandra:Alter', resource: tableArn(ks, String(p.tableName)), context: {} },
    ],
    ListKeyspaces: () => select(system('keyspaces')),
    // GetKeyspace reads keyspace metadata: checked as ListKeyspaces is, on system_schema.keyspaces
    GetKeyspace: () => select(system('keyspaces')),
    ListTagsForResource: () =>
      select(...(resourceArn.includes('/table/') ? [resourceArn] : []), system('tags')),
  };
  const make = checks[op];
  return make ? { operation: `cassandra:${op}`, checks: make(), params: p } : null;
}
