import { randomUUID } from 'node:crypto';
import {
  DescribeSecretCommand,
  GetSecretValueCommand,
  InvalidParameterException,
  PutSecretValueCommand,
  ResourceNotFoundException,
  UpdateSecretVersionStageCommand,
} from '@aws-sdk/client-secrets-manager';
import type { mockClient } from 'aws-sdk-client-mock';

type SecretsManagerMock = ReturnType<typeof mockClient>;

interface Version {
  value: string;
  stages: Set<string>;
}

/**
 * Secrets Manager's versions and staging labels, as its API reference describes them, behind an
 * aws-sdk-client-mock: GetSecretValue by stage (AWSCURRENT by default) or version id, PutSecretValue
 * (AWSCURRENT unless VersionStages says otherwise, AWSPREVIOUS following it; the same ClientRequestToken
 * twice is one version), UpdateSecretVersionStage (refused when the label sits on a version other than
 * RemoveFromVersionId) and DescribeSecret's VersionIdsToStages. `beforeEach` runs before every call, so
 * a test can interleave two clients at a chosen step.
 */
export function fakeSecretsManager(mock: SecretsManagerMock, initial: Readonly<Record<string, string>>) {
  const secrets = new Map<string, Map<string, Version>>();
  const hooks: { beforeEach?: (command: string) => Promise<void> | void } = {};

  const versionsOf = (id: string) => {
    const versions = secrets.get(id);
    if (!versions)
      throw new ResourceNotFoundException({ message: 'Secrets Manager cannot find the secret', $metadata: {} });
    return versions;
  };
  const holderOf = (versions: Map<string, Version>, stage: string) =>
    [...versions.entries()].find(([, v]) => v.stages.has(stage))?.[0];
  const attach = (versions: Map<string, Version>, versionId: string, stage: string) => {
    const from = holderOf(versions, stage);
    if (from === versionId) return;
    if (from) versions.get(from)?.stages.delete(stage);
    versions.get(versionId)?.stages.add(stage);
    if (stage === 'AWSCURRENT' && from) attach(versions, from, 'AWSPREVIOUS');
  };
  const put = (id: string, value: string, versionId: string, stages: readonly string[]) => {
    const versions = secrets.get(id) ?? new Map<string, Version>();
    secrets.set(id, versions);
    if (!versions.has(versionId)) versions.set(versionId, { value, stages: new Set() });
    for (const stage of stages) attach(versions, versionId, stage);
  };
  for (const [id, value] of Object.entries(initial)) put(id, value, randomUUID(), ['AWSCURRENT']);

  const step = async <T>(command: string, run: () => T): Promise<T> => {
    await hooks.beforeEach?.(command);
    return run();
  };

  mock.on(GetSecretValueCommand).callsFake((input: GetSecretValueCommand['input']) =>
    step('GetSecretValue', () => {
      const versions = versionsOf(String(input.SecretId));
      const versionId = input.VersionId ?? holderOf(versions, input.VersionStage ?? 'AWSCURRENT');
      const version = versionId === undefined ? undefined : versions.get(versionId);
      if (!version || versionId === undefined) {
        throw new ResourceNotFoundException({ message: 'no such version', $metadata: {} });
      }
      return { VersionId: versionId, SecretString: version.value, VersionStages: [...version.stages] };
    }),
  );
  mock.on(PutSecretValueCommand).callsFake((input: PutSecretValueCommand['input']) =>
    step('PutSecretValue', () => {
      const versionId = input.ClientRequestToken ?? randomUUID();
      put(String(input.SecretId), String(input.SecretString), versionId, input.VersionStages ?? ['AWSCURRENT']);
      return { VersionId: versionId, VersionStages: input.VersionStages ?? ['AWSCURRENT'] };
    }),
  );
  mock.on(UpdateSecretVersionStageCommand).callsFake((input: UpdateSecretVersionStageCommand['input']) =>
    step('UpdateSecretVersionStage', () => {
      const versions = versionsOf(String(input.SecretId));
      const stage = String(input.VersionStage);
      const holder = holderOf(versions, stage);
      if (holder !== undefined && holder !== input.MoveToVersionId && holder !== input.RemoveFromVersionId) {
        throw new InvalidParameterException({
          message: `The staging label ${stage} is currently attached to version ${holder}`,
          $metadata: {},
        });
      }
      if (input.MoveToVersionId) attach(versions, input.MoveToVersionId, stage);
      else if (holder !== undefined && holder === input.RemoveFromVersionId) versions.get(holder)?.stages.delete(stage);
      return {};
    }),
  );
  mock.on(DescribeSecretCommand).callsFake((input: DescribeSecretCommand['input']) =>
    step('DescribeSecret', () => {
      const versions = versionsOf(String(input.SecretId));
      return {
        VersionIdsToStages: Object.fromEntries([...versions].map(([id, v]) => [id, [...v.stages]])),
      };
    }),
  );

  return {
    hooks,
    /** The AWSCURRENT value of a secret. */
    current(id: string): string {
      const versions = versionsOf(id);
      const holder = holderOf(versions, 'AWSCURRENT');
      return holder === undefined ? '' : (versions.get(holder)?.value ?? '');
    },
    /** Puts a new AWSCURRENT value, as the console or the CLI would. */
    set(id: string, value: string): void {
      put(id, value, randomUUID(), ['AWSCURRENT']);
    },
  };
}
