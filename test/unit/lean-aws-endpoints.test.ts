import { describe, expect, it } from 'vitest';
import { regionalEndpoint, regionOfEndpoint } from '../../lib/adapters/aws/endpoint.ts';
import { errorTypeName, serviceError } from '../../lib/adapters/aws/service-error.ts';
import { retryErrorType } from '../../lib/adapters/aws/retry-quota.ts';
import { leanDynamoFromEnvironment } from '../../lib/lean-dynamo.ts';

/** Where the lean AWS clients send requests, and how they read error types, as the AWS SDK does. */
describe('the lean AWS clients’ endpoints', () => {
  it.each([
    ['eu-west-1', {}, 'https://dynamodb.eu-west-1.amazonaws.com'],
    ['cn-north-1', {}, 'https://dynamodb.cn-north-1.amazonaws.com.cn'],
    ['us-east-1', { fips: true }, 'https://dynamodb-fips.us-east-1.amazonaws.com'],
    ['us-east-1', { dualstack: true }, 'https://dynamodb.us-east-1.api.aws'],
    ['us-east-1', { fips: true, dualstack: true }, 'https://dynamodb-fips.us-east-1.api.aws'],
    ['cn-north-1', { dualstack: true }, 'https://dynamodb.cn-north-1.api.amazonwebservices.com.cn'],
  ])('DynamoDB in %s %o: %s', (region, options, endpoint) => {
    expect(regionalEndpoint('dynamodb', region, options)).toBe(endpoint);
  });

  it('reads the region of an AWS endpoint, and none of an emulator', () => {
    expect(regionOfEndpoint('https://dynamodb.ap-southeast-2.amazonaws.com', 'dynamodb')).toBe('ap-southeast-2');
    expect(regionOfEndpoint('https://dynamodb-fips.us-gov-west-1.amazonaws.com', 'dynamodb')).toBe('us-gov-west-1');
    expect(regionOfEndpoint('http://localhost:8000', 'dynamodb')).toBeUndefined();
  });

  it('needs a region, and says which variable sets it', () => {
    expect(() => leanDynamoFromEnvironment({ requestTimeoutSeconds: 5, connectTimeoutSeconds: 2 }, {})).toThrow(/AWS_REGION/);
    expect(() => leanDynamoFromEnvironment({ requestTimeoutSeconds: 5, connectTimeoutSeconds: 2 }, { AWS_ENDPOINT_URL_DYNAMODB: 'https://dynamodb.eu-west-1.amazonaws.com' })).not.toThrow();
    expect(() => leanDynamoFromEnvironment({ requestTimeoutSeconds: 5, connectTimeoutSeconds: 2 }, { AWS_REGION: 'eu-west-1', AWS_MAX_ATTEMPTS: 'many' })).toThrow(/AWS_MAX_ATTEMPTS/);
  });

  it('names an error by the type after # (and before : in x-amzn-errortype)', () => {
    expect(errorTypeName('com.amazonaws.dynamodb.v20120810#ConditionalCheckFailedException')).toBe('ConditionalCheckFailedException');
    expect(errorTypeName('ResourceNotFoundException:http://internal.amazon.com/coral/com.amazon.coral.service/')).toBe('ResourceNotFoundException');
    expect(errorTypeName('AccessDeniedException')).toBe('AccessDeniedException');
  });

  it('reads an error type as the SDK does: the first of a list, before any ":", after "#", even when what follows ":" holds a "#"', () => {
    expect(errorTypeName('ThrottlingException, ThrottlingException')).toBe('ThrottlingException');
    expect(errorTypeName('aws.protocoltests#FooError:http://internal.amazon.com/coral/#anchor')).toBe('FooError');
  });

  it('takes the error type from __type, then a code field, then x-amzn-errortype, as the SDK’s JSON protocol does', () => {
    const headers = (type: string | null) => ({ get: (name: string) => (name === 'x-amzn-errortype' ? type : null) });
    expect(serviceError(400, headers('HeaderType'), { __type: 'ns#BodyType' }, undefined).name).toBe('BodyType');
    expect(serviceError(400, headers('HeaderType'), { code: 'CodeType' }, undefined).name).toBe('CodeType');
    expect(serviceError(400, headers('HeaderType'), { Code: 'CodeType' }, undefined).name).toBe('CodeType');
    expect(serviceError(400, headers('HeaderType:http://internal.amazon.com/'), {}, undefined).name).toBe('HeaderType');
  });

  it('classifies failures as the SDK does: throttling by name or 429, transient by status, timeout or connection, the rest not retried', () => {
    const named = (name: string) => Object.assign(new Error('x'), { name });
    expect(retryErrorType({ error: named('RequestLimitExceeded'), status: 400 })).toBe('THROTTLING');
    expect(retryErrorType({ error: named('Whatever'), status: 429 })).toBe('THROTTLING');
    expect(retryErrorType({ error: named('InternalServerError'), status: 500 })).toBe('TRANSIENT');
    expect(retryErrorType({ error: named('ServiceUnavailable'), status: 503 })).toBe('TRANSIENT');
    expect(retryErrorType({ error: named('TimeoutError'), transport: true })).toBe('TRANSIENT');
    expect(retryErrorType({ error: new TypeError('fetch failed'), transport: true })).toBe('TRANSIENT');
    expect(retryErrorType({ error: named('NotImplemented'), status: 501 })).toBe('SERVER_ERROR');
    expect(retryErrorType({ error: named('ValidationException'), status: 400 })).toBe('CLIENT_ERROR');
    expect(retryErrorType({ error: named('AbortError') })).toBe('CLIENT_ERROR');
    // As the SDK: a signature refused for the clock is retried, signed with the corrected clock.
    const expired = Object.assign(new Error('Signature expired: 20260101T000000Z is now earlier than 20260101T000500Z'), { name: 'InvalidSignatureException' });
    expect(retryErrorType({ error: expired, status: 400 })).toBe('TRANSIENT');
    expect(retryErrorType({ error: named('InvalidSignatureException'), status: 403 })).toBe('CLIENT_ERROR');
    expect(retryErrorType({ error: named('AccessDeniedException'), status: 400, clockSkewCorrected: true })).toBe('TRANSIENT');
  });
});
