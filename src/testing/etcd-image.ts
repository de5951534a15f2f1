import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFile, mkdir, mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { findExecutable, isExecutableFile } from '../../launcher/find-executable.js';

const run = promisify(execFile);

export interface BuildEtcdImageOptions {
  /** The etcd binary to pack. @default ETCD_BIN, else `etcd` on PATH */
  etcdBin?: string;
  /** etcdctl to pack beside it (the official image has it too). @default the one beside etcdBin, else on PATH */
  etcdctlBin?: string;
}

/**
 * Builds an image for `startEtcdCluster({ driver: 'container', image })` from an etcd binary on this machine, with
 * no registry access: `FROM scratch` with etcd and etcdctl in /usr/local/bin (where the official image has them)
 * and the shared libraries `ldd` names. Resolves with the image's name, tagged by etcd's version and the binaries'
 * content hash, so the same binaries reuse the image and other binaries get another one. Needs `docker` on PATH.
 */
export async function buildEtcdImage(options: BuildEtcdImageOptions = {}): Promise<string> {
  const etcd = options.etcdBin ?? process.env.ETCD_BIN ?? findExecutable('etcd');
  if (etcd === undefined || !isExecutableFile(etcd)) throw new Error(`options.etcdBin: no etcd binary (${etcd ?? 'none on PATH'})`);
  const etcdBin = await realpath(etcd);
  const besideIt = join(dirname(etcdBin), 'etcdctl');
  const etcdctl = options.etcdctlBin ?? (isExecutableFile(besideIt) ? besideIt : findExecutable('etcdctl'));
  if (etcdctl === undefined || !isExecutableFile(etcdctl)) throw new Error(`options.etcdctlBin: no etcdctl beside ${etcdBin} nor on PATH`);
  const etcdctlBin = await realpath(etcdctl);

  const version = /etcd Version: (\S+)/.exec((await run(etcdBin, ['--version'])).stdout)?.[1];
  if (version === undefined) throw new Error(`${etcdBin} --version names no etcd version`);
  const hash = createHash('sha256').update(await readFile(etcdBin)).update(await readFile(etcdctlBin)).digest('hex').slice(0, 12);
  const image = `etcd-lease-provider/etcd:${version}-${hash}`;
  if (await run('docker', ['image', 'inspect', image]).then(() => true, () => false)) return image;

  const context = await mkdtemp(join(tmpdir(), 'etcd-image-'));
  try {
    const rootfs = join(context, 'rootfs');
    await mkdir(join(rootfs, 'usr/local/bin'), { recursive: true });
    await mkdir(join(rootfs, 'tmp'));
    await copyFile(etcdBin, join(rootfs, 'usr/local/bin/etcd'));
    await copyFile(etcdctlBin, join(rootfs, 'usr/local/bin/etcdctl'));
    // Each library at the same path inside: the binary finds its loader by absolute path.
    for (const lib of await sharedLibraries([etcdBin, etcdctlBin])) {
      await mkdir(join(rootfs, dirname(lib)), { recursive: true });
      await copyFile(await realpath(lib), join(rootfs, lib));
    }
    await writeFile(join(context, 'Dockerfile'), 'FROM scratch\nCOPY rootfs/ /\nENTRYPOINT ["/usr/local/bin/etcd"]\n');
    // The classic builder needs no buildx plugin and pulls nothing for FROM scratch.
    await run('docker', ['build', '--quiet', '--tag', image, context], { env: { ...process.env, DOCKER_BUILDKIT: '0' } });
  } finally {
    await rm(context, { recursive: true, force: true });
  }
  return image;
}

/** `ldd` lines: "libc.so.6 => /lib/…/libc.so.6 (0x…)", or the loader's "/lib64/ld-linux-x86-64.so.2 (0x…)". */
async function sharedLibraries(binaries: readonly string[]): Promise<string[]> {
  const libs = new Set<string>();
  for (const bin of binaries) {
    // A static binary makes ldd exit non-zero ("not a dynamic executable"): it needs no libraries.
    const out = await run('ldd', [bin]).then((r) => r.stdout, () => '');
    for (const line of out.split('\n')) {
      const path = /=> (\/\S+)/.exec(line)?.[1] ?? /^\s+(\/\S+)/.exec(line)?.[1];
      if (path !== undefined) libs.add(path);
    }
  }
  return [...libs];
}
