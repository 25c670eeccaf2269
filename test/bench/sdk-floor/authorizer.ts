/**
 * SDK floor of the authorizer: the Secrets Manager client and the command Powertools' getSecret
 * uses. Powertools constructs the client at the first getSecret call, not at module load, so
 * neither does this module; the factory only keeps the client's code in the bundle.
 */
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';

/** `new SecretsManagerClient({})`, as Powertools' SecretsProvider builds its default client. */
export const createClient = () => new SecretsManagerClient({});
export { GetSecretValueCommand };
