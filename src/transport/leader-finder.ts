import type { IStatusResponse } from 'etcd3';
import type { MemberClients } from './member-clients.js';
import type { MemberHealth } from './member-health.js';

interface LeaderFinderOptions {
  readonly health: MemberHealth;
  readonly clients: MemberClients;
  /** A Status call's deadline: the current (adaptive) attempt timeout, which a busy leader may need. */
  readonly timeoutMs: () => number;
  /** At most one search per this long: an election storm raises the term on every answer. */
  readonly everyMs: number;
  /** Whether an error is a failure of the member (else etcd answered it: a refusal, such as a permission). */
  readonly countsAsFailure: (error: unknown) => boolean;
}

/**
 * Tells MemberHealth which member leads, so that among members that all answer, attempts go to the leader: a write
 * sent to a follower is forwarded to the leader and answered only after the follower has applied it too (about 1.2×
 * a leader's latency measured here on loopback). Only a preference: MemberHealth ranks it below every sign of a
 * member hanging or failing, so nothing here can send an attempt to a member that does not answer.
 *
 * Every answer carries the Raft term of the member that gave it (`observed`); a term above the one the leader is
 * known for means an election happened since, and the finder asks every member for its Status (the leader it knows,
 * its own member id, its term) on the member clients, outside every user call. The answer with the highest term
 * names the leader, found among the endpoints by the member id each endpoint has answered with (in this search or an
 * earlier one): the leader's own Status may be the one that timed out — a busy leader answers last — and the
 * followers' answers still name it. A leader that answered no search yet while some endpoint did not answer leaves no
 * preference for now and is looked for again at the next answer (at most once per `everyMs`); one that is none of
 * the endpoints, all of which answered (the client was given some members only), leaves none for the term. Nothing is asked before the first answer, and while every member is silent nothing is learned, so an
 * idle or cut-off client sends nothing. Where etcd refuses Status to this client's user (etcd versions that ask for
 * admin rights), there is no preference, and the finder asks again only after the next election.
 */
export class LeaderFinder {
  /** The term the current preference was learned in. */
  private term = 0;
  private searching = false;
  private lastSearchAt = Number.NEGATIVE_INFINITY;
  /** Endpoint index of each member id an endpoint has answered Status with. */
  private readonly indexOf = new Map<string, number>();

  constructor(private readonly o: LeaderFinderOptions) {}

  /** A member answered; `term` is its answer's header.raft_term (a decimal string, or absent). */
  observed(term: string | undefined, now: number): void {
    if (term === undefined || !(Number(term) > this.term)) return;
    if (this.searching || now - this.lastSearchAt < this.o.everyMs || this.o.clients.isClosed) return;
    this.searching = true;
    this.lastSearchAt = now;
    void this.search(Number(term)).finally(() => (this.searching = false));
  }

  private async search(term: number): Promise<void> {
    const { health, clients, timeoutMs } = this.o;
    let refused = 0;
    const answers = await Promise.all(
      health.endpoints.map(async (endpoint) => {
        try {
          return await clients.of(endpoint)?.maintenance.status({ deadline: Date.now() + timeoutMs() });
        } catch (error) {
          // A member that does not answer says nothing of the leader; its health is the probes' to judge.
          if (!this.o.countsAsFailure(error)) refused++;
          return undefined;
        }
      }),
    );
    if (clients.isClosed) return;
    const latest = newestWithLeader(answers);
    if (latest === undefined) {
      if (refused === answers.length) {
        health.leads(undefined);
        this.term = term; // Status is not this user's to ask: not again before another election
      }
      return; // an election in progress: a later answer's term asks again
    }
    answers.forEach((a, i) => a !== undefined && this.indexOf.set(a.header.member_id, i));
    const index = this.indexOf.get(latest.leader);
    health.leads(index);
    // Not found while an endpoint was silent: that one may be the leader; ask again rather than settle the term.
    if (index !== undefined || answers.every((a) => a !== undefined)) this.term = Number(latest.raftTerm);
  }
}

/** The answer of the highest term that names a leader (etcd reports 0 while a member knows none). */
function newestWithLeader(answers: ReadonlyArray<IStatusResponse | undefined>): IStatusResponse | undefined {
  let best: IStatusResponse | undefined;
  for (const a of answers) if (a !== undefined && a.leader !== '0' && (best === undefined || Number(a.raftTerm) > Number(best.raftTerm))) best = a;
  return best;
}
