/**
 * AccountQuotas on AWS: Service Quotas (GetServiceQuota, falling back to GetAWSDefaultServiceQuota for
 * quotas never changed in the account), DynamoDB DescribeLimits and EC2 DescribeAvailabilityZones.
 * A value that cannot be read (denied, not offered in the region or by the emulator) is null: the
 * preflight reports it as unverified instead of guessing.
 */
import { DescribeLimitsCommand, DynamoDBClient, type DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import { DescribeAvailabilityZonesCommand, EC2Client, type EC2ClientConfig } from '@aws-sdk/client-ec2';
import {
  GetAWSDefaultServiceQuotaCommand,
  GetServiceQuotaCommand,
  ServiceQuotasClient,
} from '@aws-sdk/client-service-quotas';
import type { AccountQuotas, DynamoDbLimits } from '../core/common/ports';

export interface AwsAccountQuotasConfig {
  region?: string;
  /** Per-service endpoints (tests: moto server for Service Quotas and EC2, DynamoDB Local or moto for DynamoDB). */
  endpoints?: { serviceQuotas?: string; dynamodb?: string; ec2?: string };
  credentials?: DynamoDBClientConfig['credentials'];
}

export class AwsAccountQuotas implements AccountQuotas {
  private readonly sq: ServiceQuotasClient;
  private readonly ddb: DynamoDBClient;
  private readonly ec2: EC2Client;

  constructor(config: AwsAccountQuotasConfig = {}) {
    const base = {
      ...(config.region ? { region: config.region } : {}),
      ...(config.credentials ? { credentials: config.credentials } : {}),
    };
    const at = (endpoint?: string) => (endpoint ? { endpoint } : {});
    this.sq = new ServiceQuotasClient({ ...base, ...at(config.endpoints?.serviceQuotas) });
    this.ddb = new DynamoDBClient({ ...base, ...at(config.endpoints?.dynamodb) });
    this.ec2 = new EC2Client({ ...base, ...(at(config.endpoints?.ec2) as EC2ClientConfig) });
  }

  async dynamoDbLimits(): Promise<DynamoDbLimits | null> {
    try {
      const l = await this.ddb.send(new DescribeLimitsCommand({}));
      const v = [
        l.TableMaxReadCapacityUnits,
        l.TableMaxWriteCapacityUnits,
        l.AccountMaxReadCapacityUnits,
        l.AccountMaxWriteCapacityUnits,
      ];
      if (v.some((x) => typeof x !== 'number')) return null;
      return {
        tableMaxReadCapacityUnits: l.TableMaxReadCapacityUnits!,
        tableMaxWriteCapacityUnits: l.TableMaxWriteCapacityUnits!,
        accountMaxReadCapacityUnits: l.AccountMaxReadCapacityUnits!,
        accountMaxWriteCapacityUnits: l.AccountMaxWriteCapacityUnits!,
      };
    } catch {
      return null;
    }
  }

  async quota(serviceCode: string, quotaCode: string): Promise<number | null> {
    const input = { ServiceCode: serviceCode, QuotaCode: quotaCode };
    for (const command of [new GetServiceQuotaCommand(input), new GetAWSDefaultServiceQuotaCommand(input)]) {
      try {
        const out = await this.sq.send(command as GetServiceQuotaCommand);
        if (typeof out.Quota?.Value === 'number') return out.Quota.Value;
      } catch {
        // not applied in this account (NoSuchResourceException), or not readable: try the default
      }
    }
    return null;
  }

  async availabilityZones(): Promise<string[] | null> {
    try {
      const out = await this.ec2.send(
        new DescribeAvailabilityZonesCommand({
          Filters: [
            { Name: 'state', Values: ['available'] },
            { Name: 'zone-type', Values: ['availability-zone'] },
          ],
        }),
      );
      return (out.AvailabilityZones ?? []).map((z) => z.ZoneName ?? '').filter(Boolean);
    } catch {
      return null;
    }
  }
}
