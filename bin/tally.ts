/**
 * The CDK app (cdk.json: `npx tsx bin/tally.ts`). Synthesizes offline with no credentials: the stack
 * has no env, so nothing is looked up in an account. cdk-nag's AwsSolutions pack runs on every synth;
 * findings fail it unless fixed or acknowledged with a reason next to the resource.
 */
import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { ledgerCapacityFromContext } from '../lib/tables';
import { TallyStack } from '../lib/tally-stack';

const app = new App();
const number = (name: string) => {
  const value = app.node.tryGetContext(name);
  return value === undefined || value === '' ? undefined : Number(value);
};
const bool = (name: string) => {
  const value = app.node.tryGetContext(name);
  return value === undefined ? undefined : value === true || value === 'true';
};

new TallyStack(app, app.node.tryGetContext('stackName') ?? 'Tally', {
  description: 'Tally: self-hosted product analytics and A/B experiments',
  cloudFront: bool('cloudFront'),
  alarmEmail: app.node.tryGetContext('alarmEmail'),
  glueDatabaseName: app.node.tryGetContext('glueDatabaseName'),
  geoipDatabase: app.node.tryGetContext('geoipDatabase') ?? process.env.TALLY_GEOIP_DB,
  ledgerCapacity: ledgerCapacityFromContext(app.node.tryGetContext('ledgerCapacity')),
  // Off on the first deploy, on from the second (docs/deploy.md, "First deploy on a new account").
  deletionProtection: bool('deletionProtection'),
  dashboard: bool('dashboard'),
  apiAccessLogs: bool('apiAccessLogs'),
  // `-c keepEventsDays=400`: keep events 400 days (docs/decisions/retention.md); unset, forever.
  keepEventsDays: number('keepEventsDays'),
  signIn: externalIssuer(),
});

/**
 * `-c oidcIssuer=… -c oidcClientId=…` (optionally `-c oidcGroupsClaim=… -c oidcGroupRoles=…
 * -c oidcConnectOrigins=https://a,https://b`): sign in with an existing issuer.
 */
function externalIssuer() {
  const issuer = app.node.tryGetContext('oidcIssuer');
  const clientId = app.node.tryGetContext('oidcClientId');
  if (issuer === undefined && clientId === undefined) return undefined;
  if (!issuer || !clientId) throw new Error('Set both -c oidcIssuer=<issuer URL> and -c oidcClientId=<client ID>, or neither (Cognito)');
  const groupsClaim = app.node.tryGetContext('oidcGroupsClaim');
  const groupRoles = app.node.tryGetContext('oidcGroupRoles');
  const connectOrigins = app.node.tryGetContext('oidcConnectOrigins');
  return {
    issuer: String(issuer),
    clientId: String(clientId),
    ...(groupsClaim ? { groupsClaim } : {}),
    ...(groupRoles ? { groupRoles } : {}),
    ...(connectOrigins
      ? {
          connectOrigins: String(connectOrigins)
            .split(',')
            .map((o) => o.trim())
            .filter(Boolean),
        }
      : {}),
  };
}
Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
