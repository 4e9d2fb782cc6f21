// A real, valid animated WebP without an encoder library: every frame is one solid colour, which
// the lossless VP8L format can state in a dozen bytes (five single-symbol prefix codes, so each
// pixel costs zero bits). Container layout (RIFF → VP8X, ANIM, ANMF×n) as in the WebP container
// spec; SaveAnimatedWEBP output must be something a decoder and `image-size` accept, not a render.

/** Writes bits least-significant first, as VP8L reads them. */
class BitWriter {
  private readonly bytes: number[] = [];
  private bit = 0;

  put(value: number, count: number): void {
    for (let i = 0; i < count; i++) {
      if (this.bit === 0) this.bytes.push(0);
      if ((value >>> i) & 1) this.bytes[this.bytes.length - 1]! |= 1 << this.bit;
      this.bit = (this.bit + 1) & 7;
    }
  }

  buffer(): Buffer {
    return Buffer.from(this.bytes);
  }
}

export interface Rgb {
  r: number;
  g: number;
  b: number;
}

/** A VP8L bitstream of a `width`×`height` image of one opaque colour. */
export function solidVp8l(width: number, height: number, c: Rgb): Buffer {
  const w = new BitWriter();
  w.put(0x2f, 8); // VP8L signature
  w.put(width - 1, 14);
  w.put(height - 1, 14);
  w.put(0, 1); // alpha_is_used: frames are opaque, as SaveAnimatedWEBP's RGB input
  w.put(0, 3); // version
  w.put(0, 1); // no transform
  w.put(0, 1); // no colour cache
  w.put(0, 1); // one prefix-code group for the whole image
  // Green, red, blue, alpha: a simple code with one 8-bit symbol; distance: one 1-bit symbol (0).
  for (const symbol of [c.g & 255, c.r & 255, c.b & 255, 255]) {
    w.put(1, 1); // simple code
    w.put(0, 1); // one symbol
    w.put(1, 1); // 8-bit symbol
    w.put(symbol, 8);
  }
  w.put(1, 1);
  w.put(0, 1);
  w.put(0, 1);
  w.put(0, 1);
  return w.buffer();
}

function u24(n: number): Buffer {
  return Buffer.from([n & 255, (n >>> 8) & 255, (n >>> 16) & 255]);
}

function chunk(fourcc: string, payload: Buffer): Buffer {
  const size = Buffer.alloc(4);
  size.writeUInt32LE(payload.length);
  // Chunks are padded to an even size; the size field does not count the pad byte.
  return Buffer.concat([
    Buffer.from(fourcc, 'ascii'),
    size,
    payload,
    payload.length % 2 ? Buffer.alloc(1) : Buffer.alloc(0),
  ]);
}

/** Largest side kept in the file (VP8L allows 16 384; the graph may ask for more, the file stays cheap). */
const MAX_SIDE = 2048;
/** Frames kept (SVD_img2vid_Conditioning allows 4 096). */
const MAX_FRAMES = 512;

/** An animated WebP: one frame per colour, each shown `frameMs`, looping forever. */
export function animatedWebp(width: number, height: number, frames: Rgb[], frameMs: number): Buffer {
  const w = Math.max(1, Math.min(MAX_SIDE, Math.round(width)));
  const h = Math.max(1, Math.min(MAX_SIDE, Math.round(height)));
  const vp8x = Buffer.concat([Buffer.from([0x02, 0, 0, 0]), u24(w - 1), u24(h - 1)]); // flags: animation
  const anim = Buffer.from([255, 255, 255, 255, 0, 0]); // background colour, loop count 0 = forever
  const duration = Math.max(1, Math.min(0xffffff, Math.round(frameMs)));
  const anmf = frames.slice(0, MAX_FRAMES).map((c) =>
    chunk(
      'ANMF',
      Buffer.concat([
        u24(0),
        u24(0),
        u24(w - 1),
        u24(h - 1),
        u24(duration),
        Buffer.from([0x02]), // do not blend with the previous frame, no disposal
        chunk('VP8L', solidVp8l(w, h, c)),
      ]),
    ),
  );
  const body = Buffer.concat([Buffer.from('WEBP', 'ascii'), chunk('VP8X', vp8x), chunk('ANIM', anim), ...anmf]);
  const riff = Buffer.alloc(8);
  riff.write('RIFF', 0, 'ascii');
  riff.writeUInt32LE(body.length, 4);
  return Buffer.concat([riff, body]);
}
