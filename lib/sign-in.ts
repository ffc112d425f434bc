/**
 * Who may sign in to the dashboard and the admin API (docs/decisions/admin-sign-in.md): by default a
 * Cognito user pool with its hosted sign-in (managed login), one group per Tally role, and a public app
 * client for the dashboard (authorization code with PKCE, no client secret); or an existing OIDC issuer
 * (Okta, Entra ID, Google Workspace, Keycloak...) given by its issuer URL and the dashboard's client ID.
 * Either way the admin functions get OIDC_ISSUER and OIDC_AUDIENCE, and verify tokens themselves.
 */
import { Duration, Fn, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import { CfnUserPoolGroup, OAuthScope, UserPool, UserPoolClient, UserPoolDomain, type IUserPool } from 'aws-cdk-lib/aws-cognito';
import { Construct } from 'constructs';
import { ADMIN_ROLES, ROLE_ADDS } from '../lambdas/domain/admin-role';
import { DEFAULT_GROUPS_CLAIM, parseGroupRoles } from '../lambdas/domain/group-roles';

/** An existing OIDC issuer: `-c oidcIssuer=… -c oidcClientId=…`, or TallyStackProps.signIn. */
export interface ExternalIssuer {
  /** The issuer URL, exactly as its tokens' `iss` says it. */
  readonly issuer: string;
  /** The dashboard's client ID at the issuer: the `aud` of its ID tokens. */
  readonly clientId: string;
  /** The claim listing a person's groups. @default 'cognito:groups' */
  readonly groupsClaim?: string;
  /** group=role pairs, comma-separated (lambdas/domain/group-roles.ts). @default groups named like the roles */
  readonly groupRoles?: string;
}

export interface SignInProps {
  readonly external?: ExternalIssuer;
  /** Where the hosted sign-in may send people back to: the dashboard's URL. */
  readonly callbackUrls: string[];
  readonly removalPolicy: RemovalPolicy;
}

export class SignIn extends Construct {
  readonly issuer: string;
  readonly audience: string;
  readonly groupsClaim: string;
  readonly groupRoles: string | undefined;
  /** Undefined with an external issuer. */
  readonly userPool?: IUserPool;
  readonly client?: UserPoolClient;
  /** The hosted sign-in's base URL (https://<prefix>.auth.<region>.amazoncognito.com); undefined with an external issuer. */
  readonly hostedSignInUrl?: string;
  /**
   * The origins the dashboard's page fetches from while signing in (its CSP's connect-src): the
   * issuer's (discovery document, keys) and, for Cognito, the hosted sign-in's (token endpoint).
   */
  readonly origins: string[];

  constructor(scope: Construct, id: string, props: SignInProps) {
    super(scope, id);
    if (props.external) {
      const mapping = props.external.groupRoles === undefined ? undefined : parseGroupRoles(props.external.groupRoles);
      if (mapping && 'problem' in mapping) throw new Error(`signIn.groupRoles (-c oidcGroupRoles) ${mapping.problem as string}`);
      this.issuer = props.external.issuer;
      this.audience = props.external.clientId;
      this.groupsClaim = props.external.groupsClaim ?? DEFAULT_GROUPS_CLAIM;
      this.groupRoles = props.external.groupRoles;
      this.origins = [new URL(props.external.issuer).origin];
      return;
    }
    const pool = new UserPool(this, 'Users', {
      // People are added by an admin (docs/deploy.md, "Adding people"), never sign themselves up.
      selfSignUpEnabled: false,
      signInAliases: { email: true },
      passwordPolicy: { minLength: 12, requireDigits: true, requireLowercase: true, requireUppercase: true, requireSymbols: true },
      removalPolicy: props.removalPolicy,
    });
    Validations.of(pool).acknowledge(
      { id: 'AwsSolutions-COG2', reason: 'MFA is the team’s choice (docs/deploy.md); turn it on in the pool, or use an external issuer that enforces it.' },
      { id: 'AwsSolutions-COG3', reason: 'Threat protection is a paid Cognito tier; teams that want it enable it on the pool.' },
      {
        id: 'AwsSolutions-COG8',
        reason: 'The Plus feature plan is billed per active user; the Essentials plan has hosted sign-in and groups, all Tally needs.',
      },
    );
    for (const role of ADMIN_ROLES) {
      new CfnUserPoolGroup(this, `Group-${role}`, { userPoolId: pool.userPoolId, groupName: role, description: `Tally ${role}: ${ROLE_ADDS[role]}` });
    }
    const client = pool.addClient('Dashboard', {
      // A public client: the dashboard runs in a browser, so it holds no secret; PKCE protects the code.
      generateSecret: false,
      oAuth: {
        flows: { authorizationCodeGrant: true },
        scopes: [OAuthScope.OPENID, OAuthScope.EMAIL, OAuthScope.PROFILE],
        callbackUrls: props.callbackUrls,
        logoutUrls: props.callbackUrls,
      },
      idTokenValidity: Duration.hours(1),
      accessTokenValidity: Duration.hours(1),
      refreshTokenValidity: Duration.days(1),
      preventUserExistenceErrors: true,
    });
    // A prefix unique per stack: the last part of the stack ID's UUID (Cognito domain prefixes are global per region).
    const suffix = Fn.select(4, Fn.split('-', Fn.select(2, Fn.split('/', Stack.of(this).stackId))));
    const domain = new UserPoolDomain(this, 'Domain', { userPool: pool, cognitoDomain: { domainPrefix: Fn.join('-', ['tally', suffix]) } });
    this.userPool = pool;
    this.client = client;
    this.hostedSignInUrl = domain.baseUrl();
    this.issuer = pool.userPoolProviderUrl;
    this.audience = client.userPoolClientId;
    this.groupsClaim = DEFAULT_GROUPS_CLAIM;
    this.groupRoles = undefined;
    const stack = Stack.of(this);
    this.origins = [`https://cognito-idp.${stack.region}.${stack.urlSuffix}`, this.hostedSignInUrl];
  }
}
