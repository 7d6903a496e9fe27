import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { dashboardPanels, dashboardQueries, metricNames, promqlErrors } from '../src/monitoring';
import { PROMTOOL_BUILD_TIMEOUT_MS, promtool, promtoolPath, readMonitoring } from './monitoring-support';

// monitoring/entia-dashboard.json as Grafana imports it: the fields it needs, panels that do not
// collide, each with its data source and queries, and every query valid PromQL, checked by two
// parsers (lezer-promql, the grammar of Prometheus's UI, and promtool, Prometheus's own) after
// Grafana's variables are put in as Prometheus receives them. That every metric it names is
// really exported: monitoring-metrics.test.ts.
type Panel = { id: number; type: string; title: string; datasource?: { type: string; uid: string }; gridPos: { x: number; y: number; w: number; h: number }; targets?: { refId: string; expr: string; datasource?: unknown }[] };
const dashboard = JSON.parse(readMonitoring('entia-dashboard.json')) as {
  uid: string;
  title: string;
  schemaVersion: number;
  panels: Panel[];
  templating: { list: { name: string; type: string; query: unknown }[] };
};
const panels = dashboardPanels(dashboard) as Panel[];
const graphs = panels.filter((panel) => panel.type !== 'row');
const VARIABLES = { namespace: '.*', __rate_interval: '5m', datasource: 'prometheus' };
const queries = dashboardQueries(dashboard, VARIABLES);

describe('monitoring/entia-dashboard.json', () => {
  it('has what Grafana needs to import it: uid, title, schemaVersion, panels, a Prometheus data source variable', () => {
    expect(dashboard).toMatchObject({ uid: 'entia-overview', title: expect.any(String), schemaVersion: expect.any(Number), time: { from: expect.any(String), to: 'now' } });
    expect(dashboard.templating.list.find((variable) => variable.name === 'datasource')).toMatchObject({ type: 'datasource', query: 'prometheus' });
    expect(graphs.length).toBeGreaterThan(15);
  });

  it('gives every panel its own id and a place on the 24-column grid', () => {
    const ids = panels.map((panel) => panel.id);
    expect(ids.every((id) => Number.isInteger(id) && id > 0)).toBe(true);
    expect(ids.filter((id, i) => ids.indexOf(id) !== i)).toEqual([]);
    for (const { title, gridPos } of panels) expect([title, gridPos.x >= 0 && gridPos.w > 0 && gridPos.x + gridPos.w <= 24 && gridPos.h > 0]).toEqual([title, true]);
  });

  it('gives every panel the data source variable and at least one query, refIds unique within the panel', () => {
    for (const panel of graphs) {
      expect([panel.title, panel.datasource]).toEqual([panel.title, { type: 'prometheus', uid: '${datasource}' }]);
      expect([panel.title, panel.targets!.length > 0]).toEqual([panel.title, true]);
      const refIds = panel.targets!.map((target) => target.refId);
      expect([panel.title, new Set(refIds).size]).toEqual([panel.title, refIds.length]);
      for (const target of panel.targets!) expect([panel.title, target.expr.trim().length > 0]).toEqual([panel.title, true]);
    }
  });

  it('has only queries that parse (lezer-promql), and that name metrics', () => {
    expect(queries.length).toBeGreaterThanOrEqual(graphs.length);
    for (const query of queries) {
      expect([query.panel, query.expr, promqlErrors(query.expr)]).toEqual([query.panel, query.expr, []]);
      expect([query.panel, metricNames(query.expr).length > 0]).toEqual([query.panel, true]);
    }
    // A query with every variable put in: nothing of Grafana's is left for Prometheus to choke on.
    expect(queries.filter((query) => query.expr.includes('$'))).toEqual([]);
  });

  it('…and that promtool parses too (as recording rules), where a broken one fails', async () => {
    const bin = await promtoolPath();
    const tmp = mkdtempSync(join(tmpdir(), 'entia-dashboard-'));
    try {
      const rules = (exprs: string[]) =>
        stringify({ groups: [{ name: 'dashboard', rules: exprs.map((expr, i) => ({ record: `entia_dashboard:query_${i}`, expr })) }] });
      writeFileSync(join(tmp, 'queries.yaml'), rules(queries.map((query) => query.expr)));
      const checked = promtool(bin, ['check', 'rules', 'queries.yaml'], tmp);
      expect(checked).toEqual({ code: 0, output: expect.stringContaining(`SUCCESS: ${queries.length} rules found`) });

      writeFileSync(join(tmp, 'broken.yaml'), rules(['sum by (le) (rate(http_request_duration_seconds_bucket[5m])']));
      expect(promtool(bin, ['check', 'rules', 'broken.yaml'], tmp).code).not.toBe(0);
      expect(promqlErrors('sum by (le) (rate(http_request_duration_seconds_bucket[5m])')).not.toEqual([]);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  }, PROMTOOL_BUILD_TIMEOUT_MS);
});
