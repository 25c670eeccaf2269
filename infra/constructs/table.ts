import type { RemovalPolicy } from 'aws-cdk-lib';
import { AttributeType, BillingMode, Table, TableEncryption } from 'aws-cdk-lib/aws-dynamodb';
import type { IGrantable } from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';
import type { TableDef } from '#shared/tables';
import type { TableAction } from './function.ts';

export interface AppTableProps {
  /** Key schema from TABLES (the same definition the local engine creates). */
  readonly definition: TableDef;
  readonly removalPolicy: RemovalPolicy;
  /** Refuse DeleteTable while set; on for the production stage. */
  readonly deletionProtection: boolean;
}

/**
 * A DynamoDB table with the project's defaults: on-demand capacity, point-in-time recovery, and
 * encryption at rest with the AWS-managed key (aws/dynamodb). A customer-managed key would add a
 * monthly key charge and a key policy to run, and buys nothing here: access is already limited per
 * function by IAM, and nothing outside this account reads the tables. The physical name is left
 * to CloudFormation; functions receive it through their environment.
 */
export class AppTable extends Construct {
  readonly table: Table;
  private readonly granted = new Set<TableAction>();

  constructor(scope: Construct, id: string, props: AppTableProps) {
    super(scope, id);
    const { partitionKey, sortKey } = props.definition;
    this.table = new Table(this, 'Table', {
      partitionKey: { name: partitionKey, type: AttributeType.STRING },
      ...(sortKey ? { sortKey: { name: sortKey, type: AttributeType.STRING } } : {}),
      billingMode: BillingMode.PAY_PER_REQUEST,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      encryption: TableEncryption.AWS_MANAGED,
      removalPolicy: props.removalPolicy,
      deletionProtection: props.deletionProtection,
    });
  }

  /** Grants exactly `actions` on this table and remembers them for `operations`. */
  grant(grantee: IGrantable, actions: readonly TableAction[]): void {
    this.table.grant(grantee, ...actions.map((action) => `dynamodb:${action}`));
    for (const action of actions) this.granted.add(action);
  }

  /** The DynamoDB operations some function may call on this table: its alarms watch exactly these. */
  get operations(): readonly TableAction[] {
    return [...this.granted];
  }
}
