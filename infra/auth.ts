import { Annotations, Duration, type RemovalPolicy, Validations } from 'aws-cdk-lib';
import { AuthorizationType, CognitoUserPoolsAuthorizer, IdentitySource, TokenAuthorizer, type MethodOptions } from 'aws-cdk-lib/aws-apigateway';
import { AccountRecovery, type IUserPool, UserPool, UserPoolClient } from 'aws-cdk-lib/aws-cognito';
import { Construct } from 'constructs';
import { ENV } from '../lib/config/environment.ts';
import { AgentFunction } from './agent-function.ts';
import { authorizerBundling, OIDC_AUTHORIZER_ENTRY } from './bundling.ts';
import { POWERTOOLS_ENVIRONMENT } from './functions.ts';
import type { AuthMode } from './settings.ts';

export interface ApiAuthorizationProps {
  authMode: AuthMode;
  /** With cognito: an existing pool; absent, one is created. */
  userPoolArn?: string;
  /** With oidc: the provider whose tokens the Lambda authorizer verifies. */
  oidc?: { issuer: string; audience: string };
  removalPolicy: RemovalPolicy;
}

/**
 * The auth switch, as the method options every route gets (CORS preflights stay open: browsers
 * send them without credentials). The functions read the same mode from AUTH_MODE and scope each
 * conversation to the identity API Gateway verified.
 */
export class ApiAuthorization extends Construct {
  readonly methodOptions: MethodOptions;
  /** Set when the stack created the user pool. */
  readonly userPool?: UserPool;
  readonly userPoolClient?: UserPoolClient;
  /** With cognito: the pool whose tokens the authorizer verifies (created or brought), its issuer the functions name. */
  readonly userPoolId?: string;
  /** With oidc: the Lambda authorizer's function. */
  readonly oidcAuthorizer?: AgentFunction;

  constructor(scope: Construct, id: string, props: ApiAuthorizationProps) {
    super(scope, id);
    if (props.authMode === 'none') {
      Annotations.of(scope).addWarningV2('mcp-agent:openApi', 'authMode=none: anyone who finds the API URL can run the model at your expense and read any conversation whose id they know.');
      this.methodOptions = { authorizationType: AuthorizationType.NONE };
      return;
    }
    if (props.authMode === 'iam') {
      this.methodOptions = { authorizationType: AuthorizationType.IAM };
      return;
    }
    if (props.authMode === 'oidc') {
      if (!props.oidc) throw new Error('authMode=oidc needs oidcIssuer and oidcAudience');
      this.oidcAuthorizer = new AgentFunction(this, 'OidcAuthorizer', {
        entry: OIDC_AUTHORIZER_ENTRY,
        description: "MCP agent: the API's authorizer, verifying the OpenID Connect provider's bearer tokens",
        // Verifying a JWT is a few milliseconds; the provider's discovery and JWKS are fetched at most once per container (and on an unknown key id).
        memorySize: 256,
        timeout: Duration.seconds(10),
        environment: { ...POWERTOOLS_ENVIRONMENT, [ENV.oidcIssuer]: props.oidc.issuer, [ENV.oidcAudience]: props.oidc.audience },
        bundling: authorizerBundling(),
        removalPolicy: props.removalPolicy,
      });
      // API Gateway caches each token's answer (the policy allows the whole stage), so a caller's
      // requests invoke the authorizer once per five minutes, not once each. A request without a
      // Bearer header never reaches it: API Gateway answers 401 itself.
      const authorizer = new TokenAuthorizer(this, 'Authorizer', {
        handler: this.oidcAuthorizer.function,
        identitySource: IdentitySource.header('Authorization'),
        validationRegex: '^[Bb]earer [-0-9A-Za-z._~+/]+=*$',
        resultsCacheTtl: Duration.minutes(5),
      });
      this.methodOptions = { authorizationType: AuthorizationType.CUSTOM, authorizer };
      return;
    }
    let pool: IUserPool;
    if (props.userPoolArn !== undefined) {
      pool = UserPool.fromUserPoolArn(this, 'ExistingUserPool', props.userPoolArn);
    } else {
      // Users are created by an administrator: open sign-up on an API that spends model tokens
      // would let anyone in.
      this.userPool = new UserPool(this, 'UserPool', {
        selfSignUpEnabled: false,
        signInAliases: { email: true },
        accountRecovery: AccountRecovery.EMAIL_ONLY,
        removalPolicy: props.removalPolicy,
      });
      Validations.of(this.userPool).acknowledge(
        { id: 'AwsSolutions::AwsSolutions-COG1', reason: "Cognito's default password policy (8 characters, upper and lower case, digits, symbols); users are created by an administrator, who can tighten it on the pool." },
        { id: 'AwsSolutions::AwsSolutions-COG2', reason: 'MFA is left to the operator: the pool is created for trying the API out; bring a pool with MFA required through userPoolArn for production.' },
        { id: 'AwsSolutions::AwsSolutions-COG8', reason: "The Plus feature plan (threat protection) costs per user; the operator's choice, or a pool of their own through userPoolArn." },
      );
      // A public client (no secret) for browsers and the CLI; USER_PASSWORD_AUTH lets a script get
      // a token with `aws cognito-idp initiate-auth`, SRP serves the Amplify-style clients.
      this.userPoolClient = this.userPool.addClient('Client', {
        authFlows: { userSrp: true, userPassword: true },
        generateSecret: false,
        // No hosted-UI OAuth flows (CDK would default to implicit and code grants with an
        // example.com callback): tokens come only from the two auth flows above.
        disableOAuth: true,
      });
      pool = this.userPool;
    }
    this.userPoolId = pool.userPoolId;
    // API Gateway verifies the ID token in the Authorization header; its `sub` owns the conversation.
    const authorizer = new CognitoUserPoolsAuthorizer(this, 'Authorizer', { cognitoUserPools: [pool] });
    this.methodOptions = { authorizationType: AuthorizationType.COGNITO, authorizer };
  }
}
