/** A request the twin receives and the IAM checks it maps to (iam.ts maps; iam-dax.ts and keyspaces-iam.ts too). */

export interface ApiRequest {
  /** SigV4 credential scope service: s3, dynamodb, ec2, ssm, monitoring, states, sns, logs, secretsmanager */
  service: string;
  method: string;
  path: string;
  query: URLSearchParams;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

export interface IamCheck {
  action: string;
  resource: string;
  context: Record<string, string | string[]>;
  /** The resource's own policy when AWS evaluates one too (a KMS key policy). */
  resourcePolicy?: unknown;
}

export interface Mapped {
  /** `s3:GetObject`, `ssm:SendCommand`, ... (the API operation, service-prefixed) */
  operation: string;
  checks: IamCheck[];
  /** Parsed parameters (JSON body or query form), for the twin's own handling. */
  params: Record<string, unknown>;
}

/**
 * The tags a MemoryDB or Keyspaces resource carries (by the ARN ./iam-memorydb.ts and ./keyspaces-iam.ts give it),
 * as IAM sees them for aws:ResourceTag conditions; {} when it has none or is unknown.
 */
export type ResourceTags = (arn: string) => Record<string, string>;

/** A resource's tags as IAM's aws:ResourceTag/<key> context. */
export function resourceTagContext(tags: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(tags).map(([k, v]) => [`aws:ResourceTag/${k}`, v]));
}
