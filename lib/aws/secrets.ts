/** Reads secrets from Secrets Manager (the loader agent's credentials for external targets). */
import {
  GetSecretValueCommand,
  SecretsManagerClient,
  type SecretsManagerClientConfig,
} from '@aws-sdk/client-secrets-manager';
import { translate } from './errors';

export class SecretsManagerSecrets {
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
}
