/** One CloudWatch embedded-metric-format record, as Powertools Metrics prints it (one JSON line). */
export interface EmfRecord {
  readonly namespace: string;
  /** Dimension names of the record's single dimension set, e.g. `['service']`. */
  readonly dimensions: readonly string[];
  /** Every metric of the record: its unit and its value (an array when recorded more than once). */
  readonly metrics: Readonly<Record<string, { unit: string; value: unknown }>>;
  /** The whole parsed line, for checks on what else it carries. */
  readonly raw: Record<string, unknown>;
}

interface EmfLine {
  _aws: {
    CloudWatchMetrics: { Namespace: string; Dimensions: string[][]; Metrics: { Name: string; Unit: string }[] }[];
  };
  [key: string]: unknown;
}

/** The EMF records among captured output lines (log lines and other output are ignored). */
export function emfRecords(output: string): EmfRecord[] {
  const records: EmfRecord[] = [];
  for (const line of output.split('\n')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      continue;
    }
    const directive = (parsed as Partial<EmfLine>)?._aws?.CloudWatchMetrics?.[0];
    if (!directive) continue;
    const raw = parsed as EmfLine;
    records.push({
      namespace: directive.Namespace,
      dimensions: directive.Dimensions.flat(),
      metrics: Object.fromEntries(directive.Metrics.map((m) => [m.Name, { unit: m.Unit, value: raw[m.Name] }])),
      raw,
    });
  }
  return records;
}
