/**
 * How long making one thumbnail takes, per source and size:
 *
 * 1. the rendering edge the API runs on a first request (`imageInfo` + `renderThumbnail` of
 *    `@entia/files`: header read, centre crop, scale, WebP encoding), on sources made here;
 * 2. when object storage is configured (`S3_*`, e.g. from `.stack/env` of `entia-stack up`), the
 *    whole of `Thumbnails.ensure` as a request runs it: the first call (HEAD, read the original,
 *    render, write) and a second one (HEAD only: the stored thumbnail is served).
 *
 *   npm run bench:thumbnails [-- --iterations 10]
 */
import { MAX_SOURCE_PIXELS, THUMBNAIL_SIZES, centredSquare } from '@entia/domain';
import { Thumbnails } from '@entia/entities';
import { ObjectStore, imageInfo, renderThumbnail } from '@entia/files';
import { randomBytes } from 'node:crypto';
import { availableParallelism, cpus } from 'node:os';
import sharp from 'sharp';

const iterations = Number(process.argv[process.argv.indexOf('--iterations') + 1]) || 10;

/** A photo-like image: smooth gradients with a little grain (pure noise would flatter no codec). */
function photoLike(width: number, height: number): sharp.Sharp {
  const pixels = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y += 1) {
    for (let x = 0; x < width; x += 1) {
      const at = (y * width + x) * 3;
      const grain = (x * 7919 + y * 104729) % 17;
      pixels[at] = (128 + 100 * Math.sin(x / 97) + grain) & 255;
      pixels[at + 1] = (128 + 100 * Math.cos(y / 71) + grain) & 255;
      pixels[at + 2] = ((x + y) / 8 + grain) & 255;
    }
  }
  return sharp(pixels, { raw: { width, height, channels: 3 } });
}

async function sources(): Promise<[string, Buffer][]> {
  return [
    ['JPEG 4032×3024 (12 MP phone photo)', await photoLike(4032, 3024).jpeg({ quality: 90 }).toBuffer()],
    ['JPEG 1920×1080', await photoLike(1920, 1080).jpeg({ quality: 90 }).toBuffer()],
    ['PNG 1920×1080', await photoLike(1920, 1080).png().toBuffer()],
    ['WebP 1920×1080', await photoLike(1920, 1080).webp().toBuffer()],
    ['GIF 800×600', await photoLike(800, 600).gif().toBuffer()],
    ['PNG 120×80 (scaled up)', await photoLike(120, 80).png().toBuffer()],
  ];
}

const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;

async function main(): Promise<void> {
  const limits = { maxPixels: MAX_SOURCE_PIXELS, timeoutSeconds: 30 };
  console.log(`sharp ${sharp.versions.sharp}, libvips ${sharp.versions.vips}; ${availableParallelism()} cores (${cpus()[0]?.model ?? 'unknown'}); ${iterations} runs each, one at a time\n`);
  console.log('| source | bytes | size | median ms | p95 ms | thumbnail bytes |');
  console.log('|---|---:|---:|---:|---:|---:|');
  for (const [name, bytes] of await sources()) {
    for (const size of THUMBNAIL_SIZES) {
      const times: number[] = [];
      let output = 0;
      for (let run = 0; run < iterations + 1; run += 1) {
        const started = process.hrtime.bigint();
        const image = await imageInfo(bytes);
        const thumbnail = await renderThumbnail(bytes, centredSquare(image.width, image.height), size, limits);
        const ms = Number(process.hrtime.bigint() - started) / 1e6;
        if (run > 0) times.push(ms); // the first run warms up libvips
        output = thumbnail.length;
      }
      times.sort((a, b) => a - b);
      console.log(`| ${name} | ${bytes.length} | ${size} | ${quantile(times, 0.5).toFixed(1)} | ${quantile(times, 0.95).toFixed(1)} | ${output} |`);
    }
  }
}

/** Part 2: `Thumbnails.ensure` against the configured object store, first and second call. */
async function throughStorage(): Promise<void> {
  const env = process.env;
  if (!env.S3_ENDPOINT || !env.S3_ACCESS_KEY || !env.S3_SECRET_KEY) {
    console.log('\n(no S3_ENDPOINT: the measure through object storage is skipped)');
    return;
  }
  const objects = ObjectStore.fromSettings({
    S3_ENDPOINT: env.S3_ENDPOINT,
    S3_ACCESS_KEY: env.S3_ACCESS_KEY,
    S3_SECRET_KEY: env.S3_SECRET_KEY,
    S3_BUCKET: env.S3_BUCKET ?? 'entia',
    S3_REGION: env.S3_REGION ?? 'us-east-1',
    DEPENDENCY_TIMEOUT_MS: 5000,
  });
  await objects.ensureBucket();
  const thumbnails = new Thumbnails(objects, { concurrency: 1, queue: 0, timeoutSeconds: 30, maxSourceBytes: 52428800 });
  const run = `bench-thumbnails/${randomBytes(4).toString('hex')}`;
  const made: string[] = [];
  console.log(`\nThrough object storage (${env.S3_ENDPOINT}): Thumbnails.ensure, first call (HEAD, read, render, write) and second (HEAD)\n`);
  console.log('| source | size | first: median ms | first: p95 ms | second: median ms |');
  console.log('|---|---:|---:|---:|---:|');
  for (const [name, bytes] of (await sources()).slice(0, 3)) {
    for (const size of THUMBNAIL_SIZES) {
      const first: number[] = [];
      const second: number[] = [];
      for (let n = 0; n < iterations + 1; n += 1) {
        const key = `${run}/${made.length}`;
        await objects.write(key, bytes, 'application/octet-stream');
        made.push(key);
        const t0 = process.hrtime.bigint();
        const { key: thumbnail } = await thumbnails.ensure(key, size);
        const t1 = process.hrtime.bigint();
        await thumbnails.ensure(key, size);
        const t2 = process.hrtime.bigint();
        made.push(thumbnail);
        if (n > 0) {
          first.push(Number(t1 - t0) / 1e6);
          second.push(Number(t2 - t1) / 1e6);
        }
      }
      first.sort((a, b) => a - b);
      second.sort((a, b) => a - b);
      console.log(`| ${name} | ${size} | ${quantile(first, 0.5).toFixed(1)} | ${quantile(first, 0.95).toFixed(1)} | ${quantile(second, 0.5).toFixed(1)} |`);
    }
  }
  for (const key of made) await objects.remove(key);
}

main()
  .then(throughStorage)
  .catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
