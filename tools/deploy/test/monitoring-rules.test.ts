import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { kustomizeBuild, parseYamlDocuments, readYamlDocuments } from '../src';
import { prometheusRule } from '../src/monitoring';
import { MONITORING, PROMTOOL_BUILD_TIMEOUT_MS, promtool, promtoolPath, readMonitoring, repo } from './monitoring-support';

// monitoring/alerts.yaml through Prometheus's own tools (`promtool check rules`, and its unit tests
// in alerts.test.yaml through `promtool test rules`), the PrometheusRule generated from it, and the
// Prometheus Operator kustomization (monitoring/kustomization.yaml) against the k8s/ it watches.
type Rule = { alert?: string; record?: string; expr: string; for?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
const alerts: Rule[] = (parse(readMonitoring('alerts.yaml')) as { groups: { rules: Rule[] }[] }).groups.flatMap((group) => group.rules);
const names = alerts.map((rule) => rule.alert!);

let bin: string;
let tmp: string;
beforeAll(async () => {
  bin = await promtoolPath();
  tmp = mkdtempSync(join(tmpdir(), 'entia-rules-'));
}, PROMTOOL_BUILD_TIMEOUT_MS);
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('monitoring/alerts.yaml', () => {
  it('passes `promtool check rules`', () => {
    const { code, output } = promtool(bin, ['check', 'rules', 'alerts.yaml'], MONITORING);
    expect({ code, output }).toEqual({ code: 0, output: expect.stringContaining(`SUCCESS: ${alerts.length} rules found`) });
  });

  it('…which refuses a rule that does not parse or names no alert', () => {
    writeFileSync(join(tmp, 'broken.yaml'), 'groups:\n  - name: x\n    rules:\n      - alert: Broken\n        expr: sum(rate(http_requests_total[5m])\n      - expr: up == 0\n');
    const { code, output } = promtool(bin, ['check', 'rules', 'broken.yaml'], tmp);
    expect(code).not.toBe(0);
    expect(output).toMatch(/FAILED/);
  });

  it('covers 5xx rate, latency, queue depth, the oldest pending change, failed jobs, dependencies, the schema and the processes', () => {
    expect(names.sort()).toEqual([
      'EntiaApiDown',
      'EntiaApiErrorRate',
      'EntiaApiLatencyP95',
      'EntiaApiLatencyP99',
      'EntiaDependencyDown',
      'EntiaDerivedDataLate',
      'EntiaJobsFailing',
      'EntiaJobsGaveUp',
      'EntiaQueueBacklog',
      'EntiaSchemaBehind',
      'EntiaTargetDown',
      'EntiaWorkerDown',
    ]);
    for (const rule of alerts) {
      expect([rule.alert, rule.labels?.severity]).toEqual([rule.alert, expect.stringMatching(/^(critical|warning)$/)]);
      expect([rule.alert, rule.annotations?.summary, rule.annotations?.description]).toEqual([rule.alert, expect.any(String), expect.any(String)]);
    }
  });
});

describe('monitoring/alerts.test.yaml', () => {
  it('passes `promtool test rules`: each alert fires where it should and stays quiet beside it', () => {
    const { code, output } = promtool(bin, ['test', 'rules', 'alerts.test.yaml'], MONITORING);
    expect({ code, output }).toEqual({ code: 0, output: expect.stringContaining('SUCCESS') });
  });

  it('tests every alert both firing and not firing', () => {
    type Case = { alertname: string; exp_alerts?: unknown[] };
    const tests = (parse(readMonitoring('alerts.test.yaml')) as { tests: { alert_rule_test: Case[] }[] }).tests.flatMap((t) => t.alert_rule_test);
    const firing = new Set(tests.filter((t) => t.exp_alerts?.length).map((t) => t.alertname));
    const quiet = new Set(tests.filter((t) => !t.exp_alerts?.length).map((t) => t.alertname));
    expect(names.filter((name) => !firing.has(name) || !quiet.has(name))).toEqual([]);
  });

  it('fails when an expectation is wrong (the tests can fail)', () => {
    copyFileSync(join(MONITORING, 'alerts.yaml'), join(tmp, 'alerts.yaml'));
    // A 5xx ratio of 9.091% and a queue of 1500 jobs: expect other numbers, and promtool says so.
    const wrong = readMonitoring('alerts.test.yaml').replace('9.091% of the API', '9.1% of the API').replace('1500 jobs wait in the queue', '3000 jobs wait in the queue');
    writeFileSync(join(tmp, 'wrong.test.yaml'), wrong);
    const { code, output } = promtool(bin, ['test', 'rules', 'wrong.test.yaml'], tmp);
    expect(code).not.toBe(0);
    expect(output).toMatch(/alertname: EntiaApiErrorRate[\s\S]*9\.091%/);
    expect(output).toMatch(/alertname: EntiaQueueBacklog[\s\S]*1500 jobs wait/);
  });
});

describe('monitoring/ on the Prometheus Operator', () => {
  it('has prometheus-rule.yaml generated from alerts.yaml (node tools/deploy/scripts/prometheus-rule.mjs)', () => {
    expect(readMonitoring('prometheus-rule.yaml')).toBe(prometheusRule(readMonitoring('alerts.yaml')));
    const [manifest] = parseYamlDocuments(readMonitoring('prometheus-rule.yaml'), { version: '1.1' }) as { spec: unknown }[];
    expect(manifest!.spec).toEqual(parse(readMonitoring('alerts.yaml')));
  });

  const built = kustomizeBuild(MONITORING);
  (built ? it : it.skip)(`builds with kustomize${built ? ` (${built.tool})` : ' (no kubectl or kustomize here)'}: PodMonitors on the pods and ports of k8s/, the rules, the dashboard`, () => {
    type Doc = { kind: string; metadata: { name: string; namespace?: string; labels?: Record<string, string> }; spec?: any; data?: Record<string, string> };
    const docs = parseYamlDocuments(built!.output, { version: '1.1' }) as Doc[];
    expect(docs.map((doc) => `${doc.kind}/${doc.metadata.name}`).sort()).toEqual([
      'ConfigMap/entia-grafana-dashboard',
      'PodMonitor/entia-api',
      'PodMonitor/entia-worker',
      'PrometheusRule/entia',
    ]);
    for (const doc of docs) expect([doc.kind, doc.metadata.namespace, doc.metadata.labels?.['app.kubernetes.io/part-of']]).toEqual([doc.kind, 'entia', 'entia']);

    // Each PodMonitor selects the pods of its Deployment, on a port their container names, as the job the rules expect.
    const deployments = readYamlDocuments(join(repo, 'k8s', 'api-deployment.yaml'), { version: '1.1' })
      .concat(readYamlDocuments(join(repo, 'k8s', 'worker-deployment.yaml'), { version: '1.1' }))
      .filter((doc) => (doc as Doc).kind === 'Deployment') as Doc[];
    const policies = readYamlDocuments(join(repo, 'k8s', 'networkpolicy.yaml'), { version: '1.1' }) as Doc[];
    for (const [monitor, deployment, job] of [
      ['entia-api', 'entia-api', 'entia-api'],
      ['entia-worker', 'entia-worker', 'entia-worker'],
    ] as const) {
      const spec = docs.find((doc) => doc.kind === 'PodMonitor' && doc.metadata.name === monitor)!.spec;
      const pod = deployments.find((doc) => doc.metadata.name === deployment)!.spec.template;
      expect(pod.metadata.labels).toEqual(expect.objectContaining(spec.selector.matchLabels));
      const ports = pod.spec.containers.flatMap((c: { ports?: { name: string }[] }) => c.ports ?? []).map((p: { name: string }) => p.name);
      expect(spec.podMetricsEndpoints).toEqual([expect.objectContaining({ port: expect.any(String), path: '/metrics', relabelings: [{ targetLabel: 'job', replacement: job }] })]);
      expect(ports).toContain(spec.podMetricsEndpoints[0].port);
      // …which k8s/networkpolicy.yaml opens to the namespace `monitoring`, or no scrape gets through.
      const opened = policies
        .filter((policy) => Object.entries(policy.spec.podSelector.matchLabels ?? {}).every(([k, v]) => pod.metadata.labels[k] === v))
        .flatMap((policy) => policy.spec.ingress ?? [])
        .filter((rule: any) => rule.from?.some((from: any) => from.namespaceSelector?.matchLabels?.['kubernetes.io/metadata.name'] === 'monitoring'))
        .flatMap((rule: any) => rule.ports.map((port: { port: string }) => port.port));
      expect(opened).toContain(spec.podMetricsEndpoints[0].port);
    }
    const rule = docs.find((doc) => doc.kind === 'PrometheusRule')!;
    expect(rule.spec).toEqual(parse(readMonitoring('alerts.yaml')));
    const dashboard = docs.find((doc) => doc.kind === 'ConfigMap')!;
    expect(dashboard.metadata.labels?.grafana_dashboard).toBe('1');
    expect(dashboard.data?.['entia-dashboard.json']).toBe(readMonitoring('entia-dashboard.json'));
  });
});
