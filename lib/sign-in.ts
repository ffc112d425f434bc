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
import { isOrigin } from '../lambdas/contract/cors';
import { signInConnectOrigins } from '../lambdas/contract/dashboard';
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
  /**
   * More origins the dashboard's page fetches from while signing in, for its CSP's connect-src: the
   * token endpoint's origin when it is not the issuer's (its discovery document's `token_endpoint`).
   * `-c oidcConnectOrigins=https://a.example.com,https://b.example.com`.
   * @default the issuer's origin, plus WELL_KNOWN_CONNECT_ORIGINS (lambdas/contract/dashboard.ts) for a well-known issuer
   */
  readonly connectOrigins?: string[];
}

/** The origins the dashboard's CSP must let the page reach for an external issuer; throws a clear error on a bad value. */
export function externalIssuerOrigins(external: ExternalIssuer): string[] {
  const issuer = httpsUrl(external.issuer);
  if (!issuer || issuer.search || issuer.hash) {
    throw new Error(
      `signIn.issuer (-c oidcIssuer) must be the issuer's https:// URL, exactly as its tokens' iss claim says it (e.g. https://accounts.google.com, https://<org>.okta.com): got "${external.issuer}"`,
    );
  }
  if (!/^[\x21-\x7e]{1,256}$/.test(external.clientId)) {
    throw new Error(
      `signIn.clientId (-c oidcClientId) must be the dashboard's client ID as the issuer shows it (printable characters, no spaces): got "${external.clientId}"`,
    );
  }
  for (const origin of external.connectOrigins ?? []) {
    if (!isOrigin(origin) || !origin.startsWith('https://')) {
      throw new Error(
        `signIn.connectOrigins (-c oidcConnectOrigins) must be https:// origins, comma-separated, with no path or trailing slash (e.g. https://oauth2.googleapis.com): got "${origin}"`,
      );
    }
  }
  return signInConnectOrigins(issuer.href, external.connectOrigins);
}

function httpsUrl(value: string): URL | undefined {
  try {
    const url = new URL(value);
    return url.protocol === 'https:' ? url : undefined;
  } catch {
    return undefined;
  }
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
   * issuer's (discovery document, keys) and the token endpoint's: for Cognito the hosted sign-in's,
   * for an external issuer a well-known one's or those given (ExternalIssuer.connectOrigins).
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
      this.origins = externalIssuerOrigins(props.external);
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
