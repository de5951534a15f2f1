import type { CircuitState } from '../config/events.js';

interface MemberHealthSettings {
  /**
   * A member with requests outstanding that has answered none of them for this long is passed over. A function is
   * read at each ranking: a share of the current (adaptive) attempt timeout, so on a cluster slower than the
   * timeout's floor a member that answers at the cluster's pace is not taken for a hung one.
   */
  readonly silentAfterMs: number | (() => number);
  /** After a failed probe, the next probe of that member waits this long. */
  readonly probeEveryMs: number;
}

interface Member {
  circuit: CircuitState;
  /** When an open member's next probe is due. */
  nextProbeAt: number;
  /** Attempts sent to the member and not settled yet. */
  outstanding: number;
  /** Since when the member has had attempts outstanding without answering any (undefined: none outstanding). */
  unansweredSince: number | undefined;
  /** Open members only: whether its latest probe found the member's process answering (see dueProbes). */
  alive: boolean;
}

const NONE: readonly number[] = [];

/**
 * Which etcd members an attempt may go to: the pure state behind the transport's per-member circuits (no I/O,
 * time passed in). etcd3 tries its hosts in a random order and sends to the first one whose policy lets it through
 * (member-gate.ts), so admitting only the best-ranked members routes every attempt to one of them.
 *
 * Rank, best first: by how much says the member hangs — nothing; *silent* (attempts outstanding, none answered for
 * `silentAfterMs`: a member that hung a moment ago, before its first attempts ran out of time); open and its latest
 * probe found its process not answering, or none has yet — and at each of those, closed before open. So an open
 * member that is alive (it answers, but cannot serve yet: no leader, cut off from its peers) ranks above a closed one
 * that has gone silent. A member opens on the first attempt that fails for want of the member (a timeout, a refused
 * or broken connection, "no leader"), so a call's next attempt goes elsewhere — the member its last attempt timed out
 * on ranks below every member that answers. It closes again when it answers: a probe of its own (member-probes.ts;
 * due at once, then every `probeEveryMs` while it fails, whatever the other members' state — no user request is ever
 * the probe), or a user attempt it was sent because no member ranked better.
 *
 * Alive matters in an election: a hung leader's followers time out too until they elect another (some of them before
 * the hung leader's own first attempts do), so every member is open or silent; the followers' processes answer their
 * probes' first, local step at once, the hung member's does not, and attempts go to the followers, which serve as
 * soon as the election is over.
 *
 * Last, among members equal in all of that, the leader (when known: `leads`) before its followers.
 *
 * With every member open (an election, a single endpoint, a slow leader every member forwards to) all are
 * admitted: a call must go somewhere, and refusing it would turn a slow cluster into a failed call.
 */
export class MemberHealth {
  private readonly members: Member[];
  /** Members whose circuit is not closed: while none is, nothing is probed. */
  private notClosed = 0;
  /** The member the cluster last said leads (leader-finder.ts), or undefined while not known. */
  private leader: number | undefined;

  constructor(
    readonly endpoints: readonly string[],
    private readonly settings: MemberHealthSettings,
    private readonly onChange: (endpoint: string, state: CircuitState) => void = () => {},
  ) {
    this.members = endpoints.map(() => ({ circuit: 'closed', nextProbeAt: 0, outstanding: 0, unansweredSince: undefined, alive: false }));
  }

  state(i: number): CircuitState {
    return this.member(i).circuit;
  }

  /** Whether an attempt may go to member `i` now: no other member ranks better. */
  admits(i: number, now: number): boolean {
    const rank = this.rank(i, now);
    if (rank === 0) return true;
    for (let j = 0; j < this.members.length; j++) if (j !== i && this.rank(j, now) < rank) return false;
    return true;
  }

  /**
   * Member `i` leads the cluster (undefined: not known). Among members equal in every other respect the leader
   * ranks first: a write sent to a follower is forwarded to the leader and answered only once the follower has
   * applied it, a hop and a wait the leader does not add. It is the last tie-break, so a leader that goes silent or
   * fails ranks below every follower that answers, whatever it was last said to be.
   */
  leads(i: number | undefined): void {
    if (i !== undefined) this.member(i);
    this.leader = i;
  }

  /** An attempt left for member `i`. */
  sent(i: number, now: number): void {
    const m = this.member(i);
    m.outstanding++;
    m.unansweredSince ??= now;
  }

  /** Member `i` answered an attempt (a result, or an error of etcd's own): it serves. */
  answered(i: number, now: number): void {
    const m = this.member(i);
    m.outstanding = Math.max(0, m.outstanding - 1);
    // What is still outstanding was sent to a member that answers: its silence counts from now.
    m.unansweredSince = m.outstanding > 0 ? now : undefined;
    this.set(i, 'closed');
  }

  /** An attempt sent to member `i` failed for want of the member. */
  failed(i: number, now: number): void {
    const m = this.member(i);
    m.outstanding = Math.max(0, m.outstanding - 1);
    if (m.outstanding === 0) m.unansweredSince = undefined;
    this.fault(i, now);
  }

  /** A stream to member `i` (watch, keep-alive) failed for want of the member; it had no attempt outstanding. */
  streamFailed(i: number, now: number): void {
    this.fault(i, now);
  }

  /** The open members whose probe is due; each is half-open from now until its probe settles. */
  dueProbes(now: number): readonly number[] {
    if (this.notClosed === 0) return NONE;
    const due: number[] = [];
    for (let i = 0; i < this.members.length; i++) {
      const m = this.members[i]!;
      if (m.circuit !== 'open' || now < m.nextProbeAt) continue;
      this.set(i, 'half-open');
      due.push(i);
    }
    return due;
  }

  /** The probe's first step found member `i`'s process answering (whether or not it can serve). */
  probeFoundAlive(i: number): void {
    this.member(i).alive = true;
  }

  probeAnswered(i: number): void {
    this.set(i, 'closed');
  }

  /**
   * A probe of member `i` failed for want of the member (or ran out of time): it stays open until the next.
   * `alive`: whether its process answered the probe's first step.
   */
  probeFailed(i: number, now: number, alive: boolean): void {
    const m = this.member(i);
    if (m.circuit !== 'half-open') return; // an attempt answered meanwhile and closed it
    m.alive = alive;
    m.nextProbeAt = now + this.settings.probeEveryMs;
    this.set(i, 'open');
  }

  private fault(i: number, now: number): void {
    const m = this.member(i);
    if (m.circuit !== 'closed') return; // already open, or its probe is on the way
    m.nextProbeAt = now;
    m.alive = false; // until a probe says otherwise
    this.set(i, 'open');
  }

  private rank(i: number, now: number): number {
    const m = this.members[i]!;
    const closed = m.circuit === 'closed';
    const silent = m.unansweredSince !== undefined && now - m.unansweredSince >= this.silentAfterMs();
    const hangs = !closed && !m.alive ? 2 : silent ? 1 : 0;
    const follows = this.leader === undefined || this.leader === i ? 0 : 1;
    return 4 * hangs + 2 * (closed ? 0 : 1) + follows;
  }

  private silentAfterMs(): number {
    const { silentAfterMs } = this.settings;
    return typeof silentAfterMs === 'number' ? silentAfterMs : silentAfterMs();
  }

  private set(i: number, circuit: CircuitState): void {
    const m = this.member(i);
    if (m.circuit === circuit) return;
    if (m.circuit === 'closed') this.notClosed++;
    else if (circuit === 'closed') this.notClosed--;
    m.circuit = circuit;
    this.onChange(this.endpoints[i]!, circuit);
  }

  private member(i: number): Member {
    const m = this.members[i];
    if (m === undefined) throw new RangeError(`member index ${i} out of range (${this.members.length} members)`);
    return m;
  }
}
