import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { DEFAULT_ETCD_IMAGE } from './launcher-choice.js';

// The two development clusters: docker-compose.yml (host network, Linux) and docker-compose.ports.yml (published
// ports: Docker Desktop, Colima). The same members, client ports, image and etcd settings; `up --wait` can wait.
const root = join(import.meta.dirname, '..');
type Service = {
  image?: string;
  network_mode?: string;
  command?: string[];
  environment?: Record<string, string>;
  healthcheck?: { test?: string[] };
  ports?: string[];
};
const load = (file: string): { name?: string; services: Record<string, Service> } => parse(readFileSync(join(root, file), 'utf8'), { merge: true });
const flag = (service: Service, name: string): string | undefined =>
  service.command?.find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3) ?? service.environment?.[`ETCD_${name.toUpperCase().replace(/-/g, '_')}`];

const CLIENT_PORTS = ['2379', '22379', '32379'];

describe.each(['docker-compose.yml', 'docker-compose.ports.yml'])('%s', (file) => {
  const { services } = load(file);
  const members = Object.entries(services);

  it('runs three members of the image the tests run', () => {
    expect(members.map(([name]) => name)).toEqual(['etcd-0', 'etcd-1', 'etcd-2']);
    for (const [, service] of members) expect(service.image).toBe(`\${ETCD_IMAGE:-${DEFAULT_ETCD_IMAGE}}`);
  });

  it('compacts periodically (EtcdPubSub needs it) and checkpoints leases', () => {
    for (const [, service] of members) {
      expect(flag(service, 'auto-compaction-mode')).toBe('periodic');
      expect(flag(service, 'auto-compaction-retention')).toMatch(/^\d+[smh]$/);
      expect(flag(service, 'experimental-enable-lease-checkpoint')).toBe('true');
      expect(flag(service, 'experimental-enable-lease-checkpoint-persist')).toBe('true');
    }
  });

  it('has a healthcheck per member that needs a leader (etcdctl endpoint health on its own client URL), so up --wait waits', () => {
    for (const [name, service] of members) {
      const listen = flag(service, 'listen-client-urls')!;
      const own = listen.replace('0.0.0.0', '127.0.0.1');
      expect(service.healthcheck?.test, name).toEqual(['CMD', '/usr/local/bin/etcdctl', `--endpoints=${own}`, 'endpoint', 'health']);
    }
  });

  it('serves clients on 127.0.0.1:2379, :22379 and :32379, and advertises those', () => {
    const advertised = members.map(([, service]) => flag(service, 'advertise-client-urls'));
    expect(advertised).toEqual(CLIENT_PORTS.map((port) => `http://127.0.0.1:${port}`));
  });
});

describe('the two networkings', () => {
  it('docker-compose.yml: host network, every member listening on loopback only', () => {
    for (const service of Object.values(load('docker-compose.yml').services)) {
      expect(service.network_mode).toBe('host');
      expect(service.ports).toBeUndefined();
      for (const name of ['listen-client-urls', 'listen-peer-urls']) expect(flag(service, name)).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    }
  });

  it('docker-compose.ports.yml: no host network, each client port published on the host loopback only, a project of its own', () => {
    const ports = load('docker-compose.ports.yml');
    expect(ports.name).toBe('etcd-lease-provider-ports');
    Object.values(ports.services).forEach((service, i) => {
      expect(service.network_mode).toBeUndefined();
      expect(service.ports).toEqual([`127.0.0.1:${CLIENT_PORTS[i]}:2379`]);
    });
  });
});
