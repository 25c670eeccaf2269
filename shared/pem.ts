import { X509Certificate } from 'node:crypto';
import { ConfigError } from './errors.ts';

const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

/**
 * Splits a PEM bundle into its certificates, each checked to parse as X.509; `what` names the
 * source in the error (a config key or a variable). Used at synth and at the function's cold start.
 */
export function parsePemBundle(text: string, what: string): string[] {
  const certificates = text.match(PEM_CERTIFICATE) ?? [];
  if (certificates.length === 0)
    throw new ConfigError(`${what} holds no PEM certificate (-----BEGIN CERTIFICATE-----)`);
  certificates.forEach((pem, index) => {
    try {
      new X509Certificate(pem);
    } catch (cause) {
      throw new ConfigError(
        `${what}: certificate ${index + 1} of ${certificates.length} is not a valid X.509 certificate`,
        {
          cause,
        },
      );
    }
  });
  return certificates;
}
