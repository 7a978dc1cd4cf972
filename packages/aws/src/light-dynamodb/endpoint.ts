/**
 * Where the light client sends its requests: the endpoint given, else the one the AWS SDK's
 * environment settings name (`AWS_ENDPOINT_URL_DYNAMODB`, then `AWS_ENDPOINT_URL`, unless
 * `AWS_IGNORE_CONFIGURED_ENDPOINT_URLS=true`: DynamoDB Local in tests), else DynamoDB's regional
 * endpoint (FIPS with `AWS_USE_FIPS_ENDPOINT=true`, dual-stack with
 * `AWS_USE_DUALSTACK_ENDPOINT=true`, the partition's domain for China, GovCloud and ISO regions).
 */

/** The region's DNS suffix (its partition's). */
function dnsSuffix(region: string, dualStack: boolean): string {
  if (region.startsWith('cn-')) return dualStack ? 'api.amazonwebservices.com.cn' : 'amazonaws.com.cn';
  if (region.startsWith('us-isob-')) return 'sc2s.sgov.gov';
  if (region.startsWith('us-iso-')) return 'c2s.ic.gov';
  return dualStack ? 'api.aws' : 'amazonaws.com';
}

/** The endpoint URL of DynamoDB in `region` for `env`, or `given` when set. */
export function dynamoDbEndpoint(
  region: string,
  env: Readonly<Record<string, string | undefined>>,
  given?: string,
): URL {
  const configured =
    given ??
    (env.AWS_IGNORE_CONFIGURED_ENDPOINT_URLS?.toLowerCase() === 'true'
      ? undefined
      : env.AWS_ENDPOINT_URL_DYNAMODB?.trim() || env.AWS_ENDPOINT_URL?.trim() || undefined);
  if (configured !== undefined) {
    const url = new URL(configured);
    if (url.protocol !== 'https:' && url.protocol !== 'http:') {
      throw new TypeError(`endpoint: an http(s) URL, got ${JSON.stringify(configured)}`);
    }
    return url;
  }
  const fips = env.AWS_USE_FIPS_ENDPOINT?.toLowerCase() === 'true';
  const dualStack = env.AWS_USE_DUALSTACK_ENDPOINT?.toLowerCase() === 'true';
  return new URL(`https://dynamodb${fips ? '-fips' : ''}.${region}.${dnsSuffix(region, dualStack)}`);
}
