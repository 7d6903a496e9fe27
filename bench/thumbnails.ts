/**
 * How long making one thumbnail takes, per source and size (issue 16): the rendering edge the API
 * runs on a first request (`imageInfo` + `renderThumbnail` of `@entia/files`: header read, centre
 * crop, scale, WebP encoding), on sources made here with sharp. Storage round trips (reading the
 * original, writing the thumbnail) come on top; they are the object store's latency.
 *
 *   npm run bench:thumbnails [-- --iterations 10]
 */
import { MAX_SOURCE_PIXELS, THUMBNAIL_SIZES, centredSquare } from '@entia/domain';
import { imageInfo, renderThumbnail } from '@entia/files';
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

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
