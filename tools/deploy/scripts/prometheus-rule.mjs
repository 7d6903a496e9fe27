// Writes monitoring/prometheus-rule.yaml (the PrometheusRule) from monitoring/alerts.yaml, the one
// source of the alert rules. Run after editing alerts.yaml, once built (`npx tsc -b`):
//   node tools/deploy/scripts/prometheus-rule.mjs
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import monitoring from '../dist/monitoring.js';

const dir = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'monitoring');
writeFileSync(join(dir, 'prometheus-rule.yaml'), monitoring.prometheusRule(readFileSync(join(dir, 'alerts.yaml'), 'utf8')));
console.log(`wrote ${join(dir, 'prometheus-rule.yaml')}`);
