/**
 * The route functions live in nested stacks, one per family of routes, so that neither the parent
 * stack nor any nested stack comes near CloudFormation's 500 resources per stack
 * (docs/decisions/nested-stacks.md; test/stack/resource-count.test.ts). A route's family follows from
 * its line of the manifest (lambdas/routes.ts), so adding a route adds its function, role, log group,
 * alarms and API Gateway permission to its family's nested stack, and its method to the parent's API.
 */
import { NestedStack } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import { DEPENDENCIES, type DependencyName, type Route } from '../lambdas/routes';

export const ROUTE_STACKS = {
  /** The routes called with a project key: ingestion and experiment assignment (the hot path). */
  Ingest: 'Tally routes called with a project key: ingestion and experiment assignment',
  /** Admin routes that run Athena work: listings of events and people, insights, results, plans. */
  Analysis: 'Tally admin routes that query events with Athena: listings, insights, results, plans',
  /** The other admin routes: projects, keys, experiments, saved insights, dashboards, the audit log. */
  Admin: 'Tally admin routes over DynamoDB: projects, keys, experiments, saved insights, dashboards, audit log',
} as const;

export type RouteStackName = keyof typeof ROUTE_STACKS;

const queriesAthena = (route: Pick<Route, 'uses'>) => (Object.keys(route.uses) as DependencyName[]).some((d) => 'athena' in DEPENDENCIES[d]);

/** The nested stack a route's function goes in. */
export function routeStackOf(route: Pick<Route, 'auth' | 'uses'>): RouteStackName {
  if (route.auth === 'api-key') return 'Ingest';
  return queriesAthena(route) ? 'Analysis' : 'Admin';
}

/** The nested stacks of the route functions, created the first time a route of their family needs one. */
export class RouteStacks {
  readonly stacks: Partial<Record<RouteStackName, NestedStack>> = {};

  constructor(private readonly scope: Construct) {}

  of(route: Pick<Route, 'auth' | 'uses'>): NestedStack {
    const name = routeStackOf(route);
    return (this.stacks[name] ??= new NestedStack(this.scope, `${name}Routes`, { description: ROUTE_STACKS[name] }));
  }
}
