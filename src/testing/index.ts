/**
 * `etcd-lease-provider/testing`: chaos-test your own app the way this package is tested — a local etcd cluster with
 * faults on every member and client link, a recorder for any lease provider and any pubsub, and the checkers that
 * judge the recorded histories. docs/testing-your-app.md explains it with one complete example.
 *
 * Nothing here is loaded by the root entry. The container driver needs the optional peer `testcontainers`, loaded
 * only when containers are chosen; no test runner is a dependency (`useEtcdCluster` takes your runner's hooks).
 */
export { startEtcdCluster, type StartEtcdClusterOptions, type EtcdTestCluster, type QuorumLoss } from './cluster.js';
export { buildEtcdImage, type BuildEtcdImageOptions } from './etcd-image.js';
export { useEtcdCluster, type SuiteHooks, type UseEtcdClusterOptions, type EtcdClusterFixture } from './vitest.js';
export { recordLeaseCalls, type RecordLeaseCallsOptions, type LeaseCallRecording } from './record-lease-calls.js';
export { checkLeaseHistory, type CheckLeaseHistoryOptions, type LeaseHistoryVerdict, type StallViolation } from './check-lease-history.js';
export { recordPubSub, type RecordPubSubOptions, type PubSubRecording } from './record-pubsub.js';
export { checkEventHistory, formatEventViolations } from '../../safety-checker/events/check-events.js';
export { assembleEventHistory, type EventRecord, type RecordablePubSub, type RecordableEvent } from '../../safety-checker/events/event-recorder.js';
export type {
  EventHistory,
  EventCheckOptions,
  EventVerdict,
  EventViolation,
  EventViolationKind,
  EventSummary,
  ProcessFault,
  RecordedPublish,
  RecordedSubscription,
  RecordedDelivery,
} from '../../safety-checker/events/types.js';
export { machineClock, type RecordableProvider } from '../../safety-checker/recorder.js';
export { InvalidHistoryError } from '../../safety-checker/validate.js';
export type { RecordedOp, History, LeaseOpKind, OpOutcome, BeliefWindow, BeliefEnd, OverlapViolation, FencingViolation, TokenedGrant, Stall } from '../../safety-checker/types.js';
export type { ClusterDriverName, ClusterMember, ClusterTls, MemberState, MemberStatus, FaultableCluster, EtcdCluster } from '../../launcher/types.js';
export { NoEtcdError } from '../../launcher/no-etcd-error.js';
export { runComposedFaults, type RunComposedFaultsOptions } from './composed.js';
export type { ComposedRunResult, ComposedWorkload, WorkloadContext, WorkloadFactory } from '../../safety-checker/composed/run.js';
export type { AppliedFault, ClientFaults } from '../../safety-checker/composed/apply.js';
export { judgeLeaseHistory, type WorkloadVerdict } from '../../safety-checker/composed/judge.js';
export type { CallerErrorOptions } from '../../safety-checker/composed/caller-errors.js';
export { describeFault, FAULT_KINDS, type FaultKind, type FaultSchedule, type ScheduledFault } from '../../safety-checker/composed/schedule.js';
