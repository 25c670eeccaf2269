// `npm run backfill-parent-keys -- --table <datasets table name>`: gives records written before the
// by-parent index their index key (docs/knowledge-base-api.md). Uses the default AWS credentials,
// region and AWS_ENDPOINT_URL_DYNAMODB; safe to run again.
import { parseArgs } from 'node:util';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { backfillParentKeys } from '#shared/repositories/datasets-backfill';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

const { values } = parseArgs({ options: { table: { type: 'string' } } });
if (!values.table) {
  process.stderr.write('usage: npm run backfill-parent-keys -- --table <datasets table name>\n');
  process.exit(2);
}
const client = DynamoDBDocumentClient.from(new DynamoDBClient({}));
const { found, updated } = await backfillParentKeys(client, values.table);
process.stdout.write(`${JSON.stringify({ table: values.table, found, updated })}\n`);
client.destroy();
