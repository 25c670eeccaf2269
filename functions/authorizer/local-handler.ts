import { ENV, loadConfig } from '#shared/config';
import {
  LOCAL_CREDENTIALS_FILE_ENV,
  localAuthorizerEnvSchema,
  localFileCredentialSource,
} from '#shared/local-credentials';
import { createLogger } from '#shared/logger';
import { createAuthorizer } from './authorizer.ts';

const config = loadConfig(localAuthorizerEnvSchema);

/**
 * The authorizer of the SAM-ready template only (`npm run synth:sam`, infra/sam.ts): the local run's
 * credentials file, copied beside this bundle. The deployed template bundles handler.ts instead.
 */
export const handler = createAuthorizer({
  source: localFileCredentialSource(config[LOCAL_CREDENTIALS_FILE_ENV]),
  logger: createLogger('authorizer', config[ENV.logLevel]),
});
