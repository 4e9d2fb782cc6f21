/** "img2img, i2v_video" as typed in a form → the tags, trimmed, empty ones dropped. */
export function parseTagList(text: string): string[] {
  return text
    .split(',')
    .map((t) => t.trim())
    .filter(Boolean);
}
