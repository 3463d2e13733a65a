/**
 * Secrets Manager: the loader agent's credentials for external targets (GetSecretValue), and the run's
 * cassandra-ec2 logins (the SecretAdmin port: create tagged, describe by name, delete at once, list by prefix).
 */
import {
  CreateSecretCommand,
  DeleteSecretCommand,
  DescribeSecretCommand,
  GetSecretValueCommand,
  ListSecretsCommand,
  SecretsManagerClient,
  type SecretsManagerClientConfig,
} from '@aws-sdk/client-secrets-manager';
import { ConflictError, type SecretAdmin, type Tags } from '../core/common/ports';
import { errorName, translate } from './errors';

export class SecretsManagerSecrets implements SecretAdmin {
  readonly client: SecretsManagerClient;
  constructor(clientOrConfig: SecretsManagerClient | SecretsManagerClientConfig = {}) {
    this.client =
      clientOrConfig instanceof SecretsManagerClient
        ? clientOrConfig
        : new SecretsManagerClient(clientOrConfig);
  }

  /** The secret's string value (binary secrets are refused: the agent expects JSON). */
  async secretString(secretArn: string): Promise<string> {
    let out;
    try {
      out = await this.client.send(new GetSecretValueCommand({ SecretId: secretArn }));
    } catch (err) {
      throw translate('SecretsManager', 'GetSecretValue', err);
    }
    if (typeof out.SecretString !== 'string') {
      throw new Error(`secret ${secretArn} has no string value (store the credentials as JSON text)`);
    }
    return out.SecretString;
  }

  /** CreateSecret with its tags in the same call (the IAM condition on aws:RequestTag sees them). */
  async createSecret(req: { name: string; value: string; tags: Tags }): Promise<string> {
    try {
      const out = await this.client.send(
        new CreateSecretCommand({
          Name: req.name,
          SecretString: req.value,
          Tags: Object.entries(req.tags).map(([Key, Value]) => ({ Key, Value })),
        }),
      );
      return out.ARN!;
    } catch (err) {
      if (errorName(err) === 'ResourceExistsException')
        throw new ConflictError(`SecretsManager CreateSecret: ${req.name} exists`, { cause: err });
      throw translate('SecretsManager', 'CreateSecret', err);
    }
  }

  /** A secret by name; null when there is none or it is scheduled for deletion. */
  async describeSecret(name: string): Promise<{ arn: string; tags: Tags } | null> {
    try {
      const out = await this.client.send(new DescribeSecretCommand({ SecretId: name }));
      if (out.DeletedDate) return null;
      return {
        arn: out.ARN!,
        tags: Object.fromEntries((out.Tags ?? []).map((t) => [t.Key ?? '', t.Value ?? ''])),
      };
    } catch (err) {
      if (errorName(err) === 'ResourceNotFoundException') return null;
      throw translate('SecretsManager', 'DescribeSecret', err);
    }
  }

  /** Deletes at once (no recovery window: the run's login is worthless once its nodes are gone). */
  async deleteSecret(arn: string): Promise<void> {
    try {
      await this.client.send(new DeleteSecretCommand({ SecretId: arn, ForceDeleteWithoutRecovery: true }));
    } catch (err) {
      if (errorName(err) === 'ResourceNotFoundException') return;
      throw translate('SecretsManager', 'DeleteSecret', err);
    }
  }

  /**
   * ListSecrets with the name filter (a prefix match on AWS), every page; the prefix is checked again here, and
   * secrets scheduled for deletion (which ListSecrets leaves out by default) are skipped.
   */
  async listSecrets(prefix: string): Promise<{ name: string; arn: string; tags: Tags }[]> {
    const out: { name: string; arn: string; tags: Tags }[] = [];
    let token: string | undefined;
    try {
      do {
        const page = await this.client.send(
          new ListSecretsCommand({ Filters: [{ Key: 'name', Values: [prefix] }], NextToken: token }),
        );
        for (const s of page.SecretList ?? []) {
          if (!s.Name?.startsWith(prefix) || !s.ARN || s.DeletedDate) continue;
          out.push({
            name: s.Name,
            arn: s.ARN,
            tags: Object.fromEntries((s.Tags ?? []).map((t) => [t.Key ?? '', t.Value ?? ''])),
          });
        }
        token = page.NextToken;
      } while (token);
    } catch (err) {
      throw translate('SecretsManager', 'ListSecrets', err);
    }
    return out;
  }
}
