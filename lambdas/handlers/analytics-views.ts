/**
 * The analyst views' CloudFormation custom resource (lib/tally-stack.ts, Custom::AnalyticsViews): every
 * deploy that changes the function's code or the database sends Create or Update, and the handler
 * creates or replaces the views (AnalyticsViews.create, the Athena DDL); deleting the stack sends
 * Delete, and it drops them. It answers CloudFormation by uploading the response object to the
 * request's presigned ResponseURL ("Custom resource response objects", CloudFormation user guide):
 * SUCCESS, or FAILED with the reason, so a view Athena refuses fails the deploy, loudly, and rolls it
 * back. A Create that failed answers with a physical ID of its own, so the rollback's Delete of it
 * succeeds without touching Athena (which just failed); any other Delete drops the views.
 *
 * A Delete always answers SUCCESS: a DROP VIEW that fails is logged as an error and the deletion goes
 * on. A Delete comes either from the rollback of a failed first create, where a FAILED answer would
 * leave the stack in ROLLBACK_FAILED while the Glue database and the views in it are deleted with it
 * anyway (Glue DeleteDatabase removes its tables), or from deleting the stack, which keeps the database
 * with its data, where a view left behind costs nothing and the next deploy replaces it
 * (docs/decisions/first-deploy-rollback.md).
 */
import type { CloudFormationCustomResourceEvent } from 'aws-lambda';
import { errorFields, log } from '../logging/log';
import type { AnalyticsViews } from '../ports';

export interface AnalyticsViewsDeps {
  analyticsViews: AnalyticsViews;
}

/** Uploads the response body to CloudFormation's presigned URL. */
export type Respond = (responseUrl: string, body: string) => Promise<void>;

/** The one resource's physical ID: updates keep it, so CloudFormation never replaces (deletes) the views. */
export const VIEWS_PHYSICAL_ID = 'tally-analytics-views';
const FAILED_CREATE = 'tally-analytics-views-not-created:';
/** The whole response body may be at most 4,096 bytes. */
const MAX_REASON = 1_000;

const putResponse: Respond = async (responseUrl, body) => {
  // The presigned URL is signed without a content type: send none.
  const res = await fetch(responseUrl, { method: 'PUT', headers: { 'content-type': '' }, body });
  if (!res.ok) throw new Error(`uploading the response to CloudFormation failed: HTTP ${res.status}`);
};

export function createAnalyticsViewsHandler(deps: AnalyticsViewsDeps, respond: Respond = putResponse) {
  return async (event: CloudFormationCustomResourceEvent): Promise<void> => {
    let physicalId = event.RequestType === 'Create' ? VIEWS_PHYSICAL_ID : event.PhysicalResourceId;
    let reason: string | undefined;
    try {
      if (event.RequestType !== 'Delete') await deps.analyticsViews.create();
      else if (!physicalId.startsWith(FAILED_CREATE)) await deps.analyticsViews.drop();
    } catch (err) {
      log('error', 'analyst views not updated', { request_type: event.RequestType, ...errorFields(err) });
      if (event.RequestType !== 'Delete') {
        reason = `${event.RequestType} of the analyst views failed: ${err instanceof Error ? err.message : String(err)}`.slice(0, MAX_REASON);
      }
      if (event.RequestType === 'Create') physicalId = `${FAILED_CREATE}${event.RequestId}`;
    }
    if (!reason) log('info', 'analyst views updated', { request_type: event.RequestType });
    await respond(
      event.ResponseURL,
      JSON.stringify({
        Status: reason ? 'FAILED' : 'SUCCESS',
        ...(reason ? { Reason: reason } : {}),
        PhysicalResourceId: physicalId,
        StackId: event.StackId,
        RequestId: event.RequestId,
        LogicalResourceId: event.LogicalResourceId,
      }),
    );
  };
}
