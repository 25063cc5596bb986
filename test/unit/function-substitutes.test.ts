import { afterEach, describe, expect, it } from 'vitest';
import { defaultProvider } from '../../functions/substitutes/environment-credentials.ts';
import { GetParameterCommand, SSMClient } from '../../functions/substitutes/without-ssm.ts';

const saved = { ...process.env };
afterEach(() => {
  for (const name of ['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'AWS_SESSION_TOKEN']) {
    if (saved[name] === undefined) delete process.env[name];
    else process.env[name] = saved[name];
  }
});

describe('the credentials of the Lambda bundles', () => {
  it('are the role credentials Lambda puts in the environment', async () => {
    Object.assign(process.env, { AWS_ACCESS_KEY_ID: 'ASIAEXAMPLE', AWS_SECRET_ACCESS_KEY: 'secret', AWS_SESSION_TOKEN: 'token' });

    expect(await defaultProvider()()).toMatchObject({ accessKeyId: 'ASIAEXAMPLE', secretAccessKey: 'secret', sessionToken: 'token' });
  });

  it('fail, rather than look elsewhere, when the environment has none', async () => {
    delete process.env.AWS_ACCESS_KEY_ID;
    delete process.env.AWS_SECRET_ACCESS_KEY;

    await expect(defaultProvider()()).rejects.toThrow(/environment/i);
  });
});

describe('a bundle built without the SSM client', () => {
  it('says how to deploy one that has it, if it is ever asked for SSM', () => {
    expect(() => new SSMClient()).toThrow(/modelApiKeyParameterName/);
    expect(() => new GetParameterCommand()).toThrow(/modelApiKeyParameterName/);
  });
});
