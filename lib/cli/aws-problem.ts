/**
 * What an AWS command (start, status, results, doctor, ...) says when AWS cannot be reached as configured: one
 * line naming what is missing and how to set it (exit 2, no stack trace), as `doctor` does. A missing stack is
 * already an InputError (StackOutputs.load); this covers the region, the credentials, the permissions and the
 * endpoint, found anywhere in the error's `cause` chain (the adapters wrap the SDK's errors).
 */

const DENIED = new Set([
  'AccessDenied',
  'AccessDeniedException',
  'UnauthorizedOperation',
  'UnauthorizedAccess',
  'AuthorizationError',
  'AuthorizationErrorException',
  'Forbidden',
]);
const REJECTED = new Set([
  'ExpiredToken',
  'ExpiredTokenException',
  'InvalidClientTokenId',
  'UnrecognizedClientException',
  'InvalidAccessKeyId',
  'SignatureDoesNotMatch',
  'InvalidSignatureException',
  'AuthFailure',
]);
const UNREACHABLE = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'ECONNRESET',
  'EHOSTUNREACH',
]);

interface ErrorLike {
  name?: string;
  message?: string;
  code?: string;
  Code?: string;
  hostname?: string;
  cause?: unknown;
  $metadata?: { httpStatusCode?: number };
  $response?: { statusCode?: number };
}

function chain(err: unknown): ErrorLike[] {
  const out: ErrorLike[] = [];
  for (let e = err; e && typeof e === 'object' && out.length < 10; e = (e as ErrorLike).cause)
    out.push(e as ErrorLike);
  return out;
}

/** The one line for an AWS configuration problem in `err`, or undefined when it is something else. */
export function awsProblem(err: unknown): string | undefined {
  const errs = chain(err);
  const first = errs[0];
  // "CloudFormation: DescribeStacks: ..." (CloudError): the call that failed
  const call = /^([A-Za-z0-9 ]+): ([A-Za-z0-9]+): /.exec(first?.message ?? '');
  const what = call ? `${call[1]} ${call[2]}` : 'an AWS call';
  for (const e of errs) {
    const name = e.name ?? '';
    const code = e.Code ?? e.code ?? '';
    const message = e.message ?? '';
    if (/^Region is missing/.test(message))
      return 'AWS region: none configured: set AWS_REGION (or a region in your AWS profile), or pass --region';
    if (name === 'CredentialsProviderError' || /Could not load credentials/.test(message))
      return 'AWS credentials: none found: set AWS_PROFILE (a profile in ~/.aws/config, e.g. after `aws configure` or `aws sso login`) or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY';
    if (name === 'TokenProviderError' || REJECTED.has(name) || REJECTED.has(code))
      return `AWS credentials: rejected by ${what} (${name || code}): refresh them (\`aws sso login\`) or set valid AWS_PROFILE or AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY`;
    if (DENIED.has(name) || DENIED.has(code))
      return `AWS permissions: ${what} denied (${name || code}): use credentials whose IAM policy allows it (AWS_PROFILE), or check the region and --stack`;
    if (UNREACHABLE.has(code))
      return `AWS endpoint: cannot reach it for ${what} (${code}${e.hostname ? ` ${e.hostname}` : ''}): check the network, the region and AWS_ENDPOINT_URL`;
  }
  // refused without a readable error (an HTTP 403 the SDK could not parse)
  if (errs.some((e) => (e.$metadata?.httpStatusCode ?? e.$response?.statusCode) === 403))
    return `AWS credentials or permissions: ${what} refused (HTTP 403): check AWS_PROFILE or AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY and their IAM policy`;
  return undefined;
}
