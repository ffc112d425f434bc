/** Shared plumbing of the admin API handlers (/admin/v1/*). */
import type { HttpEvent } from '../http/event';
import { ApiError, notFound } from '../http/api-error';
import { header, type HttpResult } from '../http/event';
import { wrap } from '../http/wrap';
import { bearerToken } from '../domain/api-key';
import type { Experiment } from '../domain/experiment';
import type { AuditLog, ExperimentStore, Project, ProjectStore, SignInVerifier } from '../ports';
import { sourceNetwork, type AuditEntry } from '../domain/audit-entry';
import { validatedFieldsOf } from '../http/validate';
import { errorFields, log } from '../logging/log';
import { emitMetric } from '../logging/metric';
import { AUDIT_RECORD_FAILED, METRICS_NAMESPACE } from '../contract/metrics';
import { randomUUID } from 'node:crypto';
import { functionLine, roleOf, type RouteName } from '../routes';
import { authenticateAdmin, type AdminCaller } from '../services/admin-sign-in';

export interface AdminDeps {
  adminToken: () => Promise<string>;
  /** People's sign-in (OIDC); unset, only the admin token signs in. */
  signIn?: SignInVerifier;
  /** The audit log: every write route's line lists it (a write route without it fails at wiring). */
  audit?: AuditLog;
  /** The dashboard's origin, the only one admin responses allow (CORS); unset, none. */
  dashboardOrigin?: string;
}

const callers = new WeakMap<object, AdminCaller>();

/** Who made an admin request, as its authentication found them. */
export function adminCallerOf(event: HttpEvent): AdminCaller {
  const caller = callers.get(event);
  if (!caller) throw new ApiError(401, 'Not authenticated');
  return caller;
}

/**
 * The admin token or a sign-in token, and the role the route's manifest line needs: 401 for a token
 * that is not valid, 403 naming the role needed for a valid one whose role is not enough.
 */
export function authenticateAdminRoute(route: string, deps: AdminDeps) {
  const needed = roleOf(functionLine(route as RouteName));
  return async (event: HttpEvent): Promise<AdminCaller> => {
    const presented = bearerToken(header(event, 'authorization')) ?? undefined;
    const decision = await authenticateAdmin({ adminToken: deps.adminToken, ...(deps.signIn ? { signIn: deps.signIn } : {}) }, presented, needed);
    if (!decision.allow) throw new ApiError(decision.status, decision.error);
    return decision.caller;
  };
}

export function wrapAdmin(route: string, deps: AdminDeps, handler: (event: HttpEvent) => Promise<HttpResult>) {
  const authenticate = authenticateAdminRoute(route, deps);
  const line = functionLine(route as RouteName) as { method: string };
  const audited = line.method !== 'GET' ? audit(route, line.method, deps, handler) : handler;
  return wrap(audited, {
    route,
    surface: 'admin',
    authenticate: async (event) => {
      callers.set(event, await authenticate(event));
    },
    ...(deps.dashboardOrigin ? { dashboardOrigin: deps.dashboardOrigin } : {}),
  });
}

/**
 * An admin write, recorded in the audit log (docs/decisions/audit-log.md): the entry is written before
 * the write runs, and a failure to write it refuses the request (503, nothing changed), so no write goes
 * unrecorded; the answer's status and the validated field names are added after. Losing that second
 * write leaves the entry with status null ("outcome not recorded") and logs an error.
 */
function audit(route: string, method: string, deps: AdminDeps, handler: (event: HttpEvent) => Promise<HttpResult>) {
  const auditLog = deps.audit;
  if (!auditLog) throw new Error(`${route} writes but its manifest line does not list the audit log (lambdas/routes.ts)`);
  return async (event: HttpEvent): Promise<HttpResult> => {
    const caller = adminCallerOf(event);
    const entry: AuditEntry = {
      id: randomUUID(),
      at: new Date().toISOString(),
      actor:
        caller.via === 'admin-token' ? { via: 'admin-token' } : { via: 'sign-in', subject: caller.subject, ...(caller.email ? { email: caller.email } : {}) },
      role: caller.role,
      route,
      method,
      target: Object.fromEntries(Object.entries(event.pathParameters ?? {}).filter((e): e is [string, string] => typeof e[1] === 'string')),
      fields: [],
      network: sourceNetwork(event.requestContext?.identity?.sourceIp ?? undefined),
      status: null,
    };
    await auditLog.begin(entry).catch((err: unknown) => {
      auditFailed('audit log begin failed', route, entry.id, err);
      throw err;
    });
    let status = 500;
    try {
      const result = await handler(event);
      status = result.statusCode;
      return result;
    } catch (err) {
      if (err instanceof ApiError) status = err.status;
      throw err;
    } finally {
      await auditLog.finish(entry, status, validatedFieldsOf(event)).catch((err: unknown) => auditFailed('audit log finish failed', route, entry.id, err));
    }
  };
}

/**
 * Loud: an error log line (naming the route) and the AuditRecordFailed metric, which alarms
 * (lib/alarms.ts). The metric has no dimension: one alarm watches every admin write function (one
 * alarm each would cost a resource per route of the 500 a stack may hold); the log line says which.
 */
function auditFailed(message: string, route: string, auditId: string, err: unknown): void {
  log('error', message, { route, audit_id: auditId, ...errorFields(err) });
  emitMetric({ namespace: METRICS_NAMESPACE, name: AUDIT_RECORD_FAILED });
}

export function pathParam(event: HttpEvent, name: string): string {
  const value = event.pathParameters?.[name];
  if (!value) throw new ApiError(400, `Missing path parameter ${name}`);
  return value;
}

/** Tally's own IDs (projects, keys, experiments) are 36-byte UUIDs; this leaves room for other forms. */
const MAX_GENERATED_ID_BYTES = 64;

/**
 * A path parameter naming something Tally created. A longer value names nothing, and used as a key
 * it could exceed DynamoDB's key size (a ValidationException, a 500): it is "not found" without a read.
 */
export function isGeneratedIdShape(id: string): boolean {
  return Buffer.byteLength(id, 'utf8') <= MAX_GENERATED_ID_BYTES;
}

export async function requireProject(projects: ProjectStore, event: HttpEvent): Promise<Project> {
  const id = pathParam(event, 'project_id');
  const project = isGeneratedIdShape(id) ? await projects.get(id) : undefined;
  if (!project) throw notFound(`Project ${id} not found`);
  return project;
}

/** The project of the path and its experiment {id}, or 404 for either. */
export async function requireExperiment(
  deps: { projects: ProjectStore; experiments: ExperimentStore },
  event: HttpEvent,
): Promise<{ project: Project; experiment: Experiment }> {
  const project = await requireProject(deps.projects, event);
  const id = pathParam(event, 'id');
  const experiment = isGeneratedIdShape(id) ? await deps.experiments.get(project.id, id) : undefined;
  if (!experiment) throw notFound(`Experiment ${id} not found in project ${project.id}`);
  return { project, experiment };
}
