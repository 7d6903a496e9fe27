import { parser } from '@prometheus-io/lezer-promql';
import { parse, stringify } from 'yaml';

/**
 * The monitoring artefacts in monitoring/ (docs/deployment.md, "Monitoring"): the PrometheusRule
 * made from the rule file, and what the tests need to hold the rules and the dashboard to the
 * metrics the services really export.
 */

/** Where the PrometheusRule comes from, and how to make it again: its header. */
const RULE_HEADER = `# GENERATED from alerts.yaml by \`node tools/deploy/scripts/prometheus-rule.mjs\`: edit alerts.yaml,
# then run that (tools/deploy/test/monitoring-rules.test.ts fails while the two differ). The alert
# rules for the Prometheus Operator; its prometheus must select them (ruleSelector: add its label).
`;

/** monitoring/prometheus-rule.yaml: the groups of the rule file (alerts.yaml) as a PrometheusRule. */
export function prometheusRule(rulesYaml: string): string {
  const rules = parse(rulesYaml) as { groups?: unknown };
  if (!Array.isArray(rules?.groups)) throw new Error('the rule file has no `groups:` list');
  const manifest = { apiVersion: 'monitoring.coreos.com/v1', kind: 'PrometheusRule', metadata: { name: 'entia' }, spec: { groups: rules.groups } };
  // Long lines kept whole: a PromQL expression folded by the writer is harder to read in a diff.
  return RULE_HEADER + stringify(manifest, { lineWidth: 0 });
}

/** A PromQL expression's syntax errors (lezer-promql, the grammar of Prometheus's own UI): empty when it parses. */
export function promqlErrors(expr: string): string[] {
  const errors: string[] = [];
  parser.parse(expr).iterate({
    enter(node) {
      if (node.type.isError) errors.push(`syntax error at ${node.from}: ${JSON.stringify(expr.slice(Math.max(0, node.from - 10), node.to + 10))}`);
    },
  });
  return errors;
}

export interface Selector {
  metric: string;
  /** The scrape jobs it is limited to by `job="…"` or `job=~"a|b"`; undefined when it names none. */
  jobs?: string[];
}

/** The series selectors of an expression (`up{job="entia-api"}`, …), from its syntax tree. */
export function selectors(expr: string): Selector[] {
  const found: Selector[] = [];
  parser.parse(expr).iterate({
    enter(node) {
      if (node.name !== 'VectorSelector') return;
      // The name is the selector's Identifier; function and label names are other nodes.
      const name = node.node.getChild('Identifier');
      if (!name) return;
      const text = expr.slice(node.from, node.to);
      const job = /\bjob\s*(=~?)\s*"([^"]*)"/.exec(text);
      found.push({ metric: expr.slice(name.from, name.to), ...(job ? { jobs: job[1] === '=' ? [job[2]!] : job[2]!.split('|') } : {}) });
    },
  });
  return found;
}

/** The metric names an expression selects (`up`, `http_requests_total`, …). */
export function metricNames(expr: string): string[] {
  return [...new Set(selectors(expr).map((selector) => selector.metric))].sort();
}

/**
 * The series names a Prometheus text exposition (a /metrics answer) offers to queries: each
 * family's name from its `# TYPE` line, with a histogram's and a summary's `_bucket`, `_sum` and
 * `_count` series.
 */
export function exposedNames(exposition: string): Set<string> {
  const names = new Set<string>();
  for (const line of exposition.split('\n')) {
    const match = /^# TYPE (\S+) (\S+)/.exec(line);
    if (!match) continue;
    const [, name, type] = match as unknown as [string, string, string];
    names.add(name);
    if (type === 'histogram') for (const suffix of ['_bucket', '_sum', '_count']) names.add(name + suffix);
    if (type === 'summary') for (const suffix of ['_sum', '_count']) names.add(name + suffix);
  }
  return names;
}

export interface DashboardQuery {
  panel: string;
  refId: string;
  expr: string;
}

interface Panel {
  id?: unknown;
  type?: unknown;
  title?: unknown;
  targets?: { refId?: string; expr?: string }[];
  panels?: Panel[];
}

/** Every panel of a Grafana dashboard, those in collapsed rows included. */
export function dashboardPanels(dashboard: { panels?: Panel[] }): Panel[] {
  return (dashboard.panels ?? []).flatMap((panel) => [panel, ...(panel.panels ?? [])]);
}

/** Every query of a dashboard's panels, with Grafana's variables as Prometheus would get them. */
export function dashboardQueries(dashboard: { panels?: Panel[] }, variables: Record<string, string>): DashboardQuery[] {
  return dashboardPanels(dashboard).flatMap((panel) =>
    (panel.targets ?? []).map((target) => ({
      panel: String(panel.title),
      refId: String(target.refId),
      expr: String(target.expr ?? '').replace(/\$\{?(\w+)\}?/g, (whole, name: string) => variables[name] ?? whole),
    })),
  );
}
