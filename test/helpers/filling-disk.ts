/** An output disk that fills up, on demand (tests of the farm waiting for its storage). */
import { nodeOutputFs, type OutputFs } from '../../electron/engine/files/output-file.js';

/** The real disk, with room for `room` more bytes: past that, a write stores what fits and fails ENOSPC. */
export function fillingDisk(room: number): OutputFs & { free: () => void; refused: () => number } {
  let left = room;
  let refused = 0;
  return {
    free: () => void (left = Number.POSITIVE_INFINITY),
    refused: () => refused,
    async create(path) {
      const real = await nodeOutputFs.create(path);
      return {
        ...real,
        async write(chunk) {
          const fits = Math.min(chunk.byteLength, left);
          if (fits > 0) await real.write(chunk.subarray(0, fits));
          left -= fits;
          if (fits < chunk.byteLength) {
            refused++;
            throw Object.assign(new Error(`ENOSPC: no space left on device, write`), {
              code: 'ENOSPC',
              errno: -28,
              syscall: 'write',
            });
          }
        },
      };
    },
  };
}
