/**
 * GET /admin/v1/audit: the audit log of admin writes, newest first, filtered by actor, route, project
 * and time, paginated. Admins only (it names people and their networks). There is no write route: the
 * log is written by the admin writes themselves (wrapAdmin) and cannot be changed through the API.
 */
import * as z from 'zod';
import { ApiError } from '../http/api-error';
import { json } from '../http/event';
import { limitParam } from '../http/limit-param';
import { parseWith } from '../http/validate';
import { InvalidAuditCursor, type AuditLog } from '../ports';
import { ROUTES } from '../routes';
import { wrapAdmin, type AdminDeps } from './admin';

export const MAX_AUDIT_LISTED = 100;

const ROUTE_NAMES = ROUTES.map((r) => r.name) as [string, ...string[]];
const instant = (name: string) =>
  z
    .string()
    .refine((s) => !Number.isNaN(Date.parse(s)) && /^\d{4}-\d{2}-\d{2}T/.test(s), `${name} must be an ISO 8601 time such as 2026-11-28T12:00:00Z`)
    .transform((s) => new Date(s).toISOString())
    .optional();

export const AuditListQuery = z.object({
  actor: z.string().min(1).max(320).optional().describe('An email, a subject, or "admin token"'),
  route: z.enum(ROUTE_NAMES, { error: 'route must be a route name such as admin-experiments-start (GET /openapi.json lists them)' }).optional(),
  project_id: z.string().min(1).max(64).optional(),
  from: instant('from'),
  to: instant('to'),
  limit: limitParam(MAX_AUDIT_LISTED, 50),
  cursor: z.string().max(512, 'cursor must be at most 512 characters').optional(),
});

export interface AuditDeps extends AdminDeps {
  audit: AuditLog;
}

export function createAuditListHandler(deps: AuditDeps) {
  return wrapAdmin('admin-audit-list', deps, async (event) => {
    const q = parseWith(AuditListQuery, event.queryStringParameters ?? {});
    try {
      const page = await deps.audit.list(
        {
          ...(q.actor ? { actor: q.actor } : {}),
          ...(q.route ? { route: q.route } : {}),
          ...(q.project_id ? { projectId: q.project_id } : {}),
          ...(q.from ? { from: q.from } : {}),
          ...(q.to ? { to: q.to } : {}),
        },
        q.limit,
        q.cursor,
      );
      return json(200, { entries: page.entries, next_cursor: page.next ?? null });
    } catch (err) {
      if (err instanceof InvalidAuditCursor) throw new ApiError(400, err.message);
      throw err;
    }
  });
}
