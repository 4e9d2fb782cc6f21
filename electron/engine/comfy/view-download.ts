/**
 * The body of a /view download, moved into where it goes: a sink (Shotfarm's output files hash and
 * bound what they take, files/output-file.ts) or a plain file. Kept apart from the client so the
 * one rule that matters here is in one place: a sink's own error (a full disk, a file too large)
 * is thrown as it is, never mistaken for the server's, and the body we stop reading is dropped
 * without an unheard error (an undici body destroyed with nobody listening ends the process).
 */
import { open } from 'node:fs/promises';
import type { Dispatcher } from 'undici';
import { discardBody } from './http.js';
import type { ComfyRequestError } from './observation.js';

/** Where a download goes, chunk by chunk (awaiting each write is the backpressure). */
export interface DownloadSink {
  /** The body is about to come, with its announced length: a sink may refuse it here. */
  begin?(contentLength: number | null): Promise<void>;
  write(chunk: Uint8Array): Promise<void>;
  /** Called once the whole body was written. */
  end?(): Promise<void>;
  /** Called instead of `end` when the transfer failed. */
  abort?(): Promise<void>;
}

/** A plain file as a sink: created or truncated; fsync'd at the end when asked. */
export async function fileSink(path: string, fsync: boolean): Promise<DownloadSink> {
  const fh = await open(path, 'w');
  return {
    write: async (chunk) => void (await fh.write(chunk)),
    end: async () => {
      try {
        if (fsync) await fh.sync();
      } finally {
        await fh.close();
      }
    },
    abort: () => fh.close(),
  };
}

/**
 * Moves the body into the sink; returns its length. A sink's error is thrown as it is (a local
 * failure, not the server's), the body dropped without an unheard error.
 */
export async function pour(
  body: Dispatcher.ResponseData['body'],
  sink: DownloadSink,
  length: number | null,
  fail: (err: unknown) => ComfyRequestError,
): Promise<number> {
  let local: { err: unknown } | null = null;
  const own = async (step: () => Promise<void>): Promise<void> => {
    try {
      await step();
    } catch (err) {
      local = { err };
      throw err;
    }
  };
  let written = 0;
  try {
    await own(() => sink.begin?.(length) ?? Promise.resolve());
    for await (const chunk of body as AsyncIterable<Buffer>) {
      await own(() => sink.write(chunk));
      written += chunk.byteLength;
    }
    await own(() => sink.end?.() ?? Promise.resolve());
  } catch (err) {
    discardBody(body);
    await sink.abort?.().catch(() => undefined);
    if (local) throw (local as { err: unknown }).err;
    throw fail(err);
  }
  return written;
}
