/**
 * Internal, never a caller's: a renewal still waiting — for its key's turn (key-lanes.ts) or in the committer's queue
 * — was taken over by a later renewal of the same key by the same value, and is not sent. The earlier call settles
 * like the later one (`by`; LeaseBackend.write), within its own deadline: the later renewal's window starts while the
 * key's previous window still runs and reaches further, so its answer is a true answer for the earlier call too, and
 * the caller gets etcd's answer instead of an error for work it never needed done twice.
 */
export class Superseded extends Error {
  constructor(readonly by: Promise<unknown>) {
    super('superseded by a later renewal of the same key and value');
    this.name = 'Superseded';
  }
}
