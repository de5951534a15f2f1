/**
 * Every fault-handling setting of the library in one place, with its reason. The provider's options override the
 * first two (`deadlineMs`, `attemptTimeoutMs`) and the batch size; the rest are fixed here. This module imports
 * nothing: every layer may read it.
 */
export const POLICY = {
  /** Overall deadline of one call, retries included. */
  deadlineMs: 5000,
  /**
   * Floor of one attempt's timeout. A hung member (paused, blackholed) costs one attempt, not the call; a
   * proposal a follower drops during an election (etcd does not answer those) holds a caller up this long.
   */
  attemptTimeoutMs: 500,
  /**
   * The attempt timeout adapts to observed commit latency like TCP's retransmission timeout: smoothed latency
   * plus 4× its deviation, never below the floor. A cluster whose commits are slow (fsync stalls) is then given
   * time to answer, instead of every attempt timing out after committing and being sent again.
   */
  latencySmoothing: 1 / 8,
  deviationSmoothing: 1 / 4,
  deviationWeight: 4,
  /** Each attempt of one call that timed out doubles the next attempt's timeout (up to the call's deadline). */
  timeoutGrowth: 2,
  /**
   * The timeout shared by every call grows at most this many times over the estimate before an answer comes
   * (transport/attempt-timeout.ts). Twice is enough for the first answers of a cluster whose commits just became
   * slower than the floor to arrive and teach the estimate; more would let a hung member's timeouts, during an
   * election when few answers come, stretch every call's attempts until one stuck attempt eats most of a deadline
   * (a call's own timeouts still double its own).
   */
  sharedTimeoutGrowthMax: 2,
  /** Decorrelated jitter between attempts spreads the retries of many clients after a leader loss. */
  backoff: { initialDelayMs: 10, maxDelayMs: 100 },
  /**
   * Which members take attempts (transport/member-health.ts). A member whose attempt failed for want of the member
   * (timed out, refused or broke the connection, had no leader) takes none while another member answers, until a
   * probe of its own answers: at once, then every `probeEveryMs` while it fails. A member with attempts outstanding
   * that has answered none of them for `silentAfterShare` of the attempt timeout is passed over meanwhile, so a
   * member that just hung stops getting attempts before its first ones time out. Half the timeout, because a
   * healthy member under load answers something far sooner than that, and only ranking is at stake: with every
   * member silent, all take attempts. Among members equal in all that, the leader takes them (transport/leader-finder.ts:
   * a follower forwards a write and answers after applying it); a newer Raft term in an answer asks the members for
   * the leader again, at most once every `leaderSearchEveryMs` (an election storm raises it on every answer).
   */
  health: { probeEveryMs: 1000, silentAfterShare: 0.5, leaderSearchEveryMs: 1000 },
  /**
   * TLS diagnosis of failed connections (transport/tls-diagnosis.ts): one probe's verdict answers every failure for
   * `verdictReuseMs` (probing is cheap, but not per failed attempt); a failing attempt waits at most `waitMs` for a
   * probe in flight — a TLS mistake answers within a handshake (a few ms on a LAN), an outage answers nothing until
   * the probe times out, and the retry must not wait for that.
   */
  tlsProbe: { verdictReuseMs: 3000, waitMs: 250 },
  /**
   * Group commit: sub-transactions per etcd Txn (as many as etcd's default --max-txn-ops of 128 admits: 127 acquires,
   * commit/batch-plan.ts; a batch is only that large when that much work waits), bytes per Txn (etcd accepts 1.5 MiB).
   */
  batch: { maxBatchSize: 128, maxBatchBytes: 1024 * 1024 },
  /**
   * Group commit under load (commit/group-committer.ts). Transactions in flight adapt to the commit latency between
   * `min` (the fixed four of earlier versions, so never less than they committed) and `max`: the limit grows while
   * commits take at most `tolerance` × the fastest of the last one or two `floorWindowMs` windows — far followers or
   * slow disks, where more in flight buys throughput — and shrinks past that, when extra transactions would only
   * queue inside etcd, out of reach of ordering and shedding. What waits is bounded by what the committer serves in
   * `queueHorizonMs` at its recent pace — a second: well inside a call's 5 s deadline, and short enough that a
   * renewal at Mastra's cadence is not queued for longer than its TTL can spare (a 3 s TTL renews every second) —
   * and by `maxQueued` whatever the pace (memory: each waiting operation holds its request); past the bound the least
   * urgent operation is shed with ELEASE_OVERLOADED, and a warning says so at most once every `shedNoticeEveryMs`.
   */
  commit: {
    inFlight: { min: 4, max: 32, tolerance: 2, floorWindowMs: 10_000 },
    queueHorizonMs: 1000,
    maxQueued: 20_000,
    shedNoticeEveryMs: 10_000,
    /**
     * The pace the queue's bound follows counts only time in which answers came (commit/service-rate.ts): a gap
     * between two answers longer than `silentCommits` commit times, and at least `silentMinMs`, is a silence — an
     * election, an outage — in which nothing could commit whatever the capacity.
     */
    silentMinMs: 250,
    /**
     * Past the queue's bound fresh work is shed first; a renewal of a lease still open is shed only when no fresh work
     * waits and renewals of open leases are at least this share of the recent arrivals (commit/ready-queue.ts): a
     * cluster overloaded by renewals alone sheds those with the most time left, but a few renewals beside a flood of
     * fresh work always get through.
     */
    shedRenewalsFromShare: 0.5,
    silentCommits: 4,
  },
  /**
   * Least time between two writes that test whether etcd's NOSPACE alarm was cleared (commit/space-alarm.ts): a busy
   * provider resumes within this long of the disarm, and a full cluster gets at most ten refused writes a second from
   * it (refused before Raft while the database is over quota).
   */
  spaceAlarm: { probeGapMs: 100 },
  /**
   * Longest a renew waits in the group committer for other operations to share its transaction (also never more
   * than a twentieth of its TTL, nor past one attempt timeout before the lease it protects could end:
   * commit/renew-delay.ts). Held leases renew on their own timers; without the wait each renew is a Raft proposal.
   * A renew waits only if at least `renewMinCompany` other operations are expected within its wait: fewer would save
   * next to nothing and cost the renew its wait (a provider renewing a handful of keys sends at once).
   */
  renewCoalesceMs: 250,
  renewMinCompany: 8,
  /**
   * Waiting renewals leave as soon as this many have gathered (or a transaction goes anyway, or the earliest one's
   * wait is up). 64 to a transaction already makes a renewal 1/64 of a Raft proposal; waiting for a batch as large as
   * etcd admits (128) would save 1/128 more per renewal, and callers that renew together but are fewer than that —
   * 64 threads in step — would each wait out the whole window every time.
   */
  renewCompanyEnough: 64,
  /** How often a request is re-run when the key changed under it within one attempt (release chasing a rewrite). */
  maxStepsPerAttempt: 4,
  /** How many ids one pooled-lease grant tries when etcd already knows the chosen one (each try costs a round trip). */
  grantIdTries: 8,
  /**
   * How far above its granted TTL a lease's remaining TTL may legitimately be (leases/lease-ttl.ts): after a leader
   * change the new leader adds its election timeout, and spreads expiries. 10 s covers election timeouts up to 10 s;
   * a larger answer (a just-elected leader's placeholder) is unknown.
   */
  ttlAnswerMarginS: 10,
  /**
   * `waitForLease`/`hold` (waiting/schedule.ts): the watch is what wakes a waiter; a re-check every half TTL within
   * these bounds is the safety net for a watch that stalls without an error (a stream stalled on a partitioned
   * member, an event missed after the server compacted history).
   */
  waiting: { recheckMinMs: 1000, recheckMaxMs: 5000 },
  /**
   * Work that retries on its own, with no caller waiting on each try — a waiter's failed attempts
   * (waiting/schedule.ts), a subscription or group membership re-established (pubsub/watch/retry-forever.ts), the
   * group session granted again (pubsub/groups/session.ts), a held lease's failed renewals (handles/renew-schedule.ts,
   * which stop at halfway to the window's end instead of `maxMs`) — pauses from `firstMs`, doubling up to `maxMs`:
   * soon after a blip, and no more than one try in two seconds per loop through an outage.
   */
  errorBackoff: { firstMs: 100, maxMs: 2000 },
  /**
   * Suspends and wall-clock steps (clock/lease-clock.ts). A reading that moved the wall clock `thresholdMs` further
   * than the monotonic one is a jump. While anyone listens for jumps the clock reads itself every `checkEveryMs`:
   * Node's timers run on the monotonic clock, so after a suspend every timer is late by the suspend's length, and the
   * first tick after resuming notices it. A `hold()` handle whose window looks over only because of a jump (a
   * suspend, or a forward step: the process cannot tell) asks etcd with a renew of `renewMs` deadline before it gives
   * up (handles/held-lease.ts): a step must not end every handle; after a real suspend the renew answers false (or
   * cannot reach etcd) within it.
   */
  clockJump: { thresholdMs: 50, checkEveryMs: 250, renewMs: 500 },
  /**
   * A `hold()` handle stops believing it holds the key this long before its window ends (handles/renew-schedule.ts):
   * the TTL over `ttlDivisor` (a tenth), at most `maxMs`, because timers fire late, never early.
   */
  expiryMargin: { ttlDivisor: 10, maxMs: 250 },
  /**
   * Largest response the client accepts: what etcd itself may send (its gRPC send limit is 2^31 − 1 bytes, the value
   * etcd's Go client also receives up to). gRPC's default of 4 MiB refuses a watch catch-up of a few large events —
   * up to 1000 revisions arrive in one response — and refusing it ends the stream, which resumed from the same
   * revision asks for the same response again. Memory is bounded elsewhere: ranges are read in pages of about 1 MiB
   * (src/reads) and event watches ask etcd to split responses above its --max-request-bytes.
   */
  maxReceiveMessageBytes: 2 ** 31 - 1,
  /** EtcdPubSub's events (src/pubsub). */
  events: {
    /**
     * The one watch stream of an EtcdPubSub (pubsub/watch/watch-stream.ts) is reopened after a failure with jittered
     * backoff from `reopenFirstMs` doubling to `reopenMaxMs` (etcd3 picks a member each time). A hung member keeps the
     * stream open and silent: a stream quiet for `quietMs` is asked for its progress (the member answers from memory,
     * no Raft round), and one that says nothing for `answerMs` after is replaced — a hung member costs subscribers
     * about 1.5 s, 2 s at worst, where Mastra's owner discovery waits 100 ms and its idle signals 5 s. A member cut
     * off from the quorum answers from a store that no longer moves: a stream behind a linearizable read for
     * `stalledChecks` checks in a row (`watchCheckMs` apart) is replaced.
     */
    watch: { reopenFirstMs: 10, reopenMaxMs: 1000, stalledChecks: 2, quietMs: 500, answerMs: 1000 },
    /**
     * Fan-out subscriptions of one topic in one process share one watch (pubsub/watch/topic-feed.ts), which keeps the
     * topic's retained events in memory up to this many bytes (and never more than `maxReplayBytes`), so that a later
     * `'earliest'` subscriber reads nothing from etcd. A topic that retains more is read again for each such
     * subscriber instead: memory stays bounded per topic whatever the topic holds.
     */
    retainedWindowBytes: 8 * 1024 * 1024,
    /** A consumer-group claim that failed (etcd unreachable past its deadline) is tried again this much later. */
    claimRetryMs: 500,
    /**
     * One topic's publish batch (pubsub/publish/topic-queue.ts): `maxEvents` events — one sub-transaction holds a
     * compare and a put per event, and etcd's --max-txn-ops (128) counts each list — and `maxBytes` of keys and
     * values, well under the group committer's budget for one transaction (`batch.maxBatchBytes`).
     */
    batch: { maxEvents: 64, maxBytes: 512 * 1024 },
    /** `trimTopic` deletes a run's events in transactions of this many keys: etcd's --max-txn-ops (128) bounds one. */
    trimKeysPerTxn: 100,
    /**
     * A grouped event acked after (or this close to) the end of its retention window goes back to a retention lease
     * that ends this long from now (pubsub/groups/backlog.ts): etcd grants no lease under 2 s, and a second more.
     */
    minRetainAfterAckMs: 3_000,
  },
} as const;
