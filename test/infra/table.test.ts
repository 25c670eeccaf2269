import { App, RemovalPolicy, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { AppTable } from '#infra/constructs/table';
import type { TableDef } from '#shared/tables';

type Json = Record<string, unknown>;

/** The properties of the one table an AppTable of `definition` synthesizes to. */
function tableProps(definition: TableDef): Json {
  const stack = new Stack(new App(), 'TableTest');
  new AppTable(stack, 'Table', { definition, removalPolicy: RemovalPolicy.DESTROY, deletionProtection: false });
  const tables = Object.values(Template.fromStack(stack).findResources('AWS::DynamoDB::Table'));
  expect(tables).toHaveLength(1);
  return tables[0]?.Properties as Json;
}

describe('AppTable indexes', () => {
  it('creates every index of the definition with its keys and projection, and declares each key attribute once as a string', () => {
    const props = tableProps({
      logicalName: 'datasets',
      partitionKey: 'teamId',
      sortKey: 'id',
      indexes: [
        { name: 'byParent', partitionKey: 'teamId', sortKey: 'parentKey' },
        { name: 'byName', partitionKey: 'name', include: ['intro', 'avatar'] },
        { name: 'byMember', partitionKey: 'tmbId', sortKey: 'id', include: [] },
      ],
    });

    expect(props.GlobalSecondaryIndexes).toEqual([
      {
        IndexName: 'byParent',
        KeySchema: [
          { AttributeName: 'teamId', KeyType: 'HASH' },
          { AttributeName: 'parentKey', KeyType: 'RANGE' },
        ],
        Projection: { ProjectionType: 'ALL' },
      },
      {
        IndexName: 'byName',
        KeySchema: [{ AttributeName: 'name', KeyType: 'HASH' }],
        Projection: { ProjectionType: 'INCLUDE', NonKeyAttributes: ['intro', 'avatar'] },
      },
      {
        IndexName: 'byMember',
        KeySchema: [
          { AttributeName: 'tmbId', KeyType: 'HASH' },
          { AttributeName: 'id', KeyType: 'RANGE' },
        ],
        Projection: { ProjectionType: 'KEYS_ONLY' },
      },
    ]);
    const attributes = props.AttributeDefinitions as { AttributeName: string; AttributeType: string }[];
    expect(attributes.map((a) => a.AttributeName).sort()).toEqual(['id', 'name', 'parentKey', 'teamId', 'tmbId']);
    expect(attributes.every((a) => a.AttributeType === 'S')).toBe(true);
  });

  it('creates no index when the definition has none', () => {
    const props = tableProps({ logicalName: 'channels', partitionKey: 'id' });

    expect(props.GlobalSecondaryIndexes).toBeUndefined();
    expect(props.AttributeDefinitions).toEqual([{ AttributeName: 'id', AttributeType: 'S' }]);
  });
});
