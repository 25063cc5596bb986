/**
 * A service's regional endpoint, as the SDK's endpoint rules give it for the common partitions:
 * `https://<service>.<region>.amazonaws.com`, `.amazonaws.com.cn` in the China regions, with
 * `-fips` after the service for FIPS endpoints, and `.api.aws` (China: `.api.amazonwebservices.com.cn`)
 * for dual-stack (IPv4 and IPv6) ones. Left out: account-based endpoints and the isolated
 * partitions; give those as an endpoint.
 */
export function regionalEndpoint(service: string, region: string, options: { fips?: boolean; dualstack?: boolean } = {}): string {
  const china = region.startsWith('cn-');
  const host = `${service}${options.fips ? '-fips' : ''}.${region}`;
  if (options.dualstack) return `https://${host}.${china ? 'api.amazonwebservices.com.cn' : 'api.aws'}`;
  return `https://${host}.${china ? 'amazonaws.com.cn' : 'amazonaws.com'}`;
}

/** The region in an AWS endpoint's host name (`dynamodb.eu-west-1.amazonaws.com` → eu-west-1), if any. */
export function regionOfEndpoint(endpoint: string, service: string): string | undefined {
  const found = new RegExp(`^${service}(?:-fips)?\\.([a-z0-9-]+)\\.(?:amazonaws\\.com(?:\\.cn)?|api\\.aws|api\\.amazonwebservices\\.com\\.cn)$`, 'i').exec(new URL(endpoint).hostname);
  return found?.[1];
}
