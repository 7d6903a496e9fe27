import { ConfigError, loadConfig } from '@entia/config';
import { tracingSettings } from '@entia/telemetry';
import { required } from '../../config/test/fixtures';

/** What the API would make of these OTEL_* variables (through the real configuration). */
const settingsOf = (env: Record<string, string>) => tracingSettings(loadConfig({ ...required, ...env }), 'entia-api');

describe('tracing settings (issue 22)', () => {
  it('is off when no endpoint is configured', () => {
    expect(settingsOf({})).toBeUndefined();
    // The other variables alone do not turn it on.
    expect(settingsOf({ OTEL_SERVICE_NAME: 'x', OTEL_TRACES_SAMPLER: 'always_on' })).toBeUndefined();
  });

  it.each([
    ['a base endpoint gets /v1/traces', { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }, 'http://collector:4318/v1/traces'],
    ['a base endpoint with a trailing slash', { OTEL_EXPORTER_OTLP_ENDPOINT: 'https://collector:4318/' }, 'https://collector:4318/v1/traces'],
    ['a base endpoint with a path', { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://gw/otlp' }, 'http://gw/otlp/v1/traces'],
    ['the traces endpoint is used as given', { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://c:4318/custom' }, 'http://c:4318/custom'],
    [
      'the traces endpoint wins over the base one',
      { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://base:4318', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://traces:4318/v1/traces' },
      'http://traces:4318/v1/traces',
    ],
  ])('%s', (_case, env, url) => {
    expect(settingsOf(env)?.url).toBe(url);
  });

  it('defaults to the service name given and keeps every trace that a caller did not drop', () => {
    expect(settingsOf({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' })).toEqual({
      url: 'http://c:4318/v1/traces',
      serviceName: 'entia-api',
      sampler: 'parentbased_always_on',
      ratio: 1,
    });
  });

  it('takes the service name, the sampler and its ratio from the environment', () => {
    expect(
      settingsOf({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_SERVICE_NAME: 'entia-api-eu', OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.25' }),
    ).toMatchObject({ serviceName: 'entia-api-eu', sampler: 'parentbased_traceidratio', ratio: 0.25 });
  });

  it.each([
    ['OTEL_TRACES_SAMPLER', 'sometimes', /OTEL_TRACES_SAMPLER must be one of parentbased_always_on\|parentbased_always_off\|parentbased_traceidratio\|always_on\|always_off\|traceidratio \(got "sometimes"\)/],
    ['OTEL_TRACES_SAMPLER', 'jaeger_remote', /OTEL_TRACES_SAMPLER must be one of/],
    ['OTEL_TRACES_SAMPLER_ARG', '1.5', /OTEL_TRACES_SAMPLER_ARG must be <= 1 \(got "1.5"\)/],
    ['OTEL_TRACES_SAMPLER_ARG', '-0.1', /OTEL_TRACES_SAMPLER_ARG must be >= 0/],
    ['OTEL_TRACES_SAMPLER_ARG', 'half', /OTEL_TRACES_SAMPLER_ARG must be number \(got "half"\)/],
    ['OTEL_EXPORTER_OTLP_ENDPOINT', 'collector:4318', /OTEL_EXPORTER_OTLP_ENDPOINT must match pattern/],
    ['OTEL_EXPORTER_OTLP_ENDPOINT', 'grpc://collector:4317', /OTEL_EXPORTER_OTLP_ENDPOINT must match pattern/],
    ['OTEL_EXPORTER_OTLP_ENDPOINT', 'http://c:4318?x=1', /OTEL_EXPORTER_OTLP_ENDPOINT must match pattern/],
    ['OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', 'ftp://c/v1/traces', /OTEL_EXPORTER_OTLP_TRACES_ENDPOINT must match pattern/],
    ['OTEL_SERVICE_NAME', 'entia api', /OTEL_SERVICE_NAME must match pattern/],
  ])('refuses %s=%j at start, with a line naming it', (name, value, expected) => {
    let message = '';
    try {
      loadConfig({ ...required, OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', [name]: value });
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      message = (error as Error).message;
    }
    expect(message).toMatch(expected);
    expect(message).not.toContain('\n');
  });
});
