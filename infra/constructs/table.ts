import { type RemovalPolicy, Stack } from 'aws-cdk-lib';
import { AttributeType, BillingMode, ProjectionType, Table, TableEncryption } from 'aws-cdk-lib/aws-dynamodb';
import { type IGrantable, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import { Construct } from 'constructs';
import { indexProjection, type TableDef } from '#shared/tables';

// Every other table action writes, and needs the key's encrypt actions too.
const READ_ONLY_ACTIONS: ReadonlySet<string> = new Set(['GetItem', 'Query', 'Scan', 'BatchGetItem']);

// What DynamoDB needs of the caller's principal to read or write a table under a customer-managed key
// (the same key actions as CDK's grantReadData / grantWriteData, spelled out instead of wildcards).
const KEY_READ_ACTIONS = ['kms:Decrypt', 'kms:DescribeKey'];
const KEY_WRITE_ACTIONS = [
  ...KEY_READ_ACTIONS,
  'kms:Encrypt',
  'kms:GenerateDataKey',
  'kms:GenerateDataKeyWithoutPlaintext',
  'kms:ReEncryptFrom',
  'kms:ReEncryptTo',
];

/** The only DynamoDB actions a function may be granted: what the data layer calls, nothing broader. */
export type TableAction =
  | 'GetItem'
  | 'PutItem'
  | 'UpdateItem'
  | 'DeleteItem'
  | 'Query'
  | 'Scan'
  | 'BatchGetItem'
  | 'BatchWriteItem';
/** The only action a function may be granted on an index. */
export type IndexAction = 'Query';

export interface AppTableProps {
  /** Key schema and indexes from TABLES (the same definition the local engine creates). */
  readonly definition: TableDef;
  /** RETAIN keeps the table (and its key) when the stack is deleted. */
  readonly removalPolicy: RemovalPolicy;
  /** Refuse DeleteTable while set (the stage config's `tableDeletionProtection`). */
  readonly deletionProtection: boolean;
  /**
   * Encrypt with a customer-managed KMS key (rotation on) that only the functions granted this
   * table may use, instead of the AWS-managed key every principal with table access can decrypt with.
   */
  readonly customerManagedKey?: boolean;
}

/**
 * A DynamoDB table with the project's defaults: on-demand capacity, point-in-time recovery, and
 * encryption at rest, with the AWS-managed key (aws/dynamodb) or, for a table holding third-party
 * secrets, a customer-managed key of its own. The physical name is left to CloudFormation;
 * functions receive it through their environment. Access is granted with `grantData` only.
 */
export class AppTable extends Construct {
  readonly table: Table;
  private readonly granted = new Set<TableAction>();
  /** The customer-managed key, when the table has one. */
  readonly key?: Key;

  constructor(
    scope: Construct,
    id: string,
    private readonly props: AppTableProps,
  ) {
    super(scope, id);
    const { partitionKey, sortKey } = props.definition;
    if (props.customerManagedKey) {
      this.key = new Key(this, 'Key', {
        description: `Encrypts the ${props.definition.logicalName} table (upstream API keys)`,
        enableKeyRotation: true,
        // The key must outlive a retained table, or its data could never be read again.
        removalPolicy: props.removalPolicy,
      });
    }
    this.table = new Table(this, 'Table', {
      partitionKey: { name: partitionKey, type: AttributeType.STRING },
      ...(sortKey ? { sortKey: { name: sortKey, type: AttributeType.STRING } } : {}),
      billingMode: BillingMode.PAY_PER_REQUEST,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      ...(this.key
        ? { encryption: TableEncryption.CUSTOMER_MANAGED, encryptionKey: this.key }
        : { encryption: TableEncryption.AWS_MANAGED }),
      removalPolicy: props.removalPolicy,
      deletionProtection: props.deletionProtection,
      ...(props.definition.timeToLiveAttribute ? { timeToLiveAttribute: props.definition.timeToLiveAttribute } : {}),
    });
    for (const index of props.definition.indexes ?? []) {
      const projection = indexProjection(index);
      this.table.addGlobalSecondaryIndex({
        indexName: index.name,
        partitionKey: { name: index.partitionKey, type: AttributeType.STRING },
        ...(index.sortKey ? { sortKey: { name: index.sortKey, type: AttributeType.STRING } } : {}),
        projectionType: ProjectionType[projection.type],
        nonKeyAttributes: projection.nonKeyAttributes,
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

  /**
   * Grants exactly `actions` on the table (no index, no other table) and, under a customer-managed
   * key, the key actions those need, usable only through DynamoDB in this region. Every function
   * given table access therefore gets the key too, and no other principal of the stack does.
   */
  grantData(grantee: IGrantable, actions: readonly TableAction[]): void {
    // Not Table.grant: on a table with indexes it adds `<table>/index/*` to every grant.
    grantee.grantPrincipal.addToPrincipalPolicy(
      new PolicyStatement({ actions: actions.map((action) => `dynamodb:${action}`), resources: [this.table.tableArn] }),
    );
    for (const action of actions) this.granted.add(action);
    this.grantKey(grantee, actions);
  }

  /**
   * Grants `dynamodb:Scan` on the table only for requests that return nothing but the partition key: IAM conditions
   * `dynamodb:Select = SPECIFIC_ATTRIBUTES` and `dynamodb:Attributes` within `[partition key]`. `ForAllValues` holds
   * for a request that names no attribute at all, so `Null: false` requires the key to be present; a Scan with
   * another Select (ALL_ATTRIBUTES, COUNT) or another attribute is denied. Enough to ask whether the table is empty,
   * never to read a channel.
   */
  grantKeyOnlyScan(grantee: IGrantable): void {
    grantee.grantPrincipal.addToPrincipalPolicy(
      new PolicyStatement({
        actions: ['dynamodb:Scan'],
        resources: [this.table.tableArn],
        conditions: {
          StringEquals: { 'dynamodb:Select': 'SPECIFIC_ATTRIBUTES' },
          'ForAllValues:StringEquals': { 'dynamodb:Attributes': [this.props.definition.partitionKey] },
          Null: { 'dynamodb:Attributes': 'false' },
        },
      }),
    );
    this.granted.add('Scan');
    this.grantKey(grantee, ['Scan']);
  }

  /**
   * Grants item reads (`GetItem`, `BatchGetItem`) on the table only for requests whose projection names nothing but
   * `attributes` (IAM condition `dynamodb:Attributes` within them, and present: a read without a projection returns
   * whole items and is denied). The usage API reads channel names this way, never a channel's key.
   */
  grantProjected(
    grantee: IGrantable,
    actions: readonly ('GetItem' | 'BatchGetItem')[],
    attributes: readonly string[],
  ): void {
    grantee.grantPrincipal.addToPrincipalPolicy(
      new PolicyStatement({
        actions: actions.map((action) => `dynamodb:${action}`),
        resources: [this.table.tableArn],
        conditions: {
          'ForAllValues:StringEquals': { 'dynamodb:Attributes': [...attributes] },
          Null: { 'dynamodb:Attributes': 'false' },
        },
      }),
    );
    for (const action of actions) this.granted.add(action);
    this.grantKey(grantee, actions);
  }

  /** Grants `actions` on one index only (and, under a customer-managed key, the key's read actions). */
  grantIndex(grantee: IGrantable, indexName: string, actions: readonly IndexAction[]): void {
    grantee.grantPrincipal.addToPrincipalPolicy(
      new PolicyStatement({
        actions: actions.map((action) => `dynamodb:${action}`),
        resources: [this.indexArn(indexName)],
      }),
    );
    for (const action of actions) this.granted.add(action);
    this.grantKey(grantee, actions);
  }

  private grantKey(grantee: IGrantable, actions: readonly string[]): void {
    if (!this.key) return;
    const writes = actions.some((action) => !READ_ONLY_ACTIONS.has(action));
    grantee.grantPrincipal.addToPrincipalPolicy(
      new PolicyStatement({
        actions: writes ? KEY_WRITE_ACTIONS : KEY_READ_ACTIONS,
        resources: [this.key.keyArn],
        conditions: { StringEquals: { 'kms:ViaService': `dynamodb.${Stack.of(this).region}.amazonaws.com` } },
      }),
    );
  }

  /** The DynamoDB operations some function may call on this table (grantData): its alarms watch exactly these. */
  get operations(): readonly TableAction[] {
    return [...this.granted];
  }
}
