import { MathExpression } from 'aws-cdk-lib/aws-cloudwatch';
import type { AppTable } from './table.ts';

/** CloudWatch alarms accept at most 10 metrics in one math expression. */
export const MAX_ALARM_METRICS = 10;

/**
 * DynamoDB publishes ThrottledRequests and SystemErrors per operation only: their sum over the operations
 * the table's functions may call. FILL makes an operation without data count 0 instead of blanking the sum.
 */
export function sumOverOperations(table: AppTable, metricName: string, label: string): MathExpression | undefined {
  const operations = table.operations;
  if (operations.length === 0) return undefined;
  if (operations.length > MAX_ALARM_METRICS) {
    throw new Error(
      `Table ${table.node.id}: ${operations.length} operations exceed the ${MAX_ALARM_METRICS} metrics one CloudWatch alarm can sum`,
    );
  }
  const usingMetrics = Object.fromEntries(
    // Ids unique across tables: one dashboard graph holds every table's expression.
    operations.map((operation) => [
      `${table.node.id.toLowerCase().replace(/[^a-z0-9]/g, '')}_${operation.toLowerCase()}`,
      table.table.metric(metricName, {
        statistic: 'Sum',
        dimensionsMap: { TableName: table.table.tableName, Operation: operation },
      }),
    ]),
  );
  return new MathExpression({
    expression: Object.keys(usingMetrics)
      .map((m) => `FILL(${m}, 0)`)
      .join(' + '),
    usingMetrics,
    label,
  });
}
