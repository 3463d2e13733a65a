/** Notifier on SNS. */
import type { Notifier } from '../core/common/ports';
import { translate } from './errors';

/** The SNS client is loaded lazily so modules that do not notify do not bundle it. */
export class SnsNotifier implements Notifier {
  constructor(
    private readonly topicArn: string,
    private readonly clientConfig: Record<string, unknown> = {},
  ) {}

  async publish(subject: string, message: string): Promise<void> {
    // @aws-sdk/client-sns is part of the Lambda runtime; required lazily (not a dependency of the CLI)
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const sns = require('@aws-sdk/client-sns') as {
      SNSClient: new (c: unknown) => { send(cmd: unknown): Promise<unknown> };
      PublishCommand: new (i: unknown) => unknown;
    };
    try {
      await new sns.SNSClient(this.clientConfig).send(
        new sns.PublishCommand({ TopicArn: this.topicArn, Subject: subject, Message: message }),
      );
    } catch (err) {
      throw translate('SNS', 'Publish', err);
    }
  }
}
