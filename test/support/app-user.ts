import { Etcd3 } from 'etcd3';

/** The accounts `enableAppAuth` creates: a root user, and an application user confined to one prefix. */
export const ROOT_USER = { username: 'root', password: 'root-secret' } as const;
export const APP_USER = { username: 'app', password: 'app-secret' } as const;
export const APP_PREFIX = 'allowed/';

/**
 * Turns on etcd authentication the way an operator would for this package: root, and a role that may read and
 * write only under APP_PREFIX, held by APP_USER. `extraRoles` are created (empty) before auth is on, for tests that
 * edit roles later.
 */
export async function enableAppAuth(endpoints: string[], extraRoles: string[] = []): Promise<void> {
  const admin = new Etcd3({ hosts: endpoints });
  try {
    await admin.role('root').create();
    await admin.user(ROOT_USER.username).create(ROOT_USER.password);
    await admin.user(ROOT_USER.username).addRole('root');
    const app = await admin.role('lease-app').create();
    await app.grant({ permission: 'Readwrite', range: admin.range({ prefix: APP_PREFIX }) });
    await admin.user(APP_USER.username).create(APP_USER.password);
    await admin.user(APP_USER.username).addRole('lease-app');
    for (const role of extraRoles) await admin.role(role).create();
    await admin.auth.authEnable({});
  } finally {
    admin.close();
  }
}
