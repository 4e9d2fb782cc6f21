// Decoder for ComfyUI's binary WebSocket frames (protocol §3, `protocol.py` / `send_bytes`):
// a uint32 big-endian event type, then a type-specific payload. Pure.

export type PreviewFormat = 'jpeg' | 'png' | 'unknown';

export interface PreviewMetadata {
  nodeId: string | null;
  promptId: string | null;
  displayNodeId: string | null;
  imageType: string | null;
  raw: Record<string, unknown>;
}

export type BinaryFrame =
  /** Type 1 (no metadata: whose preview it is is not said) or 4 (with metadata). */
  | {
      type: 'preview';
      format: PreviewFormat;
      formatCode: number | null;
      bytes: Uint8Array;
      metadata: PreviewMetadata | null;
    }
  /** Type 3: a node's text progress. */
  | { type: 'text'; nodeId: string; text: string }
  | { type: 'unknown_binary'; eventType: number }
  | { type: 'malformed_binary'; detail: string };

const PREVIEW_IMAGE = 1;
const TEXT = 3;
const PREVIEW_IMAGE_WITH_METADATA = 4;

export function decodeBinaryFrame(buf: Uint8Array): BinaryFrame {
  const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  if (buf.byteLength < 4) return { type: 'malformed_binary', detail: `frame of ${buf.byteLength} bytes` };
  const eventType = view.getUint32(0);
  switch (eventType) {
    case PREVIEW_IMAGE: {
      if (buf.byteLength < 8) return { type: 'malformed_binary', detail: 'preview without a format' };
      const formatCode = view.getUint32(4);
      return { type: 'preview', format: formatName(formatCode), formatCode, bytes: buf.subarray(8), metadata: null };
    }
    case TEXT: {
      if (buf.byteLength < 8) return { type: 'malformed_binary', detail: 'text without node id length' };
      const len = view.getUint32(4);
      if (8 + len > buf.byteLength) return { type: 'malformed_binary', detail: 'node id longer than frame' };
      const decoder = new TextDecoder();
      return {
        type: 'text',
        nodeId: decoder.decode(buf.subarray(8, 8 + len)),
        text: decoder.decode(buf.subarray(8 + len)),
      };
    }
    case PREVIEW_IMAGE_WITH_METADATA: {
      if (buf.byteLength < 8) return { type: 'malformed_binary', detail: 'preview without metadata length' };
      const len = view.getUint32(4);
      if (8 + len > buf.byteLength) return { type: 'malformed_binary', detail: 'metadata longer than frame' };
      let raw: unknown;
      try {
        raw = JSON.parse(new TextDecoder().decode(buf.subarray(8, 8 + len)));
      } catch {
        return { type: 'malformed_binary', detail: 'metadata is not JSON' };
      }
      if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
        return { type: 'malformed_binary', detail: 'metadata is not an object' };
      }
      const meta = raw as Record<string, unknown>;
      const imageType = str(meta['image_type']);
      return {
        type: 'preview',
        format: formatFromMime(imageType),
        formatCode: null,
        bytes: buf.subarray(8 + len),
        metadata: {
          nodeId: str(meta['node_id']),
          promptId: str(meta['prompt_id']),
          displayNodeId: str(meta['display_node_id']),
          imageType,
          raw: meta,
        },
      };
    }
    default:
      return { type: 'unknown_binary', eventType };
  }
}

function formatName(code: number): PreviewFormat {
  return code === 1 ? 'jpeg' : code === 2 ? 'png' : 'unknown';
}

// ComfyUI sends a MIME type ("image/jpeg"); accept a bare "jpeg"/"png" too.
function formatFromMime(mime: string | null): PreviewFormat {
  if (mime === null) return 'unknown';
  if (/jpe?g/i.test(mime)) return 'jpeg';
  if (/png/i.test(mime)) return 'png';
  return 'unknown';
}

function str(v: unknown): string | null {
  return typeof v === 'string' ? v : null;
}
