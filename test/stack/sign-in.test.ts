/**
 * Sign-in on AWS (lib/sign-in.ts): by default a Cognito user pool with hosted sign-in, a group per role
 * and a public dashboard client (code flow, no secret); or an external issuer. Every admin function
 * gets the issuer, the client ID, the groups claim and the mapping; no other function gets them.
 */
import { Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { ADMIN_ROLES } from '../../lambdas/domain/admin-role';
import { parseGroupRoles } from '../../lambdas/domain/group-roles';
import { ROUTES } from '../../lambdas/routes';
import { synthStack, type Synth } from './synth';

function envOf(s: Synth, name: (typeof ROUTES)[number]['name']): Record<string, unknown> {
  const fn = s.stack.functions[name];
  return s.template.toJSON().Resources[s.stack.getLogicalId(fn.fn.node.defaultChild as never)].Properties.Environment.Variables;
}

describe('sign-in: Cognito by default', () => {
  const s = synthStack();
  const json = s.template.toJSON();
  const ref = (c: { node: { defaultChild?: unknown } }) => s.stack.getLogicalId(c.node.defaultChild as never);

  it('creates a user pool people cannot sign themselves up to, with a group per role', () => {
    s.template.resourceCountIs('AWS::Cognito::UserPool', 1);
    s.template.hasResourceProperties('AWS::Cognito::UserPool', { AdminCreateUserConfig: { AllowAdminCreateUserOnly: true } });
    const groups = Object.values(json.Resources as Record<string, any>)
      .filter((r) => r.Type === 'AWS::Cognito::UserPoolGroup')
      .map((r) => r.Properties.GroupName);
    expect(groups.sort()).toEqual([...ADMIN_ROLES].sort());
    s.template.resourceCountIs('AWS::Cognito::UserPoolDomain', 1);
  });

  it('gives the dashboard a public client: authorization code only, no secret, back to the dashboard', () => {
    s.template.hasResourceProperties('AWS::Cognito::UserPoolClient', {
      GenerateSecret: false,
      AllowedOAuthFlows: ['code'],
      AllowedOAuthFlowsUserPoolClient: true,
      AllowedOAuthScopes: Match.arrayWith(['openid', 'email']),
      CallbackURLs: [{ 'Fn::Join': ['', ['https://', { 'Fn::GetAtt': [ref(s.stack.dashboard!.distribution), 'DomainName'] }, '/']] }],
    });
  });

  it('every admin function gets the pool as issuer and the client as audience; no other function gets them', () => {
    const pool = ref(s.stack.signIn.userPool!);
    for (const route of ROUTES) {
      const env = envOf(s, route.name);
      if (route.auth !== 'admin') {
        expect(env.OIDC_ISSUER, route.name).toBeUndefined();
        continue;
      }
      expect(env.OIDC_ISSUER, route.name).toEqual({ 'Fn::GetAtt': [pool, 'ProviderURL'] });
      expect(env.OIDC_AUDIENCE, route.name).toEqual({ Ref: ref(s.stack.signIn.client!) });
      expect(env.OIDC_GROUPS_CLAIM, route.name).toBe('cognito:groups');
      const mapping = parseGroupRoles(env.OIDC_GROUP_ROLES as string);
      expect(mapping, route.name).toEqual(new Map(ADMIN_ROLES.map((r) => [r, r])));
    }
  });

  it('outputs the issuer, client ID, pool and hosted sign-in', () => {
    s.template.hasOutput('SignInIssuer', {});
    s.template.hasOutput('SignInClientId', {});
    s.template.hasOutput('UserPoolId', {});
    s.template.hasOutput('HostedSignInUrl', {});
  });
});

describe('sign-in: an external issuer', () => {
  const s = synthStack({
    signIn: { issuer: 'https://example.okta.com', clientId: '0oa-dashboard', groupsClaim: 'groups', groupRoles: 'Tally Admins=admin,Everyone=viewer' },
  });

  it('creates no user pool and hands the issuer to every admin function', () => {
    s.template.resourceCountIs('AWS::Cognito::UserPool', 0);
    expect(s.template.findOutputs('UserPoolId')).toEqual({});
    for (const route of ROUTES.filter((r) => r.auth === 'admin')) {
      expect(envOf(s, route.name), route.name).toMatchObject({
        OIDC_ISSUER: 'https://example.okta.com',
        OIDC_AUDIENCE: '0oa-dashboard',
        OIDC_GROUPS_CLAIM: 'groups',
        OIDC_GROUP_ROLES: 'Tally Admins=admin,Everyone=viewer',
      });
    }
  });

  it('refuses a group mapping naming no role at synth', () => {
    expect(() => synthStack({ signIn: { issuer: 'https://example.okta.com', clientId: 'c', groupRoles: 'Admins=owner' } })).toThrow(
      'signIn.groupRoles (-c oidcGroupRoles) must be group=role pairs',
    );
  });
});
