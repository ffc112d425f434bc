/**
 * gzip for request bodies: zlib in Node (loaded only there, so browser bundles never pull it in),
 * CompressionStream in browsers. Undefined when neither exists: the body is then sent as is.
 */
export async function gzip(bytes: Uint8Array): Promise<Uint8Array | undefined> {
  try {
    if (globalThis.process?.versions?.node) {
      const zlib = await import(/* webpackIgnore: true */ /* @vite-ignore */ 'node:zlib');
      return await new Promise((resolve, reject) =>
        zlib.gzip(bytes, (err, out) => (err ? reject(err) : resolve(new Uint8Array(out.buffer, out.byteOffset, out.byteLength)))),
      );
    }
    if (typeof CompressionStream === 'undefined') return undefined;
    const stream = new Blob([bytes as BlobPart]).stream().pipeThrough(new CompressionStream('gzip'));
    return new Uint8Array(await new Response(stream).arrayBuffer());
  } catch {
    return undefined;
  }
}
