import { Duration, Fn, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import {
  AccessLogField,
  AccessLogFormat,
  AuthorizationType,
  CfnAccount,
  Cors,
  EndpointType,
  IdentitySource,
  LambdaIntegration,
  LogGroupLogDestination,
  type MethodDeploymentOptions,
  MethodLoggingLevel,
  RequestAuthorizer,
  ResponseTransferMode,
  ResponseType,
  RestApi,
  TokenAuthorizer,
} from 'aws-cdk-lib/aws-apigateway';
import { ManagedPolicy, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { CfnPermission, type IFunction } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct, type IDependable } from 'constructs';
import { CORS_ALLOW_HEADERS, CORS_ALLOW_METHODS, CORS_APIS } from '#shared/cors';
import {
  GATEWAY_RESPONSE_CORS_HEADERS,
  GATEWAY_RESPONSE_HEADERS,
  GATEWAY_RESPONSES,
  type GatewayResponseType,
  gatewayResponseBody,
} from '#shared/gateway-responses';
import {
  API_NAME_STAGE_VARIABLE,
  type ApiDef,
  BINARY_MEDIA_TYPES,
  type RouteDef,
  requiresAuthorizer,
} from '#shared/routes';

/** API Gateway's token bucket: steady requests per second and burst size. */
export interface Throttling {
  readonly rateLimit: number;
  readonly burstLimit: number;
}

export interface AppApiProps {
  /** The API as data (APIS entry): name, description and routes. */
  readonly definition: ApiDef;
  readonly stageName: string;
  /** The TOKEN authorizer function; every method of the API goes through it, except `auth: 'none'` routes. */
  readonly authorizer: IFunction;
  readonly authorizerCacheTtl: Duration;
  /** The function behind each route. */
  readonly handlers: Readonly<Record<RouteDef['function'], IFunction>>;
  readonly throttling: Throttling;
  /** A method throttle of its own, apart from the stage's, for the routes of these functions. */
  readonly routeThrottling?: Partial<Readonly<Record<RouteDef['function'], Throttling>>>;
  readonly logRetention: RetentionDays;
  readonly removalPolicy: RemovalPolicy;
  /** Resources the stage must wait for (the account's CloudWatch role, when this stack sets it). */
  readonly stageDependsOn?: readonly IDependable[];
}

/** The integration timeout of a streaming route: the longest API Gateway allows in streaming transfer mode. */
export const STREAMING_INTEGRATION_TIMEOUT = Duration.minutes(15);

// JSON access log; deliberately no header, body or query string, so no token or DSN is ever logged.
const ACCESS_LOG_FORMAT = AccessLogFormat.custom(
  JSON.stringify({
    requestId: AccessLogField.contextRequestId(),
    extendedRequestId: AccessLogField.contextExtendedRequestId(),
    requestTime: AccessLogField.contextRequestTime(),
    ip: AccessLogField.contextIdentitySourceIp(),
    userAgent: AccessLogField.contextIdentityUserAgent(),
    httpMethod: AccessLogField.contextHttpMethod(),
    resourcePath: AccessLogField.contextResourcePath(),
    protocol: AccessLogField.contextProtocol(),
    status: AccessLogField.contextStatus(),
    responseLength: AccessLogField.contextResponseLength(),
    responseLatency: AccessLogField.contextResponseLatency(),
    integrationStatus: AccessLogField.contextIntegrationStatus(),
    integrationLatency: AccessLogField.contextIntegrationLatency(),
    authorizerStatus: AccessLogField.contextAuthorizerStatus(),
    authorizerLatency: AccessLogField.contextAuthorizerLatency(),
    authorizerError: AccessLogField.contextAuthorizerError(),
    tokenId: AccessLogField.contextAuthorizer('tokenId'),
    teamId: AccessLogField.contextAuthorizer('teamId'),
    errorResponseType: AccessLogField.contextErrorResponseType(),
    errorMessage: AccessLogField.contextErrorMessage(),
    xrayTraceId: AccessLogField.contextXrayTraceId(),
  }),
);

/**
 * One REST API from its definition: a regional endpoint, a TOKEN authorizer (Authorization header,
 * cached) on every method but the routes marked `auth: 'none'`, Lambda proxy integrations, JSON access logs and ERROR-level execution
 * logs into log groups with retention, stage throttling, X-Ray tracing, and gateway responses in the
 * API's own envelope from GATEWAY_RESPONSES.
 */
export class AppApi extends Construct {
  readonly api: RestApi;
  readonly accessLogs: LogGroup;
  readonly executionLogs: LogGroup;

  constructor(scope: Construct, id: string, props: AppApiProps) {
    super(scope, id);
    const { definition } = props;

    this.accessLogs = new LogGroup(this, 'AccessLogs', {
      retention: props.logRetention,
      removalPolicy: props.removalPolicy,
    });

    this.api = new RestApi(this, 'RestApi', {
      // API Gateway's CloudWatch metrics are keyed by this name: without it both APIs (and every stage's
      // stack in the account) would be "RestApi" and their 5XX and latency alarms would read each other's.
      restApiName: `${Stack.of(this).stackName}-${definition.name}`,
      description: definition.description,
      endpointConfiguration: { types: [EndpointType.REGIONAL] },
      // What the API returns as bytes (the console's WebAssembly build); the same list the local server applies.
      ...(BINARY_MEDIA_TYPES[definition.name].length > 0
        ? { binaryMediaTypes: [...BINARY_MEDIA_TYPES[definition.name]] }
        : {}),
      // The account-wide CloudWatch role is set once for both APIs (ApiGatewayCloudWatchRole).
      cloudWatchRole: false,
      deployOptions: {
        stageName: props.stageName,
        accessLogDestination: new LogGroupLogDestination(this.accessLogs),
        accessLogFormat: ACCESS_LOG_FORMAT,
        tracingEnabled: true,
        throttlingRateLimit: props.throttling.rateLimit,
        throttlingBurstLimit: props.throttling.burstLimit,
        loggingLevel: MethodLoggingLevel.ERROR,
        // Full request/response logging would write bearer tokens and DSN passwords to the logs.
        dataTraceEnabled: false,
        metricsEnabled: false,
        methodOptions: routeMethodOptions(definition, props.routeThrottling ?? {}),
        // Tells a function behind routes of both APIs (the OpenAPI document) which API it serves.
        variables: { [API_NAME_STAGE_VARIABLE]: definition.name },
      },
      defaultMethodOptions: {
        authorizationType: AuthorizationType.CUSTOM,
        authorizer: new TokenAuthorizer(this, 'Authorizer', {
          handler: props.authorizer,
          identitySource: IdentitySource.header('Authorization'),
          resultsCacheTtl: props.authorizerCacheTtl,
        }),
      },
    });
    // The stack prints one clearly named URL output per API instead of RestApi's generic "Endpoint".
    this.api.node.tryRemoveChild('Endpoint');

    // API Gateway would create this group itself, without retention; creating it first sets one.
    this.executionLogs = new LogGroup(this, 'ExecutionLogs', {
      logGroupName: Fn.join('', ['API-Gateway-Execution-Logs_', this.api.restApiId, '/', props.stageName]),
      retention: props.logRetention,
      removalPolicy: props.removalPolicy,
    });
    this.api.deploymentStage.node.addDependency(this.executionLogs, ...(props.stageDependsOn ?? []));

    for (const route of definition.routes) {
      const integration = new LambdaIntegration(props.handlers[route.function], {
        // One invoke permission per function and API instead of one per method (the stack's resource budget), narrowed
        // to this API's stage below (docs/authorization.md, "API Gateway's right to invoke the functions").
        scopePermissionToMethod: false,
        // A streaming route (the relay's `/v1`): API Gateway passes the function's response stream on as it comes
        // (Lambda response streaming), with the integration timeout streaming allows, 15 minutes, so a long
        // completion is not cut at the buffered integrations' 29 s (docs/relay.md, "Streaming").
        ...(route.streaming
          ? { responseTransferMode: ResponseTransferMode.STREAM, timeout: STREAMING_INTEGRATION_TIMEOUT }
          : {}),
      });
      if (requiresAuthorizer(route) && route.keyHeader !== undefined) {
        this.api.root.resourceForPath(route.path).addMethod(route.method, integration, {
          authorizationType: AuthorizationType.CUSTOM,
          authorizer: this.keyHeaderAuthorizer(props),
        });
        continue;
      }
      if (requiresAuthorizer(route)) {
        this.api.root.resourceForPath(route.path).addMethod(route.method, integration);
        continue;
      }
      // `auth: 'none'`: this one method goes without the authorizer (the API's default for all others).
      const method = this.api.root
        .resourceForPath(route.path)
        .addMethod(route.method, integration, { authorizationType: AuthorizationType.NONE });
      Validations.of(method).acknowledge(
        {
          id: 'AwsSolutions::AwsSolutions-APIG4',
          reason: `${route.method} ${route.path} is public by design: it returns a static document with no data and no secret (the console page, or the API's OpenAPI document); every data call goes to an authorized method with a bearer token, and the stage throttling still applies.`,
        },
        {
          id: 'AwsSolutions::AwsSolutions-COG4',
          reason: `${route.method} ${route.path} serves a static document with no data, so it needs no Cognito user pool or any other authorizer; the data methods it calls keep the TOKEN authorizer.`,
        },
      );
    }

    this.scopeInvokePermissionsToStage(props.stageName);

    if (CORS_APIS[definition.name]) this.addPreflights(definition);

    // Headers on the answers API Gateway makes by itself: the relay's x-request-id (a context variable, unquoted), and
    // the knowledge-base API's CORS headers (literals, which API Gateway wants quoted).
    const responseHeaders: Record<string, string> = {
      ...GATEWAY_RESPONSE_HEADERS[definition.name],
      ...(CORS_APIS[definition.name]
        ? Object.fromEntries(Object.entries(GATEWAY_RESPONSE_CORS_HEADERS).map(([name, value]) => [name, `'${value}'`]))
        : {}),
    };
    for (const type of Object.keys(GATEWAY_RESPONSES[definition.name]) as GatewayResponseType[]) {
      this.api.addGatewayResponse(type, {
        type: ResponseType.of(type),
        statusCode: String(GATEWAY_RESPONSES[definition.name][type].statusCode),
        templates: { 'application/json': gatewayResponseBody(definition.name, type) },
        ...(Object.keys(responseHeaders).length > 0 ? { responseHeaders } : {}),
      });
    }

    Validations.of(this.api).acknowledge(
      {
        id: 'AwsSolutions::AwsSolutions-APIG2',
        reason: `Bodies are validated in the function with zod so that every error keeps the ${definition.name} API's own contract (status, error code, message naming the field) exactly as the local server answers; a gateway model would reject with a generic 400 of another shape.`,
      },
      {
        id: 'AwsSolutions::AwsSolutions-APIG3',
        reason:
          'No WAF web ACL: every method requires a bearer credential checked by the Lambda authorizer and the stage is throttled; operators who need IP or geo rules can associate a web ACL with the stage.',
      },
      {
        id: 'AwsSolutions::AwsSolutions-COG4',
        reason:
          'Callers authenticate with FastGPT-style API keys and an admin key, not Cognito users; a Lambda TOKEN authorizer checks them against Secrets Manager on every method (docs/authorization.md).',
      },
    );
  }

  /**
   * The per-API invoke permissions LambdaIntegration made (`scopePermissionToMethod: false`) allow any stage, the
   * console's test-invoke-stage included (which skips the authorizer): narrowed to this API's own stage, any method
   * and path of it. Only the methods whose integration names a function make API Gateway call it.
   */
  private scopeInvokePermissionsToStage(stageName: string): void {
    for (const child of this.api.node.children) {
      if (child instanceof CfnPermission && child.node.id.startsWith('ApiPermission.ApiScoped.')) {
        child.sourceArn = this.api.arnForExecuteApi('*', '/*', stageName);
      }
    }
  }

  private keyHeaderAuthorizerInstance: RequestAuthorizer | undefined;

  /**
   * The REQUEST authorizer of routes whose key may come in `x-api-key` as well as in `Authorization` (shared/routes.ts
   * `keyHeader`). API Gateway REST answers 401 without calling an authorizer when any listed identity source is absent,
   * so it lists none, and API Gateway then caches no result (TTL 0): the same function reads either header, and its own
   * relay-key cache keeps a warm call to one DynamoDB-free lookup (docs/authorization.md).
   */
  private keyHeaderAuthorizer(props: AppApiProps): RequestAuthorizer {
    this.keyHeaderAuthorizerInstance ??= new RequestAuthorizer(this, 'KeyHeaderAuthorizer', {
      handler: props.authorizer,
      identitySources: [],
      resultsCacheTtl: Duration.seconds(0),
    });
    return this.keyHeaderAuthorizerInstance;
  }

  /**
   * An OPTIONS method on each route's resource answering the CORS preflight as FastGPT does (shared/cors.ts): a mock
   * integration, no authorizer (a browser sends no credential with a preflight) and no function behind it.
   */
  private addPreflights(definition: ApiDef): void {
    for (const path of new Set(definition.routes.map((route) => route.path))) {
      const preflight = this.api.root.resourceForPath(path).addCorsPreflight({
        allowOrigins: Cors.ALL_ORIGINS,
        allowMethods: [...CORS_ALLOW_METHODS],
        allowHeaders: [...CORS_ALLOW_HEADERS],
        statusCode: 200,
      });
      Validations.of(preflight).acknowledge(
        {
          id: 'AwsSolutions::AwsSolutions-APIG4',
          reason: `OPTIONS ${path} is the CORS preflight: browsers send it without credentials, and it returns fixed headers from a mock integration with no data behind it.`,
        },
        {
          id: 'AwsSolutions::AwsSolutions-COG4',
          reason: `OPTIONS ${path} is the CORS preflight, answered by a mock integration; it reaches no function and no data.`,
        },
      );
    }
  }

  /** The invoke URL of the stage (`https://<id>.execute-api.<region>.amazonaws.com/<stage>/`). */
  get url(): string {
    return this.api.url;
  }
}

/** Stage method settings (`/<resource path>/<METHOD>`) throttling the given routes on their own. */
function routeMethodOptions(
  definition: ApiDef,
  throttling: NonNullable<AppApiProps['routeThrottling']>,
): Record<string, MethodDeploymentOptions> {
  const options: Record<string, MethodDeploymentOptions> = {};
  for (const route of definition.routes) {
    const limits = throttling[route.function];
    if (!limits) continue;
    options[`${route.path}/${route.method}`] = {
      throttlingRateLimit: limits.rateLimit,
      throttlingBurstLimit: limits.burstLimit,
      // The stage's settings for the other options, restated: a method setting replaces them all.
      loggingLevel: MethodLoggingLevel.ERROR,
      dataTraceEnabled: false,
      metricsEnabled: false,
    };
  }
  return options;
}

/**
 * The account-wide role API Gateway uses to write access and execution logs (an account setting,
 * not per API). Retained on stack deletion and on replacement: other APIs in the account may log
 * through it. Not retained when the deploy that created it rolls back (RetainExceptOnCreate), so a
 * failed first deploy leaves no role behind; an account that manages the setting elsewhere sets the
 * stage option `manageApiGatewayAccount: false` (docs/deploy.md).
 */
export class ApiGatewayCloudWatchRole extends Construct {
  readonly account: CfnAccount;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    const role = new Role(this, 'Role', {
      assumedBy: new ServicePrincipal('apigateway.amazonaws.com'),
      description: 'Lets API Gateway write access and execution logs to CloudWatch Logs',
      managedPolicies: [ManagedPolicy.fromAwsManagedPolicyName('service-role/AmazonAPIGatewayPushToCloudWatchLogs')],
    });
    role.applyRemovalPolicy(RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE);
    Validations.of(role).acknowledge({
      id: 'AwsSolutions::AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs]',
      reason:
        'The AWS-managed policy documented for the API Gateway account logging role; API Gateway names the log groups itself, so it cannot be scoped tighter.',
    });
    this.account = new CfnAccount(this, 'Account', { cloudWatchRoleArn: role.roleArn });
    this.account.applyRemovalPolicy(RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE);
  }
}
