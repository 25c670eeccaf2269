import type { RemovalPolicy } from 'aws-cdk-lib';
import { AttributeType, BillingMode, ProjectionType, Table, TableEncryption } from 'aws-cdk-lib/aws-dynamodb';
import { Construct } from 'constructs';
import type { TableDef } from '#shared/tables';

export interface AppTableProps {
  /** Key schema and indexes from TABLES (the same definition the local engine creates). */
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

  constructor(
    scope: Construct,
    id: string,
    private readonly props: AppTableProps,
  ) {
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
    for (const index of props.definition.indexes ?? []) {
      this.table.addGlobalSecondaryIndex({
        indexName: index.name,
        partitionKey: { name: index.partitionKey, type: AttributeType.STRING },
        ...(index.sortKey ? { sortKey: { name: index.sortKey, type: AttributeType.STRING } } : {}),
        ...(index.include
          ? { projectionType: ProjectionType.INCLUDE, nonKeyAttributes: [...index.include] }
          : { projectionType: ProjectionType.ALL }),
      });
    }
  }

  /** The ARN of one of the table's indexes, for grants scoped to that index alone. */
  indexArn(indexName: string): string {
    if (!this.props.definition.indexes?.some((i) => i.name === indexName)) {
      throw new Error(`table ${this.props.definition.logicalName} has no index ${indexName}`);
    }
    return `${this.table.tableArn}/index/${indexName}`;
  }
}
