/**
 * Names of the stack outputs that tools read back from a deployed stack (`npm run tokens`), kept
 * apart from the stack so a script can import them without loading aws-cdk-lib.
 */
export const STACK_OUTPUTS = {
  accessTokensSecretArn: 'AccessTokensSecretArn',
  datasetApiId: 'DatasetApiId',
  proxyApiId: 'ProxyApiId',
  stageName: 'ApiStageName',
  secretsMaxAgeSeconds: 'SecretsMaxAgeSeconds',
} as const;
