import { CfnOutput, Duration, Fn, NestedStack, SecretValue, Stack, type StackProps, Validations } from 'aws-cdk-lib';
import { SecurityGroup, Subnet, Vpc } from 'aws-cdk-lib/aws-ec2';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import type { Construct } from 'constructs';
import { ENV } from '#shared/config';
import { LOCAL_CREDENTIALS_FILE_ENV } from '#shared/local-credentials';
import { APIS, type ApiName, type FunctionName } from '#shared/routes';
import { DATASETS_BY_PARENT, TABLES, type TableName } from '#shared/tables';
import { ApiGatewayCloudWatchRole, AppApi } from './constructs/api.ts';
import { AppFunction, type FunctionVpcPlacement } from './constructs/function.ts';
import { Monitoring } from './constructs/monitoring.ts';
import { AppTable } from './constructs/table.ts';
import { addKbResources, grantSourceCollections, kbDeadLetterWatch, useRelayCore, useSearchIndexes } from './kb.ts';
import { addKbSearchResources } from './kb-search.ts';
import { addKbSourceResources } from './kb-sources.ts';
import { addRelayResources } from './relay.ts';
import {
  copyCredentialsBesideBundle,
  loadSamMode,
  SAM_AUTHORIZER_ENTRY,
  SAM_CREDENTIALS_PATH,
  SAM_DYNAMODB_ENDPOINT,
} from './sam.ts';
import { STACK_OUTPUTS } from './stack-outputs.ts';
import type { StageConfig } from './stage-config.ts';
import { knowledgeBaseFunctionSpecs, REVIEW_FUNCTION_SPECS, type TableFunctionSpec } from './table-function-specs.ts';

/** `create-dataset` → `CreateDataset`: the construct id of each function, as it has always been. */
const constructId = (name: string): string =>
  name.replace(/(^|-)([a-z])/g, (_, _dash: string, letter: string) => letter.toUpperCase());

/** Applies `make` to every entry of a record, keeping its keys. */
const mapRecord = <K extends string, V, R>(record: Readonly<Record<K, V>>, make: (value: V, key: K) => R) =>
  Object.fromEntries(Object.entries<V>(record).map(([key, value]) => [key, make(value, key as K)])) as Record<K, R>;

export interface ServiceStackProps extends StackProps {
  readonly config: StageConfig;
}

/** Quotes one word for a POSIX shell (bundling hooks run through bash). */
const shellQuote = (word: string): string => `'${word.replace(/'/g, "'\\''")}'`;

/** Import function timeout: below API Gateway's 29 s integration limit, above LEGACYGW_DEADLINE_MS. */
export const IMPORT_TIMEOUT = Duration.seconds(28);

/**
 * The whole product in one stack: two tables, two secrets, the functions and two REST APIs,
 * each function allowed exactly what it needs and nothing on the other's data; its monitoring in a nested stack.
 */
export class ServiceStack extends Stack {
  readonly tables: Readonly<Record<TableName, AppTable>>;
  readonly secrets: { readonly adminKey: Secret; readonly accessTokens: Secret; readonly channelIdKey: Secret };
  readonly functions: Readonly<Record<FunctionName, AppFunction>>;
  readonly apis: Readonly<Record<ApiName, AppApi>>;
  readonly monitoring: Monitoring;
  /** Holds `monitoring`: its alarms, topic and dashboard count against their own template's 500 resources. */
  readonly monitoringStack: NestedStack;

  constructor(scope: Construct, id: string, props: ServiceStackProps) {
    super(scope, id, props);
    const { config } = props;
    const sam = loadSamMode(this.node);
    const common = {
      logRetention: config.logRetention,
      removalPolicy: config.removalPolicy,
      ...(sam ? { architecture: sam.architecture } : {}),
    };

    const datasets = new AppTable(this, 'DatasetsTable', {
      definition: TABLES.datasets,
      removalPolicy: config.removalPolicy,
      deletionProtection: config.tableDeletionProtection,
    });
    // Upstream providers' API keys: under a key the operator controls, usable only by the functions granted the table.
    const channels = new AppTable(this, 'ChannelsTable', {
      definition: TABLES.channels,
      removalPolicy: config.removalPolicy,
      deletionProtection: config.tableDeletionProtection,
      customerManagedKey: true,
    });

    const adminKey = new Secret(this, 'AdminKeySecret', {
      description: 'Admin key of the channel proxy API (Authorization: Bearer <value>)',
      // 64 letters and digits (~380 bits): no punctuation, so it needs no quoting in a shell or a header.
      generateSecretString: { passwordLength: 64, excludePunctuation: true, includeSpace: false },
      removalPolicy: config.removalPolicy,
    });
    const accessTokens = new Secret(this, 'AccessTokensSecret', {
      description: 'SHA-256 hashes of the knowledge-base API access tokens (managed with `npm run tokens`)',
      // The initial value holds no secret (an empty list), so it is written literally instead of being
      // generated: CloudFormation's generator would insert an extra random field into the document.
      // Never change this value: CloudFormation would overwrite the live token list with it.
      secretStringValue: SecretValue.unsafePlainText(JSON.stringify({ tokens: [] })),
      removalPolicy: config.removalPolicy,
    });
    // docs/channel-import.md, "Identity": every channel id is an HMAC under this key, so ids reveal nothing about
    // keys. Generated once and kept like the data (the ids of stored channels depend on it); never rotated.
    const channelIdKey = new Secret(this, 'ChannelIdKeySecret', {
      description: 'Key of the channel ids (HMAC-SHA-256); never rotate: stored channel ids depend on it',
      generateSecretString: { passwordLength: 64, excludePunctuation: true, includeSpace: false },
      removalPolicy: config.removalPolicy,
    });
    Validations.of(channelIdKey).acknowledge({
      id: 'AwsSolutions::AwsSolutions-SMG4',
      reason:
        'Never rotated on purpose: every stored channel id is an HMAC under this key, so a new key would turn each re-import into new channels (docs/channel-import.md).',
    });
    for (const secret of [adminKey, accessTokens]) {
      Validations.of(secret).acknowledge({
        id: 'AwsSolutions::AwsSolutions-SMG4',
        reason:
          'Rotated by the operator, not by a rotation Lambda: the admin key and access tokens are handed to API clients out of band, so an automatic rotation would lock them out. README documents put-secret-value and `npm run tokens`.',
      });
    }

    const authorizer = new AppFunction(this, 'Authorizer', {
      name: 'authorizer',
      description: 'TOKEN authorizer of both APIs: bearer token -> scoped Allow/Deny policy',
      memorySize: 256,
      timeout: Duration.seconds(10),
      environment: {
        [ENV.secretsMaxAgeS]: String(config.secretsMaxAgeSeconds),
        [ENV.logLevel]: config.logLevel,
      },
      ...(sam ? { entry: SAM_AUTHORIZER_ENTRY, afterBundling: copyCredentialsBesideBundle(sam.credentialsFile) } : {}),
      ...common,
    });
    authorizer.readSecret(accessTokens, ENV.accessTokensSecretId);
    authorizer.readSecret(adminKey, ENV.adminKeySecretId);

    // Small, quick functions on one table, unless their spec says otherwise; each is granted exactly its calls.
    const tableFunction = (table: AppTable, tableEnv: string, name: FunctionName, spec: TableFunctionSpec) => {
      const fn = new AppFunction(this, constructId(name), {
        name,
        description: spec.description,
        memorySize: spec.memorySize ?? 512,
        timeout: Duration.seconds(spec.timeoutSeconds ?? 10),
        environment: { [ENV.logLevel]: config.logLevel, ...spec.environment },
        ...(spec.bundledEnvironment ? { bundledEnvironment: spec.bundledEnvironment } : {}),
        ...common,
      });
      fn.useTable(table, tableEnv, spec.table);
      if (spec.index) fn.useIndex(table, DATASETS_BY_PARENT.name, spec.index);
      return fn;
    };
    const knowledgeBaseSpecs = knowledgeBaseFunctionSpecs(config);
    const knowledgeBase = mapRecord(knowledgeBaseSpecs, (spec, name) =>
      tableFunction(datasets, ENV.datasetsTable, name, spec),
    );

    const importLegacygw = new AppFunction(this, 'ImportLegacygw', {
      name: 'import-legacygw',
      description:
        'POST /api/channels/import/legacygw and /rows: imports channels from a gateway database or rows read from its SQLite file',
      // Mapping up to LEGACYGW_MAX_ROWS streamed rows is CPU-bound; Lambda scales CPU with memory.
      memorySize: 1024,
      timeout: IMPORT_TIMEOUT,
      environment: {
        [ENV.legacygwMaxRows]: String(config.legacygw.maxRows),
        [ENV.legacygwDeadlineMs]: String(config.legacygw.deadlineMs),
        [ENV.legacygwAllowedHosts]: config.legacygw.allowedHosts.join(','),
        [ENV.logLevel]: config.logLevel,
      },
      ...(config.vpc ? { vpc: this.vpcPlacement(config.vpc) } : {}),
      // A private CA's PEM bundle can be several KB: it ships in the bundle, not the environment.
      ...(config.legacygw.caBundle ? { bundledEnvironment: { [ENV.legacygwCaBundle]: config.legacygw.caBundle } } : {}),
      // Under SAM the import reads its channel-id key from the same copied credentials file as the authorizer.
      ...(sam ? { afterBundling: copyCredentialsBesideBundle(sam.credentialsFile) } : {}),
      ...common,
    });
    // BatchGetItem to compare with existing channels (created/updated/unchanged), BatchWriteItem to store.
    importLegacygw.useTable(channels, ENV.channelsTable, ['BatchGetItem', 'BatchWriteItem']);
    // One Scan of Limit 1 at the start asks whether the table is empty (then no chunk is read before it is written);
    // the grant lets that Scan return the id only, so the import still cannot read whole channels by scanning.
    importLegacygw.useKeyOnlyScan(channels);
    importLegacygw.readSecret(channelIdKey, ENV.channelIdKeySecretId);

    // The channel review API: one small function per call.
    const reviewSpecs = REVIEW_FUNCTION_SPECS;
    const review = mapRecord(reviewSpecs, (spec, name) => tableFunction(channels, ENV.channelsTable, name, spec));

    const consolePage = new AppFunction(this, 'Console', {
      name: 'console',
      description: 'GET /console: the import review web page (no data; every call it makes carries the admin key)',
      memorySize: 256,
      timeout: Duration.seconds(5),
      environment: {},
      // The page is built from functions/console/page/ at bundle time and shipped beside the handler.
      afterBundling: (outputDir) => [`npx tsx scripts/build-console.ts ${shellQuote(outputDir)}`],
      ...common,
    });

    // Reads nothing: the documents are bundled; the stage variable says which API asks.
    const openApi = new AppFunction(this, 'OpenApi', {
      name: 'openapi',
      description: "GET /openapi.json of both APIs (no authorizer): the API's OpenAPI 3.1 document",
      memorySize: 256,
      timeout: Duration.seconds(5),
      environment: {},
      ...common,
    });

    const relay = addRelayResources(this, {
      config,
      channels,
      channelIdKey,
      authorizer,
      importFunction: importLegacygw,
      common,
    });

    const kb = addKbResources(this, {
      config,
      datasets,
      relay: { channels, relayState: relay.tables.relayState, usage: relay.tables.usage },
      deleteDataset: knowledgeBase['delete-dataset'],
      common,
    });
    const kbSources = addKbSourceResources(this, { config, datasets, channelIdKey, bucket: kb.sourceBucket, common });
    grantSourceCollections(kb, {
      create: kbSources.functions['kb-create-source-collection'],
      read: kbSources.functions['kb-read-collection'],
      preview: kbSources.functions['kb-preview-chunks'],
    });
    const kbSearch = addKbSearchResources(this, { config, datasets, kbContent: kb.tables.kbContent, common });
    // The search embeds the question through the relay's routing core; the data calls, the training (its
    // background deletes too) and the delete of a failed chunk (training/deleteTrainingData) remove the search's
    // indexes or write them.
    const relayTables = { channels, relayState: relay.tables.relayState, usage: relay.tables.usage };
    useRelayCore(kbSearch.functions['search-test'], relayTables, config);
    for (const fn of [kb.functions['kb-data'], kb.functions['train-collection'], kb.functions['kb-collections']]) {
      useSearchIndexes(fn, kbSearch.tables);
    }

    const cloudWatchRole = config.manageApiGatewayAccount
      ? new ApiGatewayCloudWatchRole(this, 'ApiGateway')
      : undefined;
    const apiCommon = {
      stageName: config.stage,
      authorizer: authorizer.function,
      authorizerCacheTtl: Duration.seconds(config.authorizerCacheTtlSeconds),
      handlers: {
        ...mapRecord(knowledgeBase, (fn) => fn.function),
        'import-legacygw': importLegacygw.function,
        ...mapRecord(review, (fn) => fn.function),
        console: consolePage.function,
        openapi: openApi.function,
        ...mapRecord(relay.functions, (fn) => fn.function),
        ...mapRecord(kb.functions, (fn) => fn.function),
        ...mapRecord(kbSources.functions, (fn) => fn.function),
        ...mapRecord(kbSearch.functions, (fn) => fn.function),
      },
      throttling: config.throttling,
      ...(cloudWatchRole ? { stageDependsOn: [cloudWatchRole.account] } : {}),
      ...common,
    };
    const datasetApi = new AppApi(this, 'DatasetApi', { definition: APIS.dataset, ...apiCommon });
    const proxyApi = new AppApi(this, 'ProxyApi', {
      definition: APIS.proxy,
      // Each import holds a database connection or a 5 MiB body and the function for seconds: a tighter bucket of its
      // own, on each of the function's two methods (DSN and rows).
      routeThrottling: { 'import-legacygw': config.legacygw.throttling },
      ...apiCommon,
    });

    // The relay's own API: OpenAI's envelope, relay keys only, streaming methods (docs/relay.md).
    const relayApi = new AppApi(this, 'RelayApi', { definition: APIS.relay, ...apiCommon });

    this.tables = { datasets, channels, ...relay.tables, ...kb.tables, ...kbSearch.tables };
    this.secrets = { adminKey, accessTokens, channelIdKey };
    this.functions = {
      authorizer,
      ...knowledgeBase,
      'import-legacygw': importLegacygw,
      console: consolePage,
      openapi: openApi,
      ...review,
      ...relay.functions,
      ...kb.functions,
      ...kbSources.functions,
      ...kbSearch.functions,
    };
    this.apis = { dataset: datasetApi, proxy: proxyApi, relay: relayApi };

    // Last, once every function has its table grants: alarms follow the maps, so a new function,
    // API or table is watched by being in them. In a nested stack (docs/deploy.md, "Resource budget"): CDK passes the
    // names it watches in as parameters and the topic and dashboard back out for the outputs below.
    this.monitoringStack = new NestedStack(this, 'MonitoringStack', {
      description: `Alarms, alarm topic and dashboard of ${this.stackName}`,
    });
    this.monitoring = new Monitoring(this.monitoringStack, 'Monitoring', {
      config: config.monitoring,
      functions: this.functions,
      authorizer,
      apis: this.apis,
      tables: this.tables,
      deadLetterQueues: [kbDeadLetterWatch(kb.deadLetterQueue)],
    });

    if (sam) {
      // Declared so that `sam local --env-vars sam-env.json` may set them (SAM ignores the others);
      // the values already point at `npm start`'s engine and the copied credentials file.
      authorizer.setEnvironment(LOCAL_CREDENTIALS_FILE_ENV, SAM_CREDENTIALS_PATH);
      // The import's channel-id key is the local run's too, so SAM and npm start give the same ids.
      importLegacygw.setEnvironment(LOCAL_CREDENTIALS_FILE_ENV, SAM_CREDENTIALS_PATH);
      for (const fn of Object.values(this.functions)) {
        if (fn.usesTables) fn.setEnvironment(ENV.dynamodbEndpoint, SAM_DYNAMODB_ENDPOINT);
      }
    }

    new CfnOutput(this, 'DatasetApiUrl', {
      description: 'Knowledge-base API base URL ({base_url})',
      value: datasetApi.url,
    });
    new CfnOutput(this, 'ProxyApiUrl', {
      description: 'Channel proxy API base URL ({proxy_url})',
      value: proxyApi.url,
    });
    new CfnOutput(this, 'RelayApiUrl', {
      description: 'OpenAI-compatible relay base URL ({relay_url}; an SDK takes {relay_url}v1)',
      value: relayApi.url,
    });
    new CfnOutput(this, 'AdminKeySecretArn', {
      description: 'Secret holding the admin key',
      value: adminKey.secretArn,
    });
    new CfnOutput(this, STACK_OUTPUTS.accessTokensSecretArn, {
      description: 'Secret holding the access token hashes (npm run tokens -- --secret-id <this>)',
      value: accessTokens.secretArn,
    });
    new CfnOutput(this, 'AlarmTopicArn', {
      description: 'SNS topic every alarm notifies (subscribe on-call here)',
      value: this.monitoring.topic.topicArn,
    });
    new CfnOutput(this, 'DashboardName', {
      description: 'CloudWatch dashboard of the APIs, functions, tables and business metrics',
      value: this.monitoring.dashboard.dashboardName,
    });
    // Read by `npm run tokens -- revoke` to flush both APIs' authorizer caches (see STACK_OUTPUTS).
    new CfnOutput(this, STACK_OUTPUTS.datasetApiId, {
      description: 'REST API id of the knowledge-base API',
      value: datasetApi.api.restApiId,
    });
    new CfnOutput(this, STACK_OUTPUTS.proxyApiId, {
      description: 'REST API id of the channel proxy API',
      value: proxyApi.api.restApiId,
    });
    new CfnOutput(this, STACK_OUTPUTS.stageName, {
      description: 'API Gateway stage name of both APIs',
      value: datasetApi.api.deploymentStage.stageName,
    });
    new CfnOutput(this, STACK_OUTPUTS.secretsMaxAgeSeconds, {
      description: 'How long the authorizer caches the secrets (SECRETS_MAX_AGE_S)',
      value: String(config.secretsMaxAgeSeconds),
    });
    new CfnOutput(this, 'DatasetsTableName', { value: datasets.table.tableName });
    new CfnOutput(this, 'ChannelsTableName', { value: channels.table.tableName });
    // For `npm run tokens -- relay ... --table <this> --secret-id <ChannelIdKeySecretArn>` (docs/authorization.md).
    new CfnOutput(this, 'RelayKeysTableName', { value: relay.tables.relayKeys.table.tableName });
    new CfnOutput(this, 'ChannelIdKeySecretArn', {
      description: 'Secret holding the key of channel ids and relay key hashes (the tokens tool reads it)',
      value: channelIdKey.secretArn,
    });
  }

  /** Imports the configured VPC, subnets and security group by id: no lookup, so synth needs no credentials. */
  private vpcPlacement(vpc: NonNullable<StageConfig['vpc']>): FunctionVpcPlacement {
    // fromVpcAttributes insists on a list of zones; the function only uses the explicit subnets.
    const importedVpc = Vpc.fromVpcAttributes(this, 'ImportVpc', { vpcId: vpc.vpcId, availabilityZones: Fn.getAzs() });
    Validations.of(importedVpc).acknowledge({
      id: 'Annotation::@aws-cdk/aws-ec2:vpcAttributeIsListTokenavailabilityZones',
      reason: 'The VPC is only the parent of explicitly given subnets; nothing selects subnets by zone.',
    });
    const subnets = vpc.subnetIds.map((subnetId, i) => {
      const subnet = Subnet.fromSubnetId(this, `ImportSubnet${i}`, subnetId);
      Validations.of(subnet).acknowledge({
        id: 'Annotation::@aws-cdk/aws-ec2:noSubnetRouteTableId',
        reason: 'Lambda needs only the subnet id; nothing in the stack reads or changes its route table.',
      });
      return subnet;
    });
    return {
      vpc: importedVpc,
      subnets,
      // Immutable: the stack must not add rules to a security group the operator owns.
      securityGroup: SecurityGroup.fromSecurityGroupId(this, 'ImportSecurityGroup', vpc.securityGroupId, {
        mutable: false,
      }),
    };
  }
}
