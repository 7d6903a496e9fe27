import { packageOf, renderProfileMarkdown, summariseProfile, type CpuProfile } from '../load/profile';

const frame = (functionName: string, url = '', lineNumber = 0) => ({ functionName, url, lineNumber });

// root → handle (express) → stringify (native); root → idle; root → getEntity (ours) → readFile (node).
const PROFILE: CpuProfile = {
  nodes: [
    { id: 1, callFrame: frame('(root)'), children: [2, 4, 5] },
    { id: 2, callFrame: frame('handle', 'file:///app/node_modules/express/lib/router/layer.js', 9), children: [3] },
    { id: 3, callFrame: frame('stringify') },
    { id: 4, callFrame: frame('(idle)') },
    { id: 5, callFrame: frame('getEntity', 'file:///work/main/libs/entities/dist/read.js', 41), children: [6] },
    { id: 6, callFrame: frame('readFile', 'node:internal/fs/promises', 100), children: [7] },
    { id: 7, callFrame: frame('', 'file:///app/node_modules/@scope/pkg/index.js', 0) },
  ],
  startTime: 0,
  endTime: 10_000,
  // Each sample lasts until the next: 2, 3, 1, 1, 2, 1 ms (the last until endTime).
  samples: [2, 3, 4, 5, 6, 7],
  timeDeltas: [0, 2000, 3000, 1000, 1000, 2000],
};

describe('the CPU profile summary', () => {
  it('sums self time by function and by package, idle apart', () => {
    const summary = summariseProfile(PROFILE);
    expect(summary.totalMs).toBe(10);
    expect(summary.idleMs).toBe(1);
    expect(summary.packages).toEqual([
      { name: '(native)', ms: 3 },
      { name: 'express', ms: 2 },
      { name: 'node:fs', ms: 2 },
      { name: 'libs/entities/dist/read.js', ms: 1 },
      { name: '@scope/pkg', ms: 1 },
    ]);
    expect(summary.functions).toEqual([
      { name: 'stringify', ms: 3 },
      { name: 'handle (express/lib/router/layer.js:10)', ms: 2 },
      { name: 'readFile (node:internal/fs/promises:101)', ms: 2 },
      { name: 'getEntity (libs/entities/dist/read.js:42)', ms: 1 },
      { name: '(anonymous) (@scope/pkg/index.js:1)', ms: 1 },
    ]);
    expect(summariseProfile(PROFILE, 2).functions).toHaveLength(2);
  });

  it('names packages', () => {
    expect(packageOf('file:///a/node_modules/x/node_modules/@s/y/lib/z.js', 'f')).toBe('@s/y');
    expect(packageOf('node:_http_server', 'f')).toBe('node:_http_server');
    expect(packageOf('node:internal/streams/readable', 'f')).toBe('node:streams');
    expect(packageOf('/work/main/services/api/dist/app.js', 'f')).toBe('services/api/dist/app.js');
    expect(packageOf('', '(garbage collector)')).toBe('(garbage collector)');
    expect(packageOf('', 'JSONStringify')).toBe('(native)');
  });

  it('renders Markdown tables with shares of the busy time', () => {
    const markdown = renderProfileMarkdown(summariseProfile(PROFILE), 'API CPU profile');
    expect(markdown).toContain('## API CPU profile');
    expect(markdown).toContain('Sampled 10 ms, 1 ms of it idle');
    expect(markdown).toContain('| (native) | 3 | 33.3 % |');
    expect(markdown).toContain('| handle (express/lib/router/layer.js:10) | 2 | 22.2 % |');
  });
});
