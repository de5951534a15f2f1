import { checkText } from '../../keys/key-codec.js';

/**
 * Where events, consumer-group claims and members live, all under the event prefix `<E>`:
 *
 *   <E>t/<T>/e/<id>            an event                   on a retention lease
 *   <E>t/<T>/c/<G>/<id>        a group's claim of it      on the event's own lease (they expire together)
 *   <E>t/<T>/m/<G>/<member>    a group member             on its process's session lease
 *   <E>t/<T>/g/<G>             the group exists: its work waits for it (backlog.ts)   on a backlog lease
 *
 * `T` and `G` are `encodeURIComponent` of the topic and the group, which never contains `/`. So `t/<T>/` is
 * prefix-free: topic `a` never sees the keys of topic `a/b`, nor of Mastra's reply topics `a.b.idle-acceptance.<uuid>`
 * that extend a thread topic's name. Everything a consumer group needs about one topic lies under `t/<T>/`, so one
 * watch gives it events, claims and members in one revision order; a fan-out subscriber watches only `t/<T>/e/`.
 */
export class EventKeys {
  private readonly root: string;

  constructor(eventPrefix: string) {
    this.root = `${eventPrefix}t/`;
  }

  /** Everything of one topic: events, claims and members of every group. */
  topic(topic: string): Buffer {
    return Buffer.from(this.topicText(topic), 'utf8');
  }

  events(topic: string): Buffer {
    return Buffer.from(`${this.topicText(topic)}e/`, 'utf8');
  }

  event(topic: string, id: string): Buffer {
    return Buffer.from(`${this.topicText(topic)}e/${id}`, 'utf8');
  }

  /** Claims of every group of a topic (what clearTopic deletes with the events; members stay). */
  claims(topic: string): Buffer {
    return Buffer.from(`${this.topicText(topic)}c/`, 'utf8');
  }

  /** Every claim of one group on a topic. */
  groupClaims(topic: string, group: string): Buffer {
    return this.claim(topic, group, '');
  }

  claim(topic: string, group: string, id: string): Buffer {
    return Buffer.from(`${this.topicText(topic)}c/${encodeName('group', group)}/${id}`, 'utf8');
  }

  /** Every group's backlog key of a topic: while one exists, the topic's events wait for its groups. */
  backlogs(topic: string): Buffer {
    return Buffer.from(`${this.topicText(topic)}g/`, 'utf8');
  }

  backlog(topic: string, group: string): Buffer {
    return Buffer.from(`${this.topicText(topic)}g/${encodeName('group', group)}`, 'utf8');
  }

  /** Every member key of one group on a topic. */
  groupMembers(topic: string, group: string): Buffer {
    return this.member(topic, group, '');
  }

  member(topic: string, group: string, member: string): Buffer {
    return Buffer.from(`${this.topicText(topic)}m/${encodeName('group', group)}/${member}`, 'utf8');
  }

  private topicText(topic: string): string {
    return `${this.root}${encodeName('topic', topic)}/`;
  }
}

/** What a key under one topic's prefix is, relative to that prefix (`EventKeys.topic`). */
export type TopicEntry =
  | { kind: 'event'; id: string }
  | { kind: 'claim'; group: string; id: string }
  | { kind: 'member'; group: string; member: string }
  | { kind: 'backlog'; group: string };

/** Reads a key found under `topicPrefix`; undefined for anything this layout does not write. */
export function parseTopicEntry(topicPrefix: Buffer, key: Buffer): TopicEntry | undefined {
  if (key.length <= topicPrefix.length || !key.subarray(0, topicPrefix.length).equals(topicPrefix)) return undefined;
  const rest = key.subarray(topicPrefix.length).toString('utf8');
  const parts = rest.split('/');
  if (parts[0] === 'e' && parts.length === 2 && parts[1]) return { kind: 'event', id: parts[1] };
  if (parts[0] === 'g' && parts.length === 2 && parts[1]) return { kind: 'backlog', group: decodeURIComponent(parts[1]) };
  if (parts.length !== 3 || !parts[1] || !parts[2]) return undefined;
  const group = decodeURIComponent(parts[1]);
  if (parts[0] === 'c') return { kind: 'claim', group, id: parts[2] };
  if (parts[0] === 'm') return { kind: 'member', group, member: parts[2] };
  return undefined;
}

/** The name as it appears in a key; `parameter` names the argument in the error for an empty or ill-formed one. */
export function encodeName(parameter: string, name: string): string {
  checkText(parameter, name);
  return encodeURIComponent(name);
}

/** The end of etcd's range for every key starting with `prefix` (the prefix with its last byte raised). */
export function prefixEnd(prefix: Buffer): Buffer {
  const end = Buffer.from(prefix);
  for (let i = end.length - 1; i >= 0; i--) {
    if (end[i]! < 0xff) {
      end[i]! += 1;
      return end.subarray(0, i + 1);
    }
  }
  return Buffer.from([0]); // all 0xff: every key from prefix on
}
