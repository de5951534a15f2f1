import type { Socket } from 'node:net';

/**
 * Ends a socket the way a dead host's connection ends: with an RST, dropping anything still queued.
 *
 * Except when its writable side was already ended: `end()` leaves a shutdown pending in libuv until the kernel has
 * taken the queued bytes, and a reset on top of it fails with EINVAL, after which Node neither closes the socket nor
 * lets the process exit (at teardown it waits for the handle, spinning, for ever). A proxy that forwarded a FIN and is
 * then closed hits exactly that, so such a socket is destroyed plainly: its peer has had the FIN already.
 */
export function resetSocket(socket: Socket): void {
  if (socket.destroyed) return;
  if (socket.writableEnded) {
    socket.destroy();
    return;
  }
  try {
    socket.resetAndDestroy();
  } catch {
    socket.destroy();
  }
}
