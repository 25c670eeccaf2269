import { Duration, type RemovalPolicy } from 'aws-cdk-lib';
import type { CfnTable } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { Architecture } from 'aws-cdk-lib/aws-lambda';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { ENV } from '#shared/config';
import {
  VECTOR_REF_ATTRIBUTES,
  vectorAttribute,
  vectorIndexDimensions,
  vectorIndexName,
} from '#shared/kb/search/vector-layout';
import { vectorModelDimensions } from '#shared/model-catalog';
import { KB_CONTENT_BY_ID, TABLES } from '#shared/tables';
import { AppFunction } from './constructs/function.ts';
import { AppTable } from './constructs/table.ts';
import type { StageConfig } from './stage-config.ts';

/** What the knowledge base's search adds to the stack: the content and index tables, and the search function. */
export interface KbSearchResources {
  readonly tables: { readonly kbContent: AppTable; readonly kbVectors: AppTable; readonly kbTerms: AppTable };
  readonly functions: { readonly 'search-test': AppFunction };
  /** The dimensions a vector index was made for. */
  readonly vectorDimensions: readonly number[];
}

export interface KbSearchResourcesProps {
  readonly config: StageConfig;
  readonly datasets: AppTable;
  /** The content table when another part of the stack made it (the training core); made here otherwise. */
  readonly kbContent?: AppTable;
  readonly common: {
    readonly logRetention: RetentionDays;
    readonly removalPolicy: RemovalPolicy;
    readonly architecture?: Architecture;
  };
}

/**
 * The knowledge base's search (docs/knowledge-base-search.md): `kbVectors` with one DynamoDB vector index per distinct
 * dimension of the catalogue's vector models (the knowledge base's partition as the index's HASH), `kbTerms` for the
 * full-text postings, and the searchTest function, granted reads only.
 */
export function addKbSearchResources(scope: Construct, props: KbSearchResourcesProps): KbSearchResources {
  const { config, common } = props;
  const table = (id: string, name: 'kbContent' | 'kbVectors' | 'kbTerms') =>
    new AppTable(scope, id, {
      definition: TABLES[name],
      removalPolicy: config.removalPolicy,
      deletionProtection: config.tableDeletionProtection,
    });
  const kbContent = props.kbContent ?? table('KbContentTable', 'kbContent');
  const kbVectors = table('KbVectorsTable', 'kbVectors');
  const kbTerms = table('KbTermsTable', 'kbTerms');

  // Models with no known length get no index: their knowledge bases are searched by full text until the catalogue
  // gives their `dimensions` (docs/knowledge-base-search.md, "Vectors").
  const dimensions = vectorIndexDimensions(
    vectorModelDimensions(config.modelCatalog).flatMap((m) => (m.dimensions === undefined ? [] : [m.dimensions])),
  );
  // aws-cdk-lib has vector indexes only on the L1 table (CfnTable `vectorIndexes`).
  const cfn = kbVectors.table.node.defaultChild as CfnTable;
  // CloudFormation takes no empty list: a catalogue with no known length gets no vector index at all.
  if (dimensions.length > 0)
    cfn.vectorIndexes = dimensions.map((d) => ({
      indexName: vectorIndexName(d),
      dimensions: d,
      distanceFunction: 'COSINE',
      vectorAttribute: { attributeName: vectorAttribute(d) },
      searchSchema: [{ attributeName: TABLES.kbVectors.partitionKey, searchSchemaElementType: 'HASH' }],
      projection: { projectionType: 'INCLUDE', nonKeyAttributes: [...VECTOR_REF_ATTRIBUTES] },
    }));

  const searchTest = new AppFunction(scope, 'SearchTest', {
    name: 'search-test',
    description: 'POST /api/core/dataset/searchTest: searches a knowledge base (embedding, full text, mixed)',
    // BM25 over up to 50,000 postings, the exact token counts and the fusion are CPU-bound; Lambda gives CPU with memory.
    memorySize: 1024,
    timeout: Duration.seconds(28),
    environment: {
      [ENV.logLevel]: config.logLevel,
      [ENV.kbVectorSearch]: 'index',
      [ENV.kbVectorDimensions]: dimensions.length > 0 ? dimensions.join(',') : 'none',
    },
    bundledEnvironment: { [ENV.modelCatalog]: JSON.stringify(config.modelCatalog) },
    ...common,
  });
  // GetItem reads the knowledge base (its team, its vector model).
  searchTest.useTable(props.datasets, ENV.datasetsTable, ['GetItem']);
  // BatchGetItem reads found chunks and their collections by key; Query on byId finds a chunk by id alone.
  searchTest.useTable(kbContent, ENV.kbContentTable, ['BatchGetItem']);
  searchTest.useIndex(kbContent, KB_CONTENT_BY_ID.name, ['Query']);
  // GetItem reads the `n` item (the df sketch), BatchGetItem the old per-term counters of an index written before it,
  // Query the postings of each term.
  searchTest.useTable(kbTerms, ENV.kbTermsTable, ['GetItem', 'BatchGetItem', 'Query']);
  // SearchVectors on the vector indexes only: the function reads no vector item.
  searchTest.setEnvironment(ENV.kbVectorsTable, kbVectors.table.tableName);
  if (dimensions.length > 0) {
    searchTest.role.addToPrincipalPolicy(
      new PolicyStatement({
        actions: ['dynamodb:SearchVectors'],
        resources: dimensions.map((d) => `${kbVectors.table.tableArn}/index/${vectorIndexName(d)}`),
      }),
    );
  }

  return {
    tables: { kbContent, kbVectors, kbTerms },
    functions: { 'search-test': searchTest },
    vectorDimensions: dimensions,
  };
}
