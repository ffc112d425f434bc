/**
 * The DynamoDB tables, built from the same layouts as the local dynalite bootstrap
 * (lambdas/store/schema.ts), so keys, indexes and TTL attributes cannot drift between the two.
 */
import { RemovalPolicy } from 'aws-cdk-lib';
import { AttributeType, BillingMode, Table } from 'aws-cdk-lib/aws-dynamodb';
import { Construct } from 'constructs';
import { TABLES, type TableLayout, type TableName } from '../lambdas/store/schema';

export interface TallyTablesProps {
  /** Removal policy of tables holding user data (layout.holdsUserData); other tables are destroyed. */
  userDataRemovalPolicy: RemovalPolicy;
  /** Deletion protection of tables holding user data; other tables have none. */
  userDataDeletionProtection: boolean;
}

const str = (name: string) => ({ name, type: AttributeType.STRING });

export class TallyTables extends Construct {
  readonly tables: Record<TableName, Table>;

  constructor(scope: Construct, id: string, props: TallyTablesProps) {
    super(scope, id);
    const entries = (Object.entries(TABLES) as Array<[TableName, TableLayout]>).map(([name, layout]) => {
      const table = new Table(this, name, {
        partitionKey: str(layout.partitionKey),
        ...(layout.sortKey ? { sortKey: str(layout.sortKey) } : {}),
        billingMode: BillingMode.PAY_PER_REQUEST,
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
      return [name, table] as const;
    });
    this.tables = Object.fromEntries(entries) as Record<TableName, Table>;
  }
}
