/**
 * The DynamoDB tables, built from the same layouts as the local dynalite bootstrap
 * (lambdas/store/schema.ts), so keys, indexes and TTL attributes cannot drift between the two.
 */
import { RemovalPolicy } from 'aws-cdk-lib';
import { AttributeType, BillingMode, CfnTable, Table } from 'aws-cdk-lib/aws-dynamodb';
import { Construct } from 'constructs';
import { TABLES, type TableLayout, type TableName } from '../lambdas/store/schema';

/**
 * Provisioned capacity with target-tracking auto scaling for the events ledger (the `events` table),
 * instead of on-demand. Cheaper for steady traffic, dearer for spiky or low traffic: see docs/cost.md,
 * "Provisioned capacity for the ledger". Every value is a whole number of capacity units per second.
 */
export interface LedgerCapacity {
  /** Write capacity units the table never scales below (paid for even when idle). @default 5 */
  readonly minWriteCapacity?: number;
  /** Write capacity units the table never scales above: a cost ceiling, and writes beyond it throttle. @default 4000 */
  readonly maxWriteCapacity?: number;
  /** Read capacity units the table never scales below (the ledger reads only on duplicate claims). @default 1 */
  readonly minReadCapacity?: number;
  /** Read capacity units the table never scales above. @default 1000 */
  readonly maxReadCapacity?: number;
  /** Consumed ÷ provisioned capacity that auto scaling keeps, in percent (20 to 90): the rest is headroom for bursts. @default 70 */
  readonly targetUtilizationPercent?: number;
}

/** LedgerCapacity with every default filled in and every value checked. */
export type ResolvedLedgerCapacity = Required<LedgerCapacity>;

export const LEDGER_CAPACITY_DEFAULTS: ResolvedLedgerCapacity = {
  minWriteCapacity: 5,
  maxWriteCapacity: 4000,
  minReadCapacity: 1,
  maxReadCapacity: 1000,
  targetUtilizationPercent: 70,
};

/** Fills in the defaults and throws, naming the setting, on a value DynamoDB or auto scaling would refuse. */
export function resolveLedgerCapacity(capacity: LedgerCapacity): ResolvedLedgerCapacity {
  const c = { ...LEDGER_CAPACITY_DEFAULTS, ...definedOnly(capacity) };
  const problems: string[] = [];
  for (const key of ['minWriteCapacity', 'maxWriteCapacity', 'minReadCapacity', 'maxReadCapacity'] as const) {
    if (!Number.isSafeInteger(c[key]) || c[key] < 1) problems.push(`${key} must be a positive integer (got ${String(c[key])})`);
  }
  if (c.minWriteCapacity > c.maxWriteCapacity)
    problems.push(`minWriteCapacity (${c.minWriteCapacity}) must not exceed maxWriteCapacity (${c.maxWriteCapacity})`);
  if (c.minReadCapacity > c.maxReadCapacity) problems.push(`minReadCapacity (${c.minReadCapacity}) must not exceed maxReadCapacity (${c.maxReadCapacity})`);
  const target = c.targetUtilizationPercent;
  if (typeof target !== 'number' || !Number.isFinite(target) || target < 20 || target > 90) {
    problems.push(`targetUtilizationPercent must be a number from 20 to 90 (got ${String(target)})`);
  }
  if (problems.length > 0) throw new Error(`ledgerCapacity: ${problems.join('; ')}`);
  return c;
}

function definedOnly(capacity: LedgerCapacity): LedgerCapacity {
  return Object.fromEntries(Object.entries(capacity).filter(([, v]) => v !== undefined)) as LedgerCapacity;
}

/**
 * The `ledgerCapacity` context value: unset or `false` = on-demand; `true` = provisioned with the
 * defaults; an object, or its JSON as a string (`-c 'ledgerCapacity={"maxWriteCapacity":2000}'`),
 * overrides some of them.
 */
export function ledgerCapacityFromContext(value: unknown): LedgerCapacity | undefined {
  if (value === undefined || value === false || value === 'false') return undefined;
  if (value === true || value === 'true') return {};
  let parsed: unknown = value;
  if (typeof value === 'string') {
    try {
      parsed = JSON.parse(value);
    } catch {
      throw new Error(`ledgerCapacity: context value must be true, false or a JSON object (got ${value})`);
    }
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new Error(`ledgerCapacity: context value must be true, false or a JSON object (got ${JSON.stringify(value)})`);
  }
  const known = Object.keys(LEDGER_CAPACITY_DEFAULTS);
  const unknown = Object.keys(parsed).filter((k) => !known.includes(k));
  if (unknown.length > 0) throw new Error(`ledgerCapacity: unknown setting(s) ${unknown.join(', ')} (known: ${known.join(', ')})`);
  return parsed as LedgerCapacity;
}

export interface TallyTablesProps {
  /** Removal policy of tables holding user data (layout.holdsUserData); other tables are destroyed. */
  userDataRemovalPolicy: RemovalPolicy;
  /** Deletion protection of tables holding user data; other tables have none. */
  userDataDeletionProtection: boolean;
  /** Provisioned capacity with auto scaling for the events ledger; unset: on-demand like every table. */
  ledgerCapacity?: LedgerCapacity;
}

/** The table whose capacity mode `ledgerCapacity` switches. */
export const LEDGER_TABLE: TableName = 'events';

const str = (name: string) => ({ name, type: AttributeType.STRING });

export class TallyTables extends Construct {
  readonly tables: Record<TableName, Table>;

  constructor(scope: Construct, id: string, props: TallyTablesProps) {
    super(scope, id);
    const ledger = props.ledgerCapacity ? resolveLedgerCapacity(props.ledgerCapacity) : undefined;
    const entries = (Object.entries(TABLES) as Array<[TableName, TableLayout]>).map(([name, layout]) => {
      const table = new Table(this, name, {
        partitionKey: str(layout.partitionKey),
        ...(layout.sortKey ? { sortKey: str(layout.sortKey) } : {}),
        ...(ledger && name === LEDGER_TABLE
          ? { billingMode: BillingMode.PROVISIONED, readCapacity: ledger.minReadCapacity, writeCapacity: ledger.minWriteCapacity }
          : { billingMode: BillingMode.PAY_PER_REQUEST }),
        pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
        ...(layout.ttlAttribute ? { timeToLiveAttribute: layout.ttlAttribute } : {}),
        removalPolicy: layout.holdsUserData ? props.userDataRemovalPolicy : RemovalPolicy.DESTROY,
        deletionProtection: layout.holdsUserData ? props.userDataDeletionProtection : false,
      });
      for (const index of layout.indexes) {
        table.addGlobalSecondaryIndex({
          indexName: index.name,
          partitionKey: str(index.partitionKey),
          ...(index.sortKey ? { sortKey: str(index.sortKey) } : {}),
        });
      }
      if (ledger && name === LEDGER_TABLE) {
        // The L2 leaves BillingMode out for PROVISIONED (CloudFormation's default); say it, so the
        // template reads the same as the option and a later switch back is one visible change.
        (table.node.defaultChild as CfnTable).billingMode = BillingMode.PROVISIONED;
        const targetUtilizationPercent = ledger.targetUtilizationPercent;
        table
          .autoScaleWriteCapacity({ minCapacity: ledger.minWriteCapacity, maxCapacity: ledger.maxWriteCapacity })
          .scaleOnUtilization({ targetUtilizationPercent });
        table
          .autoScaleReadCapacity({ minCapacity: ledger.minReadCapacity, maxCapacity: ledger.maxReadCapacity })
          .scaleOnUtilization({ targetUtilizationPercent });
      }
      return [name, table] as const;
    });
    this.tables = Object.fromEntries(entries) as Record<TableName, Table>;
  }
}
